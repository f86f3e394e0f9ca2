/**
 * Two engines (two nodes) on one libSQL server (sqld on loopback): REST through one node and
 * WebSocket terminals on the other, over real sockets. Each node keeps its own replica; what
 * one node writes reaches the other at the other's next change poll, driven on its clock.
 */
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { createLogger } from '../../core/log.js'
import type { Change } from '../../core/storage/changes.js'
import { Inbox, runAll, uplink } from '../../core/test/helpers.js'
import { startSqld, type Sqld } from '../../servers/sqld.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { Api } from './test/api.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'
import { API_PREFIX } from './index.js'

const POLL_MS = 200
const cleanup: Array<() => unknown> = []
afterEach(async () => {
  await runAll(cleanup.splice(0).reverse())
})

interface Node {
  readonly t: RestEngine
  readonly clock: ManualClock
  /** What the engine logged (JSON lines), to wait for its own messages. */
  readonly log: Inbox<{ msg: string }>
  api(apiKey: string): Api
  /** A terminal on this node's WebSocket gateway. */
  connect(token: string): Promise<TestTerminal>
  /** Move this node's clock by one change poll and wait until its storage hears a change matching `heard`. */
  poll(heard: (c: Change) => boolean): Promise<void>
}

/** Every node of one cluster is given the same master key (it is never generated with a server). */
const cluster = async () => {
  const sqld = await startSqld()
  cleanup.push(() => sqld.stop())
  const masterKey = randomBytes(32).toString('base64')
  const node = async (): Promise<Node> => {
    const clock = new ManualClock(Date.now())
    const log = new Inbox<{ msg: string }>()
    const t = await startRestEngine(
      { extensions: [websocketTransport], storage: { url: sqld.url, changePollMs: POLL_MS }, security: { masterKey }, recordings: { minFreeMb: 0 } },
      { clock, logger: createLogger('info', { write: (line: string) => log.push(JSON.parse(line) as { msg: string }) }) },
    )
    cleanup.push(() => t.stop())
    return {
      t,
      clock,
      log,
      api: (apiKey) => new Api(t.url(API_PREFIX), apiKey),
      connect: (token) => TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert),
      poll: async (heard) => {
        const seen = new Promise<void>((resolve) => {
          const off = t.engine.host.storage.feed.onAny((c) => {
            if (heard(c)) {
              off()
              resolve()
            }
          })
        })
        await clock.advanceAsync(POLL_MS)
        await seen
      },
    }
  }
  return { sqld, node }
}

const issue = async (api: Api, clientId: string) => {
  const r = await api.post<{ token: string; jti: string }>(`/clients/${clientId}/token`, {})
  expect(r.status).toBe(201)
  return r.body
}

