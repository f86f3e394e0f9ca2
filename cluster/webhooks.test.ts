/**
 * Webhooks in a cluster are emitted once (spec/cluster.md, Webhook delivery): three `hark start`
 * nodes on one NATS server and one libSQL server, one real receiver verifying every signature with
 * `standardwebhooks`. Events produced through every node (database changes and live sessions)
 * arrive once each in the receiver's accepted set, in order per resource; kill -9 of the node that
 * holds the endpoint's lease, with events pending, hands them to another node, which delivers them.
 * Waits are on events (requests, the lease bucket's watch); the takeover time is printed, never asserted.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kvm } from '@nats-io/kv'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_LEASE_BUCKET } from './nats/protocol.js'
import { checkOrderedAndComplete, WebhookReceiver } from '../plugins/webhooks/test/receiver.js'
import { startNats, type NatsServer } from '../servers/nats.js'
import { startSqld, type Sqld } from '../servers/sqld.js'
import { WsTerminal } from '../transports/webrtc/test/wsTerminal.js'
import { spawnNode, type NodeProcess } from './spawnNode.js'
import { restCall, seedSharedWorkspace } from './test/processes.js'

let nats: NatsServer
let sqld: Sqld
const masterKey = randomBytes(32).toString('base64')
let root = ''
let nc: NatsConnection
const nodes = new Map<number, NodeProcess>()
let tokens = new Map<string, string>()
let workspaceId = ''
let apiKey = ''
const receivers: WebhookReceiver[] = []

const start = async (i: number) => {
  nodes.set(
    i,
    await spawnNode({
      nodeId: `n${i}`,
      dataDir: join(root, `node${i}`),
      natsUrl: nats.url,
      flags: ['--database-url', sqld.url, '--webhooks-allow-private-networks', 'true'],
      env: { HARK_SECURITY_MASTER_KEY: masterKey },
    }),
  )
}

beforeAll(async () => {
  nats = await startNats()
  sqld = await startSqld()
  root = mkdtempSync(join(tmpdir(), 'hark-cluster-webhooks-'))
  const seeded = await seedSharedWorkspace({ root, storageUrl: sqld.url, masterKey, name: 'webhooks', clientIds: ['x', 'y', 'z'] })
  workspaceId = seeded.workspaceId
  apiKey = seeded.apiKey
  tokens = seeded.tokens
  for (const i of [1, 2, 3]) await start(i)
  nc = await connect({ servers: nats.url })
}, 90_000)

afterAll(async () => {
  await nc?.close()
  await Promise.all([...nodes.values()].map((n) => n.kill('SIGKILL')))
  for (const r of receivers) await r.close()
  await nats?.stop()
  await sqld?.stop()
  if (root) rmSync(root, { recursive: true, force: true })
})

const api = <T = Record<string, unknown>>(i: number, method: string, path: string, body?: unknown) =>
  restCall<T>(nodes.get(i)!.ports.rest, apiKey, method, path, body)

const endpointFor = async (receiver: WebhookReceiver, through: number): Promise<string> => {
  const created = await api<{ webhookId: string; secret: string }>(through, 'POST', '/webhooks', { url: receiver.url })
  expect(created.status).toBe(201)
  receiver.secrets.push(created.body.secret)
  return created.body.webhookId
}

/** Every delivery of the endpoint, as the shared database has them (through one node). */
const deliveries = async (webhookId: string, through: number) =>
  (await api<{ deliveries: Array<{ status: string }> }>(through, 'GET', `/webhooks/${webhookId}/deliveries?limit=100`)).body.deliveries

