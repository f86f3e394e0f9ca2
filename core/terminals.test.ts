import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseDownlink } from './dataplane/frame.js'
import type { Engine } from './engine.js'
import { roomOf } from './actors/workspace.js'
import type { Session } from './session.js'
import type { Change } from './storage/changes.js'
import { RecordingLink, seedWorkspace, startTestEngine, uplink } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startTestEngine>>
let engine: Engine
let seed: ReturnType<typeof seedWorkspace>

const connect = async (clientId: string, link = new RecordingLink()) => {
  const { token } = await engine.host.security.tokens.issue(seed.workspaceId, clientId, null)
  const identity = await engine.host.security.authenticateTerminal({ token })
  const session = engine.host.terminals.open(identity, link)
  return { session, link, identity }
}

beforeEach(async () => {
  t = await startTestEngine()
  engine = t.engine
  seed = seedWorkspace(engine)
})
afterEach(() => t.stop())

describe('terminal hub', () => {
  it('sends session first, then routes audio between members of one room only', async () => {
    seed.addClient('a', 'lobby')
    seed.addClient('b', 'lobby')
    seed.addClient('c', 'other')
    const a = await connect('a')
    const b = await connect('b')
    const c = await connect('c')
    const first = await a.link.events.next()
    expect(first).toMatchObject({ type: 'session', protocol: 1, clientId: 'a', room: 'lobby', sourceId: 1, participants: [] })
    expect(await b.link.event('session')).toMatchObject({ room: 'lobby', participants: [{ id: 'a', sourceId: 1 }] })
    expect(await a.link.event('participant.joined')).toMatchObject({ participant: { id: 'b', kind: 'terminal' } })

    a.session.pushAudio(uplink([10, 20, 30]))
    const frame = parseDownlink(await b.link.frames.next())!
    expect(frame.sourceId).toBe(1)
    expect([...frame.opus]).toEqual([10, 20, 30])
    expect(a.link.frames.items).toHaveLength(0)
    expect(c.link.frames.items).toHaveLength(0)
    const { terminals } = engine.host
    expect(terminals.roomNames(seed.workspaceId).map((r) => [r, terminals.roomView(seed.workspaceId, r)!.participants.map((p) => p.id)])).toEqual([
      ['lobby', ['a', 'b']],
      ['other', ['c']],
    ])
  })

  it('keeps a client without a room connected and silent until it is mapped', async () => {
    seed.addClient('a', 'lobby')
    seed.addClient('lonely', null)
    const a = await connect('a')
    const lonely = await connect('lonely')
    expect(await lonely.link.event('session')).toMatchObject({ room: null, sourceId: null })
    lonely.session.pushAudio(uplink([1]))
    a.session.pushAudio(uplink([2]))
    expect(lonely.link.frames.items).toHaveLength(0)
    expect(a.link.frames.items).toHaveLength(0)
    seed.moveClient('lonely', 'lobby')
    expect(await lonely.link.event('room.changed')).toMatchObject({ from: null, to: 'lobby', participants: [{ id: 'a' }] })
    lonely.session.pushAudio(uplink([3]))
    expect([...parseDownlink(await a.link.frames.next())!.opus]).toEqual([3])
  })

  it('moves a live client on a mapping change: leaves (members told), joins (members told), audio follows', async () => {
    for (const [id, room] of [['mover', 'r1'], ['x', 'r1'], ['y', 'r2']] as const) seed.addClient(id, room)
    const mover = await connect('mover')
    const x = await connect('x')
    const y = await connect('y')
    await mover.link.event('session')
    seed.moveClient('mover', 'r2')
    expect(await mover.link.event('room.changed')).toMatchObject({ from: 'r1', to: 'r2', participants: [{ id: 'y' }] })
    expect(await x.link.event('participant.left')).toMatchObject({ room: 'r1', participant: { id: 'mover' } })
    expect(await y.link.event('participant.joined')).toMatchObject({ room: 'r2', participant: { id: 'mover' } })
    mover.session.pushAudio(uplink([42]))
    expect([...parseDownlink(await y.link.frames.next())!.opus]).toEqual([42])
    expect(x.link.frames.items).toHaveLength(0)
    expect(engine.host.presence.get(seed.workspaceId, 'mover')?.room).toBe('r2')
  })

  it('ignores a room move older than the last one applied (a node\'s poll reading another node\'s earlier write late)', async () => {
    seed.addClient('m', 'r1')
    const m = await connect('m')
    await m.link.event('session')
    const moves: Change[] = []
    const off = engine.host.storage.feed.on('client.updated', (c) => void moves.push(c))
    seed.moveClient('m', 'r2')
    expect(await m.link.event('room.changed', (e) => e.to === 'r2')).toMatchObject({ from: 'r1' })
    seed.moveClient('m', 'r3')
    expect(await m.link.event('room.changed', (e) => e.to === 'r3')).toMatchObject({ from: 'r2' })
    off()
    // The move to r2 arrives again, after the newer one: as another node's row read by the poll.
    engine.host.terminals.applyChange(moves[0]!)
    seed.moveClient('m', 'r4')
    // The next move the terminal hears is r3 -> r4: the stale r2 was never applied.
    expect(await m.link.event('room.changed', (e) => e.from === 'r3')).toMatchObject({ to: 'r4' })
    expect(engine.host.presence.get(seed.workspaceId, 'm')?.room).toBe('r4')
  })

  it('reads membership from the room actor alone: a change made there is what presence, listings and counts show', async () => {
    seed.addClient('a', 'lobby')
    seed.addClient('b', 'lobby')
    const a = await connect('a')
    await connect('b')
    const { terminals, presence } = engine.host
    const lobby = roomOf(terminals.context(seed.workspaceId)!, 'lobby')!
    expect(presence.get(seed.workspaceId, 'a')?.room).toBe('lobby')
    expect(terminals.terminalCount(seed.workspaceId, 'lobby')).toBe(2)
    // Straight to the room actor, past the workspace actor and the hub: nothing else hears of it.
    lobby.send({ type: 'LEAVE', member: a.session as Session })
    expect(presence.get(seed.workspaceId, 'a')?.room).toBeNull()
    expect(a.session.room).toBeNull()
    expect(terminals.roomView(seed.workspaceId, 'lobby')!.participants.map((p) => p.id)).toEqual(['b'])
    expect(terminals.terminalCount(seed.workspaceId, 'lobby')).toBe(1)
    // The session is still the client's live one (online, in no room).
    expect(presence.isOnline(seed.workspaceId, 'a')).toBe(true)
  })

  it('lets the newer session of a client win and closes the older with session_replaced', async () => {
    seed.addClient('a', 'lobby')
    seed.addClient('b', 'lobby')
    const older = await connect('a')
    const b = await connect('b')
    const newer = await connect('a')
    const reason = await older.link.closed
    expect(reason._tag).toBe('SessionReplaced')
    expect(await older.link.event('session.closing')).toMatchObject({ code: 'session_replaced' })
    older.session.end()
    await newer.link.event('session')
    newer.session.pushAudio(uplink([5]))
    const frames = await b.link.frames.next((f) => parseDownlink(f)!.opus[0] === 5)
    expect(parseDownlink(frames)!.opus[0]).toBe(5)
    expect(engine.host.presence.get(seed.workspaceId, 'a')?.sessionId).toBe(newer.session.sessionId)
    expect(engine.host.terminals.roomView(seed.workspaceId, 'lobby')!.participants.map((p) => p.id).sort()).toEqual(['a', 'b'])
  })

  it('closes live sessions on deletion, token revocation, revoke-all and device password reset', async () => {
    for (const id of ['del', 'rev', 'all', 'dev']) seed.addClient(id, 'lobby')
    const del = await connect('del')
    const rev = await connect('rev')
    const all = await connect('all')
    engine.host.security.devicePasswords.reset(seed.workspaceId, 'dev')
    const { password } = engine.host.security.devicePasswords.show(seed.workspaceId, 'dev')
    const devLink = new RecordingLink()
    engine.host.terminals.open(await engine.host.security.authenticateTerminal({ devicePassword: password }), devLink)

    const { storage } = engine.host
    seed.deleteClient('del')
    expect((await del.link.closed)._tag).toBe('ClientDeleted')
    engine.host.security.tokens.revoke(seed.workspaceId, rev.identity.credential.kind === 'token' ? rev.identity.credential.jti : '')
    expect((await rev.link.closed)._tag).toBe('TokenRevoked')
    storage.transaction(() => {
      storage.clients.revokeAllTokens(seed.workspaceId, 'all', Date.now())
      storage.feed.record({ kind: 'client.tokensRevoked', workspaceId: seed.workspaceId, subject: 'all', at: Date.now() })
    })
    expect((await all.link.closed)._tag).toBe('TokenRevoked')
    engine.host.security.devicePasswords.reset(seed.workspaceId, 'dev')
    expect((await devLink.closed)._tag).toBe('DevicePasswordReset')
    for (const id of ['del', 'rev', 'all', 'dev']) expect(engine.host.presence.isOnline(seed.workspaceId, id)).toBe(false)
  })

  it('says session.closing with server_shutting_down to everyone at stop', async () => {
    seed.addClient('a', 'lobby')
    const a = await connect('a')
    await a.link.event('session')
    await engine.stop()
    expect((await a.link.closed)._tag).toBe('ServerShuttingDown')
    expect(a.link.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: 'server_shutting_down' })
  })
})
