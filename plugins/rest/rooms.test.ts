import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoomMember } from '../../core/actors/room.js'
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

type Room = { room: string; participants: Array<{ id: string; kind: string; transport: string | null; connectedAt: string | null; sourceId: number }> }

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
