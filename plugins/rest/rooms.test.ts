import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoomMember } from '../../core/actors/room.js'
import { ManualClock } from '../../core/clock.js'
import { uplink } from '../../core/test/helpers.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
beforeAll(async () => {
  t = await startRestEngine()
})
afterAll(() => t.stop())

/** An agent as the hub sees one: a room member with no transport. */
const agent = (id: string): RoomMember => ({
  id,
  kind: 'agent',
  name: 'Helper',
  deliver: () => {},
  sendEvent: () => {},
  joined: () => {},
})

type Room = { room: string; participants: Array<{ id: string; kind: string; transport: string | null; connectedAt: string | null; sourceId: number; speaking: boolean }> }

describe('rooms', () => {
  it('lists occupied rooms with their live terminals and agents, per workspace', async () => {
    const w = t.workspace()
    const other = t.workspace('other')
    for (const [id, room] of [['a', 'lobby'], ['b', 'lobby'], ['c', 'hall'], ['idle', 'attic']]) {
      expect((await w.api.post('/clients', { clientId: id, room })).status).toBe(201)
    }
    await other.api.post('/clients', { clientId: 'a', room: 'lobby' })
    await t.connect(w.workspaceId, 'a', 'websocket')
    await t.connect(w.workspaceId, 'b', 'mqtt')
    await t.connect(w.workspaceId, 'c')
    t.engine.host.terminals.joinRoom(w.workspaceId, 'hall', agent('agent-1'))

    const list = await w.api.get<{ rooms: Room[]; nextCursor: string | null }>('/rooms')
    expect(list.status).toBe(200)
    expect(list.body.nextCursor).toBeNull()
    expect(list.body.rooms.map((r) => [r.room, r.participants.map((p) => [p.id, p.kind, p.transport])])).toEqual([
      ['hall', [['c', 'terminal', 'test'], ['agent-1', 'agent', null]]],
      ['lobby', [['a', 'terminal', 'websocket'], ['b', 'terminal', 'mqtt']]],
    ])
    const lobby = await w.api.get<Room>('/rooms/lobby')
    expect(lobby.status).toBe(200)
    expect(lobby.body.participants[0]).toMatchObject({ id: 'a', sourceId: 1, transport: 'websocket' })
    expect(Date.parse(lobby.body.participants[0]!.connectedAt!)).toBeGreaterThan(0)
    expect((await w.api.get<Room>('/rooms/hall')).body.participants[1]).toMatchObject({ id: 'agent-1', connectedAt: null })

    // A mapped room nobody is in, and another workspace's rooms, show no one.
    expect((await w.api.get('/rooms/attic')).body).toEqual({ room: 'attic', participants: [], agents: [], defaultAgent: null })
    expect((await other.api.get('/rooms')).body).toEqual({ rooms: [], nextCursor: null })
    expect((await other.api.get('/rooms/lobby')).body).toEqual({ room: 'lobby', participants: [], agents: [], defaultAgent: null })
  })

  it('follows a PATCH that moves a live client, and a disconnect', async () => {
    const w = t.workspace('movers')
    await w.api.post('/clients', { clientId: 'm', room: 'r1' })
    const { link, session } = await t.connect(w.workspaceId, 'm')
    expect((await w.api.get<{ rooms: Room[] }>('/rooms')).body.rooms.map((r) => r.room)).toEqual(['r1'])
    expect((await w.api.patch('/clients/m', { room: 'r2' })).status).toBe(200)
    await link.event('room.changed')
    expect((await w.api.get<{ rooms: Room[] }>('/rooms')).body.rooms.map((r) => r.room)).toEqual(['r2'])
    session.end()
    expect((await w.api.get('/rooms')).body).toEqual({ rooms: [], nextCursor: null })
  })

  it('one owner: room listings, the client detail (presence) and usage see every change the same way, at once', async () => {
    const w = t.workspace('owner')
    await w.api.post('/clients', { clientId: 'm', room: 'r1' })
    await w.api.post('/clients', { clientId: 'o', room: 'r1' })
    const { storage } = t.engine.host
    /** Every view of where `m` is, read right after a change, with nothing awaited in between. */
    const views = async () => {
      const rooms = (await w.api.get<{ rooms: Room[] }>('/rooms')).body.rooms
      const detail = (await w.api.get<{ online: boolean; connection: { room: string | null } | null }>('/clients/m')).body
      return {
        listed: Object.fromEntries(rooms.map((r) => [r.room, r.participants.map((p) => p.id)])),
        detail: detail.online ? detail.connection!.room : 'offline',
        metered: storage.usage.openSessions(w.workspaceId).map((u) => u.clientId).sort(),
      }
    }
    await t.connect(w.workspaceId, 'o')
    const first = await t.connect(w.workspaceId, 'm')
    expect(await views()).toEqual({ listed: { r1: ['o', 'm'] }, detail: 'r1', metered: ['m', 'o'] })

    // A room switch: the PATCH applies it before it answers; every view shows it at once.
    await w.api.patch('/clients/m', { room: 'r2' })
    expect(await views()).toEqual({ listed: { r1: ['o'], r2: ['m'] }, detail: 'r2', metered: ['m', 'o'] })
    await w.api.patch('/clients/m', { room: null })
    expect(await views()).toEqual({ listed: { r1: ['o'] }, detail: null, metered: ['m', 'o'] })
    await w.api.patch('/clients/m', { room: 'r1' })
    expect(await views()).toEqual({ listed: { r1: ['o', 'm'] }, detail: 'r1', metered: ['m', 'o'] })

    // A newer session replaces the older: one member, one online session, one metered session.
    const second = await t.connect(w.workspaceId, 'm')
    expect((await first.link.closed)._tag).toBe('SessionReplaced')
    expect(await views()).toEqual({ listed: { r1: ['o', 'm'] }, detail: 'r1', metered: ['m', 'o'] })
    expect(t.engine.host.presence.get(w.workspaceId, 'm')?.sessionId).toBe(second.session.sessionId)
    expect(storage.usage.openSessions(w.workspaceId).find((u) => u.clientId === 'm')?.sessionId).toBe(second.session.sessionId)

    second.session.end()
    expect(await views()).toEqual({ listed: { r1: ['o'] }, detail: 'offline', metered: ['o'] })
  })

  it('pages through rooms with limit and cursor', async () => {
    const w = t.workspace('pager')
    for (const i of [1, 2, 3]) {
      await w.api.post('/clients', { clientId: `p${i}`, room: `room-${i}` })
      await t.connect(w.workspaceId, `p${i}`)
    }
    const first = await w.api.get<{ rooms: Room[]; nextCursor: string | null }>('/rooms?limit=2')
    expect(first.body.rooms.map((r) => r.room)).toEqual(['room-1', 'room-2'])
    const second = await w.api.get<{ rooms: Room[]; nextCursor: string | null }>(`/rooms?limit=2&cursor=${first.body.nextCursor}`)
    expect(second.body).toMatchObject({ rooms: [{ room: 'room-3' }], nextCursor: null })
  })

  it.each([
    ['/rooms?limit=0', 'validation_failed'],
    ['/rooms?limit=201', 'validation_failed'],
    ['/rooms?cursor=%21%21', 'validation_failed'],
    [`/rooms?cursor=${Buffer.from('-bad').toString('base64url')}`, 'validation_failed'],
    ['/rooms?sort=name', 'validation_failed'],
    ['/rooms/-not-a-room', 'validation_failed'],
  ])('refuses %s with 400', async (path, code) => {
    const w = t.workspace('bad')
    const res = await w.api.get(path)
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe(code)
  })

  it('needs an API key', async () => {
    expect((await t.anonymous.get('/rooms')).status).toBe(401)
    expect((await t.anonymous.get('/rooms/lobby')).status).toBe(401)
  })
})