describe('two nodes on one libSQL server', () => {
  it("a client created through node A's REST is seen by node B, and A's token for it opens a session on B", async () => {
    const { node } = await cluster()
    const a = await node()
    const b = await node()
    expect(a.t.engine.host.storage.file).not.toBe(b.t.engine.host.storage.file)
    const { workspaceId, apiKey } = a.t.workspace()
    const viaA = a.api(apiKey)
    expect((await viaA.post('/clients', { clientId: 'dev', room: 'r1' })).status).toBe(201)
    const { token } = await issue(viaA, 'dev')

    await b.poll((c) => c.kind === 'client.created' && c.subject === 'dev')
    const viaB = b.api(apiKey)
    expect((await viaB.get('/clients/dev')).body).toMatchObject({ clientId: 'dev', room: 'r1', status: 'offline' })
    const terminal = await b.connect(token)
    expect(await terminal.event('session')).toMatchObject({ room: 'r1' })
    expect((await viaB.get('/clients/dev')).body).toMatchObject({ status: 'online', connection: { transport: 'websocket', room: 'r1' } })
    // B writes too: a client created through B is seen by A.
    expect((await viaB.post('/clients', { clientId: 'from-b', room: 'r2' })).status).toBe(201)
    await a.poll((c) => c.kind === 'client.created' && c.subject === 'from-b')
    expect((await viaA.get('/clients/from-b')).body).toMatchObject({ clientId: 'from-b', room: 'r2' })
    expect(b.t.engine.host.terminals.session(workspaceId, 'dev')).toBeDefined()
    terminal.close()
  })

  it("a room change, a revocation and a deletion through A reach B's terminals at B's next change poll", async () => {
    const { node } = await cluster()
    const a = await node()
    const b = await node()
    const { workspaceId, apiKey } = a.t.workspace()
    const viaA = a.api(apiKey)
    for (const clientId of ['x', 'y']) expect((await viaA.post('/clients', { clientId, room: 'r1' })).status).toBe(201)
    const x = await issue(viaA, 'x')
    const y = await issue(viaA, 'y')
    await b.poll((c) => c.kind === 'client.created' && c.subject === 'y')
    const tx = await b.connect(x.token)
    const ty = await b.connect(y.token)
    await tx.event('participant.joined', (e) => e.participant.id === 'y')

    // PATCH through A: B's replica has not pulled it, so x stays in r1 until B polls.
    expect((await viaA.patch('/clients/x', { room: 'r2' })).status).toBe(200)
    expect(b.t.engine.host.storage.clients.get(workspaceId, 'x')?.room).toBe('r1')
    await b.poll((c) => c.kind === 'client.updated' && c.subject === 'x')
    expect(await tx.event('room.changed')).toMatchObject({ from: 'r1', to: 'r2' })

    // Revocation of y's token through A closes y's session on B within one poll of B's clock.
    expect((await viaA.post('/tokens/revoke', { jti: y.jti })).status).toBe(200)
    expect(b.t.engine.host.terminals.session(workspaceId, 'y')).toBeDefined()
    await b.poll((c) => c.kind === 'token.revoked' && c.subject === y.jti)
    expect(await ty.closed).toEqual({ code: 4003, reason: 'token_revoked' })

    // Deleting x through A closes x's session on B.
    expect((await viaA.delete('/clients/x')).status).toBe(200)
    await b.poll((c) => c.kind === 'client.deleted' && c.subject === 'x')
    expect(await tx.closed).toEqual({ code: 4004, reason: 'client_deleted' })
  })

  it("a room's recording setting PUT through A records B's next session of the room; cleared, the next is not", async () => {
    const { node } = await cluster()
    const a = await node()
    const b = await node()
    const { workspaceId, apiKey } = a.t.workspace()
    const viaA = a.api(apiKey)
    const recordings = b.t.engine.host.operations.recordings
    expect((await viaA.post('/clients', { clientId: 'cam', room: 'porch' })).status).toBe(201)
    const { token } = await issue(viaA, 'cam')
    await b.poll((c) => c.kind === 'client.created' && c.subject === 'cam')
    /** A session of the porch on B, from its terminal's join to its room closing: its room.recording, if any. */
    const session = async (recorded: boolean) => {
      const ended = recorded ? new Promise((resolve) => { const off = recordings.onEnded((r) => (off(), resolve(r))) }) : null
      const closed = new Promise<void>((resolve) => {
        const off = b.t.engine.host.terminals.on('room.closed', (e) => e.room === 'porch' && (off(), resolve()))
      })
      const cam = await b.connect(token)
      await cam.event('session')
      const told = recorded ? await cam.event('room.recording') : null
      const current = recordings.current(workspaceId, 'porch')
      cam.close()
      await closed
      await ended
      return { told, current }
    }
    // A first session on B reads (and keeps) the workspace's settings: none records.
    expect(await session(false)).toEqual({ told: null, current: null })

    expect((await viaA.put('/rooms/porch/recording-setting', { tracks: 'per-participant' })).body).toEqual({ room: 'porch', tracks: 'per-participant' })
    await b.poll((c) => c.kind === 'room.updated' && c.subject === 'porch')
    const on = await session(true)
    expect(on.told).toMatchObject({ room: 'porch', recording: true, tracks: 'per-participant' })
    expect(on.current).toMatchObject({ recordingId: on.told!.recordingId, startedBy: 'room' })
    expect((await b.api(apiKey).get('/rooms/porch/recording-setting')).body).toEqual({ room: 'porch', tracks: 'per-participant' })

    expect((await viaA.put('/rooms/porch/recording-setting', { tracks: null })).status).toBe(200)
    await b.poll((c) => c.kind === 'room.updated' && c.subject === 'porch')
    expect(await session(false)).toEqual({ told: null, current: null })
    // The porch was recorded once, in the session between the two settings.
    const list = await b.api(apiKey).get<{ recordings: Array<{ recordingId: string }> }>('/recordings?room=porch')
    expect(list.body.recordings.map((r) => r.recordingId)).toEqual([on.told!.recordingId])
    // A's room.updated left the room's default agent as it was (none).
    expect((await viaA.get('/rooms/porch')).body).toMatchObject({ defaultAgent: null })
  })

  it('with the primary down: REST writes answer 503 storage_unavailable, terminals keep talking, replica-verified tokens get in; after sqld restarts, writes work again', async () => {
    const { sqld, node } = await cluster()
    const a = await node()
    const b = await node()
    const { apiKey } = a.t.workspace()
    const viaA = a.api(apiKey)
    const viaB = b.api(apiKey)
    for (const clientId of ['x', 'y', 'z']) expect((await viaA.post('/clients', { clientId, room: 'r' })).status).toBe(201)
    const [x, y, z] = [await issue(viaA, 'x'), await issue(viaA, 'y'), await issue(viaA, 'z')]
    await b.poll((c) => c.kind === 'client.created' && c.subject === 'z')
    const tx = await b.connect(x.token)
    const ty = await b.connect(y.token)
    await tx.event('participant.joined', (e) => e.participant.id === 'y')

    await sqld.kill()
    for (const [api, clientId] of [[viaA, 'new-a'], [viaB, 'new-b']] as const) {
      const refused = await api.post('/clients', { clientId, room: 'r' })
      expect(refused.status).toBe(503)
      expect(refused.body).toEqual({ error: { code: 'storage_unavailable', message: 'the database primary is unreachable; try again later' } })
    }
    expect((await viaA.patch('/clients/x', { room: 'elsewhere' })).status).toBe(503)
    expect((await viaB.post('/clients/x/token', {})).status).toBe(503)
    // Reads go on from each node's replica.
    expect((await viaA.get('/clients/x')).body).toMatchObject({ clientId: 'x', room: 'r' })
    expect((await viaB.get('/clients/y')).body).toMatchObject({ clientId: 'y', status: 'online' })

    // Connected terminals keep talking, byte for byte.
    tx.sendAudio(uplink([7, 7, 7]))
    expect([...parseDownlink(await ty.frames.next())!.opus]).toEqual([7, 7, 7])
    // A token issued before the outage is verified from the replica: z gets in and hears x.
    const tz = await b.connect(z.token)
    expect(await tz.event('session')).toMatchObject({ room: 'r' })
    await tx.event('participant.joined', (e) => e.participant.id === 'z')
    tx.sendAudio(uplink([9, 1]))
    expect([...parseDownlink(await tz.frames.next((f) => parseDownlink(f)!.opus[0] === 9))!.opus]).toEqual([9, 1])
    // B's poll finds the primary gone (its sync fails) and says so once.
    await b.clock.advanceAsync(POLL_MS)
    await b.log.next((l) => l.msg.startsWith('database primary unreachable'), 10_000, 'the unreachable primary logged')

    // sqld comes back on its port: each node's next poll syncs, and writes resume by themselves.
    await sqld.restart()
    for (const n of [a, b]) {
      await n.clock.advanceAsync(POLL_MS)
      await n.log.next((l) => l.msg.startsWith('database primary reachable again'), 10_000, 'the primary back')
    }
    expect((await viaA.post('/clients', { clientId: 'after-a', room: 'r' })).status).toBe(201)
    expect((await viaB.post('/clients', { clientId: 'after-b', room: 'r' })).status).toBe(201)
    await a.poll((c) => c.kind === 'client.created' && c.subject === 'after-b')
    expect((await viaA.get('/clients/after-b')).status).toBe(200)
    tx.sendAudio(uplink([5]))
    expect([...parseDownlink(await ty.frames.next((f) => parseDownlink(f)!.opus[0] === 5))!.opus]).toEqual([5])
  })

  it('meters a session that opened and ended while the primary was down, once it is back', async () => {
    const { sqld, node } = await cluster()
    const b = await node()
    const { apiKey } = b.t.workspace()
    const viaB = b.api(apiKey)
    expect((await viaB.post('/clients', { clientId: 'z', room: 'r' })).status).toBe(201)
    const z = await issue(viaB, 'z')
    await sqld.kill()
    const ended = new Promise<void>((resolve) => b.t.engine.host.terminals.on('session.ended', () => resolve()))
    const tz = await b.connect(z.token)
    await tz.event('session')
    tz.close()
    await ended
    await sqld.restart()
    await b.clock.advanceAsync(POLL_MS)
    await b.log.next((l) => l.msg.startsWith('database primary reachable again'), 10_000, 'the primary back')
    // The next usage checkpoint writes what waited: one session, opened and closed.
    await b.clock.advanceAsync(b.t.engine.settings.usage.checkpointMs)
    const today = new Date(b.clock.now()).toISOString().slice(0, 10)
    const usage = await viaB.get<{ records: Array<{ date: string; sessions: number }> }>('/usage')
    expect(usage.body.records.find((r) => r.date === today)).toMatchObject({ sessions: 1 })
  })

  it('refuses a second engine on the same data dir and server (each node needs its own replica)', async () => {
    const { sqld, node } = await cluster()
    const a = await node()
    const { createTestEngine } = await import('../../core/test/helpers.js')
    const second = createTestEngine({
      dataDir: a.t.dir,
      storage: { url: sqld.url },
      security: { masterKey: a.t.engine.settings.security.masterKey },
    })
    await expect(second.start()).rejects.toThrow(/in use by process \d+: every node needs its own data dir/)
  })
})
