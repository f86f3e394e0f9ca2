/**
 * Webhooks survive a crash: a real `hark start` with events pending (four of them in flight to a
 * receiver that holds them unanswered) is killed with SIGKILL; after a restart on the same data
 * dir every event arrives, signed, once in the accepted set, in order per resource.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'libsql'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { cliJson, repoRoot, tempDir } from '../../core/test/helpers.js'
import { killLeftovers, spawnHark } from '../../cli/test/harkProcess.js'
import { checkOrderedAndComplete, WebhookReceiver } from './test/receiver.js'

afterEach(killLeftovers)

const start = async (dataDir: string) => {
  const hark = spawnHark(
    [process.execPath, join(repoRoot, 'bin/hark.js'), 'start', '--data', dataDir, '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', '--log-level', 'debug'],
    { env: { HARK_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' } },
  )
  return { hark, ports: await hark.running() }
}

/** Deliveries of live events the engine has logged as written (`live webhook events written`, debug). */
const liveWritten = (lines: ReadonlyArray<string>): number =>
  lines
    .filter((l) => l.includes('"live webhook events written"'))
    .reduce((n, l) => n + (JSON.parse(l) as { deliveries: number }).deliveries, 0)

/** Event ids the engine committed, read straight from the libSQL file. */
const committedEvents = (dataDir: string): string[] => {
  const db = new Database(join(dataDir, 'hark.db'), { readonly: true })
  try {
    return (db.prepare('SELECT DISTINCT event_id FROM webhook_deliveries ORDER BY event_id').all() as Array<{ event_id: string }>).map((r) => r.event_id)
  } finally {
    db.close()
  }
}

describe('webhooks across a crash (real engine process, SIGKILL)', () => {
  it('delivers every pending event after the restart, in order per resource', async () => {
    const dir = tempDir()
    const receiver = await WebhookReceiver.start()
    try {
      const data = ['--data', dir.path]
      const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data])
      const { apiKey } = await cliJson<{ apiKey: string }>(['apikey', 'create', '--workspace', workspaceId, ...data])

      const first = await start(dir.path)
      const api = (method: string, path: string, body?: unknown) =>
        fetch(`http://127.0.0.1:${first.ports.rest}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }))

      // The receiver takes requests and never answers them, until the crash.
      receiver.respond = () => 'hold'
      const created = await api('POST', '/webhooks', { url: receiver.url })
      expect(created.status).toBe(201)
      receiver.secrets.push(created.body.secret!)

      for (let i = 0; i < 12; i++) expect((await api('POST', '/clients', { clientId: `dev-${i}`, room: `room-${i % 3}` })).status).toBe(201)
      for (let i = 0; i < 6; i++) expect((await api('PATCH', `/clients/dev-${i}`, { room: 'room-9' })).status).toBe(200)
      for (const id of ['dev-10', 'dev-11']) expect((await api('DELETE', `/clients/${id}`)).status).toBe(200)
      // Live events too: a terminal comes and goes over WSS.
      const { token } = (await api('POST', '/clients/dev-8/token', {})).body
      const ca = readFileSync(join(dir.path, 'tls-self-signed.crt'), 'utf8')
      const ws = new WebSocket(`wss://127.0.0.1:${first.ports.gateway}/v1/connect?token=${token}`, { ca })
      await new Promise<void>((resolve, reject) => {
        ws.once('message', () => resolve())
        ws.once('error', reject)
      })
      ws.close()
      await new Promise<void>((resolve) => ws.once('close', () => resolve()))
      // 12 created + 6 updated + 2 deleted + connected, room.started, disconnected, room.finished.
      const expected = 24
      await receiver.requests.next(() => receiver.requests.items.length >= 4, 20_000, 'four requests in flight')
      // The live events are written in a later turn of the engine, which says so (one endpoint: one delivery each).
      await first.hark.lines.next(() => liveWritten(first.hark.lines.items) >= 4, 20_000, 'the four live events written')
      const events = committedEvents(dir.path)
      expect(events).toHaveLength(expected)
      expect(receiver.accepted.items).toHaveLength(0)

      expect(await first.hark.stop('SIGKILL')).toBeNull()
      receiver.respond = () => 200

      const second = await start(dir.path)
      await receiver.acceptedCount(expected)
      const byResource = checkOrderedAndComplete(receiver.accepted.items)
      expect([...receiver.accepted.items.map((e) => e.id)].sort()).toEqual(events)
      expect(receiver.requests.items.every((r) => r.verifiedBy.length === 1)).toBe(true)
      expect(byResource.get('client:dev-8')!.map((e) => e.type)).toEqual(['client.created', 'client.connected', 'client.disconnected'])
      expect(byResource.get('client:dev-0')!.map((e) => e.type)).toEqual(['client.created', 'client.updated'])
      expect(byResource.get('room:room-2')!.map((e) => e.type)).toEqual(['room.started', 'room.finished'])

      expect(await second.hark.stop('SIGTERM')).toBe(0)
    } finally {
      await receiver.close()
      dir.remove()
    }
  })
})