describe('a room read mid-spurt', () => {
  it('shows a participant already talking as speaking (the room actor’s record), and silent once its spurt ended', async () => {
    // The speaking sweep runs and measures on the engine clock: here it moves only when the test advances it.
    const clock = new ManualClock(Date.now())
    const m = await startRestEngine({}, { clock })
    try {
      const w = m.workspace('talkers')
      for (const id of ['a', 'b']) await w.api.post('/clients', { clientId: id, room: 'talk' })
      const a = await m.connect(w.workspaceId, 'a')
      const b = await m.connect(w.workspaceId, 'b')
      const speakingOf = async () => {
        const one = (await w.api.get<Room>('/rooms/talk')).body.participants.map((p) => [p.id, p.speaking])
        const listed = (await w.api.get<{ rooms: Room[] }>('/rooms')).body.rooms[0]!.participants.map((p) => [p.id, p.speaking])
        expect(listed).toEqual(one)
        return one
      }
      expect(await speakingOf()).toEqual([['a', false], ['b', false]])
      // Two voiced frames, stamped long ago on the room's time line (the engine clock's monotonic time): the first sweep ends the spurt.
      const t0 = clock.monotonic() - 10_000
      a.session.pushAudio(uplink([1], 0x80 | 30), t0)
      a.session.pushAudio(uplink([1], 0x80 | 30), t0 + 20)
      await b.link.event('speaking.started')
      expect(await speakingOf()).toEqual([['a', true], ['b', false]])
      clock.advance(100)
      await b.link.event('speaking.stopped')
      expect(await speakingOf()).toEqual([['a', false], ['b', false]])
    } finally {
      await m.stop()
    }
  })
})