/** Ask again (one REST read each turn) until the node's replica has `count` deliveries in `status`. */
const untilStatus = async (webhookId: string, through: number, status: string, count: number) => {
  for (let tries = 0; ; tries++) {
    const list = await deliveries(webhookId, through)
    if (list.filter((d) => d.status === status).length >= count) return
    if (tries > 2000) throw new Error(`${count} deliveries never ${status}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

const ws = (i: number, id: string) =>
  WsTerminal.connect(nodes.get(i)!.ports.gateway, tokens.get(id)!, readFileSync(join(root, `node${i}`, 'tls-self-signed.crt'), 'utf8'))

describe('webhooks in a cluster', () => {
  it('events produced through every node reach the receiver once each, in order per resource', async () => {
    const receiver = await WebhookReceiver.start()
    receivers.push(receiver)
    // The first attempt of every event fails: its retry (about 5 s later) is where two senders would both send.
    receiver.respond = (r) => (r.attempt === 1 ? 503 : 200)
    const webhookId = await endpointFor(receiver, 1)

    // Database changes through every node: each client created through one node, updated through the next.
    let expected = 0
    for (const i of [1, 2, 3]) {
      for (let k = 0; k < 4; k++) {
        expect((await api(i, 'POST', '/clients', { clientId: `c${i}-${k}`, room: `r${i}` })).status).toBe(201)
        expect((await api((i % 3) + 1, 'PATCH', `/clients/c${i}-${k}`, { room: `s${i}` })).status).toBe(200)
        expected += 2
      }
    }
    // Live events on every node: x, y, z each in a room of its own, connected to nodes 1, 2, 3, then gone.
    const rooms = { x: 'room-x', y: 'room-y', z: 'room-z' } as const
    // Each moved through the node it connects to (another node's cache of the client follows within a NATS hop).
    for (const [i, [id, room]] of Object.entries(rooms).entries()) expect((await api(i + 1, 'PATCH', `/clients/${id}`, { room })).status).toBe(200)
    expected += 3
    const terminals = await Promise.all((['x', 'y', 'z'] as const).map((id, i) => ws(i + 1, id)))
    for (const t of terminals) await t.events.next((e) => e.type === 'session', 10_000, 'session')
    for (const t of terminals) t.ws.close()
    await Promise.all(terminals.map((t) => new Promise((resolve) => t.ws.once('close', resolve))))
    // client.connected, room.started, client.disconnected, room.finished for each.
    expected += 12

    await receiver.acceptedCount(expected, 60_000)
    const byResource = checkOrderedAndComplete(receiver.accepted.items)
    expect(byResource.get('client:c1-0')!.map((e) => e.type)).toEqual(['client.created', 'client.updated'])
    expect(byResource.get('client:x')!.map((e) => e.type)).toEqual(['client.updated', 'client.connected', 'client.disconnected'])
    expect(byResource.get('room:room-y')!.map((e) => e.type)).toEqual(['room.started', 'room.finished'])
    expect(receiver.requests.items.every((r) => r.verifiedBy.length === 1)).toBe(true)
    // Every delivery recorded as delivered in the shared database...
    await untilStatus(webhookId, 1, 'delivered', expected)
    // ...and nothing was accepted twice: one node sent each event, twice (the failed attempt, the retry).
    expect(receiver.accepted.items).toHaveLength(expected)
    expect(receiver.requests.items).toHaveLength(2 * expected)
    expect(new Set(receiver.requests.items.map((r) => r.attempt))).toEqual(new Set([1, 2]))
    expect((await api(2, 'DELETE', `/webhooks/${webhookId}`)).status).toBe(200)
  }, 90_000)

  it('kill -9 of the node holding the endpoint lease with events pending: another node takes the lease and delivers them', async () => {
    const receiver = await WebhookReceiver.start()
    receivers.push(receiver)
    // Requests are held unanswered until the kill.
    receiver.respond = () => 'hold'
    const webhookId = await endpointFor(receiver, 2)
    const kv = await new Kvm(nc).open(WEBHOOK_LEASE_BUCKET)

    let expected = 0
    for (const i of [1, 2, 3]) {
      for (let k = 0; k < 4; k++) {
        expect((await api(i, 'POST', '/clients', { clientId: `k${i}-${k}`, room: 'lobby' })).status).toBe(201)
        expect((await api(i, 'PATCH', `/clients/k${i}-${k}`, { room: `t${i}` })).status).toBe(200)
        expected += 2
      }
    }
    // The holder sends at most 4 at once (spec/webhooks.md): they are held; the rest wait their turn.
    await receiver.requests.next(() => receiver.requests.items.length >= 4, 20_000, 'four requests in flight')
    const entry = await kv.get(webhookId)
    expect(entry?.operation).toBe('PUT')
    const holder = entry!.json<{ node: string }>().node
    const index = Number(holder.slice(1))
    // Every event committed (and none answered) before the kill.
    await untilStatus(webhookId, index === 1 ? 2 : 1, 'pending', expected)
    expect(receiver.accepted.items).toHaveLength(0)

    const watch = await kv.watch({ key: webhookId, include: 'updates' })
    receiver.respond = () => 200
    const t0 = performance.now()
    await nodes.get(index)!.kill('SIGKILL')
    nodes.delete(index)
    let taker = ''
    for await (const e of watch) {
      if (e.operation === 'PUT' && e.json<{ node: string }>().node !== holder) {
        taker = e.json<{ node: string }>().node
        break
      }
    }
    watch.stop()
    const tookOver = performance.now() - t0
    await receiver.acceptedCount(expected, 30_000)
    console.log(`cluster webhooks: kill -9 of ${holder} -> ${taker} holds the lease after ${tookOver.toFixed(0)} ms; all ${expected} delivered after ${(performance.now() - t0).toFixed(0)} ms`)
    expect(taker).not.toBe('')
    const byResource = checkOrderedAndComplete(receiver.accepted.items)
    expect(byResource.size).toBe(expected / 2)
    expect(receiver.requests.items.every((r) => r.verifiedBy.length === 1)).toBe(true)
    // Once all are recorded delivered, nothing more was accepted: only the new holder sent them.
    await untilStatus(webhookId, [1, 2, 3].find((i) => nodes.has(i))!, 'delivered', expected)
    expect(receiver.accepted.items).toHaveLength(expected)
  }, 90_000)
})
