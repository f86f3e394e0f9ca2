import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../clock.js'
import { openStorage, type StorageShape } from '../storage/storage.js'
import { RecordingLink, seedWorkspace, startTestEngine } from '../test/helpers.js'

const T0 = Date.parse('2026-11-24T09:00:00Z')

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

/** A real engine (no transports: terminals come through the hub) on a driven clock, with one endpoint taking every event. */
const setup = async () => {
  const clock = new ManualClock(T0)
  const t = await startTestEngine({}, { clock })
  cleanup.push(() => t.stop())
  const { storage, security, terminals, webhookOutbox } = t.engine.host
  const ws = seedWorkspace(t.engine)
  const endpoint = {
    webhookId: 'wh_1', workspaceId: ws.workspaceId, url: 'https://example.com/h', events: null, description: null, secretEnc: 'x',
    previousSecretEnc: null, previousSecretExpiresAt: null, enabled: true, disabledReason: null, failingSince: null, createdAt: T0, updatedAt: T0,
  }
  storage.transaction(() => {
    storage.webhookEndpoints.insert(endpoint)
    storage.feed.record({ kind: 'webhook.created', workspaceId: ws.workspaceId, subject: 'wh_1', at: T0, endpoint })
  })
  const connect = async (clientId: string) => {
    const issued = await security.tokens.issue(ws.workspaceId, clientId, null)
    const link = new RecordingLink('mqtt')
    const session = terminals.open(await security.authenticateTerminal({ token: issued.token }), link)
    await link.event('session')
    return { link, session }
  }
  const moveClient = (clientId: string, room: string | null) => ws.moveClient(clientId, room)
  const revokeAll = (clientId: string) =>
    storage.transaction(() => {
      storage.clients.revokeAllTokens(ws.workspaceId, clientId, clock.now())
      storage.feed.record({ kind: 'client.tokensRevoked', workspaceId: ws.workspaceId, subject: clientId, at: clock.now() })
    })
  /** The live events written, as their bodies, in the order they were written. */
  const written = async (from: StorageShape = storage) => {
    if (from === storage) await webhookOutbox.flush()
    const rows = from.db.prepare('SELECT body FROM webhook_deliveries WHERE id IN (SELECT min(id) FROM webhook_deliveries GROUP BY event_id) ORDER BY id').all() as Array<{ body: string }>
    return rows
      .map((r) => JSON.parse(r.body) as { type: string; timestamp: string; resource: string; data: Record<string, unknown> })
      .filter((e) => /^(client\.(connected|disconnected|room_changed)|room\.)/.test(e.type))
      .map(({ type, timestamp, resource, data }) => ({ type, at: Date.parse(timestamp) - T0, resource, data }))
  }
  return { t, clock, ws, connect, moveClient, revokeAll, written }
}

describe('live webhook events, from what the workspace actors announce', () => {
  it('a terminal connects, changes rooms and disconnects; its rooms start and finish: each with its data and time', async () => {
    const { clock, ws, connect, moveClient, written } = await setup()
    ws.addClient('dev-1', 'lobby')
    ws.addClient('dev-2', 'lobby')
    const one = await connect('dev-1')
    clock.advance(1000)
    const two = await connect('dev-2')
    clock.advance(1000)
    moveClient('dev-1', 'kitchen')
    clock.advance(1000)
    moveClient('dev-1', null)
    moveClient('dev-1', null) // no move: no event
    clock.advance(1000)
    two.session.end()
    clock.advance(1000)
    one.session.end()
    const s1 = one.session.sessionId
    const s2 = two.session.sessionId
    const events = await written()
    const of = (resource: string) => events.filter((e) => e.resource === resource).map(({ type, at, data }) => ({ type, at, data }))
    expect(of('client:dev-1')).toEqual([
      { type: 'client.connected', at: 0, data: { clientId: 'dev-1', sessionId: s1, transport: 'mqtt', room: 'lobby' } },
      { type: 'client.room_changed', at: 2000, data: { clientId: 'dev-1', sessionId: s1, from: 'lobby', to: 'kitchen' } },
      { type: 'client.room_changed', at: 3000, data: { clientId: 'dev-1', sessionId: s1, from: 'kitchen', to: null } },
      {
        type: 'client.disconnected', at: 5000,
        data: { clientId: 'dev-1', sessionId: s1, transport: 'mqtt', room: null, reason: 'client_closed', durationMs: 5000 },
      },
    ])
    expect(of('client:dev-2').at(-1)).toEqual({
      type: 'client.disconnected', at: 4000,
      data: { clientId: 'dev-2', sessionId: s2, transport: 'mqtt', room: 'lobby', reason: 'client_closed', durationMs: 3000 },
    })
    // lobby: dev-1 came first; dev-1 left for the kitchen, dev-2 (the last) left at 4 s.
    expect(of('room:lobby')).toEqual([
      { type: 'room.started', at: 0, data: { room: 'lobby', clientId: 'dev-1' } },
      { type: 'room.finished', at: 4000, data: { room: 'lobby', clientId: 'dev-2', durationMs: 4000 } },
    ])
    expect(of('room:kitchen')).toEqual([
      { type: 'room.started', at: 2000, data: { room: 'kitchen', clientId: 'dev-1' } },
      { type: 'room.finished', at: 3000, data: { room: 'kitchen', clientId: 'dev-1', durationMs: 1000 } },
    ])
  })

  it('says why a session the server closed ended: revocation, a newer session, shutdown (written before storage closes)', async () => {
    const { t, clock, ws, connect, revokeAll, written } = await setup()
    ws.addClient('dev-1', 'lobby')
    ws.addClient('dev-2', 'lobby')
    const revoked = await connect('dev-1')
    const older = await connect('dev-2')
    clock.advance(500)
    revokeAll('dev-1')
    expect(revoked.link.closedWith?._tag).toBe('TokenRevoked')
    const newer = await connect('dev-2')
    expect(older.link.closedWith?._tag).toBe('SessionReplaced')
    clock.advance(500)
    await t.engine.stop()
    expect(newer.link.closedWith?._tag).toBe('ServerShuttingDown')
    const storage = openStorage(join(t.dir, 'hark.db'))
    cleanup.push(async () => storage.close())
    const ended = (await written(storage)).filter((e) => e.type === 'client.disconnected')
    expect(ended.map((e) => [e.data.sessionId, e.data.room, e.data.reason, e.data.durationMs])).toEqual([
      [revoked.session.sessionId, 'lobby', 'token_revoked', 500],
      // It left the lobby for its successor before it ended: the room it was in last.
      [older.session.sessionId, 'lobby', 'session_replaced', 500],
      [newer.session.sessionId, 'lobby', 'server_shutting_down', 500],
    ])
    // The lone older session left before its successor joined: the lobby finished and started again; then the stop finished it.
    expect((await written(storage)).filter((e) => e.resource === 'room:lobby').map((e) => `${e.type} ${e.data.clientId} ${e.at}`)).toEqual([
      'room.started dev-1 0', 'room.finished dev-2 500', 'room.started dev-2 500', 'room.finished dev-2 1000',
    ])
  })
})
