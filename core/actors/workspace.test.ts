import * as HashMap from 'effect/HashMap'
import { describe, expect, it, vi } from 'vitest'
import { createActor } from 'xstate'
import { ManualClock } from '../clock.js'
import type { SourcePort } from '../dataplane/roomRouter.js'
import { ProtocolError } from '../errors.js'
import type { ServerEvent } from '../events.js'
import { Session } from '../session.js'
import { RecordingLink, terminalIdentity, uplink } from '../test/helpers.js'
import type { RoomMember } from './room.js'
import { roomOf, stopWorkspace, workspaceMachine, type ClientRef, type RemoteMembers, type WorkspaceAnnouncement } from './workspace.js'

const T0 = Date.parse('2026-11-20T12:00:00Z')

const member = (id: string) => {
  const m = {
    id, kind: 'agent' as const, name: null,
    rooms: [] as string[], events: [] as ServerEvent[], port: null as SourcePort | null,
    deliver() {}, sendEvent(e: ServerEvent) { m.events.push(e) },
    joined(room: string, port: SourcePort) { m.rooms.push(room); m.port = port },
  }
  return m satisfies RoomMember
}

/** A workspace actor on a manual clock, recording everything it emits. */
const start = (workspaceId = 'ws_1', remoteMembers?: RemoteMembers) => {
  const clock = new ManualClock(T0)
  const emitted: string[] = []
  /** Every announcement as it came. */
  const announced: WorkspaceAnnouncement[] = []
  const record = (e: WorkspaceAnnouncement) => {
    announced.push(e)
    if (e.type === 'session.opened' || e.type === 'session.ended') emitted.push(`${e.type} ${e.session.clientId}`)
    else if (e.type === 'session.moved') emitted.push(`${e.type} ${e.session.clientId} ${e.from}->${e.to}`)
    else if (e.type === 'room.occupancy') emitted.push(`${e.type} ${e.room}=${e.terminals}`)
    else emitted.push(`${e.type} ${e.room}`)
  }
  // Its own announcements, and its rooms' through the listener it subscribes to each room it opens.
  const ws = createActor(workspaceMachine, { clock, input: { workspaceId, clock, roomListener: record, remoteMembers } })
  ws.on('*', record)
  ws.start()
  const open = (clientId: string, room: string | null, options: { jti?: string; expiresAt?: number | null; devicePassword?: boolean } = {}) => {
    const identity = terminalIdentity(clientId, {
      workspaceId,
      room,
      credential: options.devicePassword ? { kind: 'devicePassword' } : { kind: 'token', jti: options.jti ?? `j_${clientId}`, expiresAt: null },
    })
    const link = new RecordingLink()
    const session = new Session(identity, link, clock, 'forward')
    ws.send({ type: 'SESSION_OPEN', session, room, expiresAt: options.expiresAt ?? null })
    return { session, link }
  }
  const rooms = () => [...HashMap.keys(ws.getSnapshot().context.rooms)].sort()
  const sessions = () => [...HashMap.keys(ws.getSnapshot().context.sessions)].sort()
  return { clock, ws, emitted, announced, open, rooms, sessions }
}

describe('workspace actor', () => {
  it('admits a session into its mapped room, announces it, and ends it: open, room opened and closed', () => {
    const w = start()
    const a = w.open('a', 'lobby')
    expect(a.link.events.items[0]).toMatchObject({ type: 'session', room: 'lobby', sourceId: 1 })
    expect(a.session.room).toBe('lobby')
    expect(w.rooms()).toEqual(['lobby'])
    expect(w.sessions()).toEqual(['a'])
    a.session.end()
    expect(w.sessions()).toEqual([])
    expect(w.rooms()).toEqual([])
    expect(w.emitted).toEqual(['session.opened a', 'room.occupancy lobby=1', 'room.occupancy lobby=0', 'session.ended a', 'room.closed lobby'])
    expect(w.ws.getSnapshot().value).toBe('open')
  })

  it('announces a session before the terminal hears its `session` event, so what listeners write about it is there first', () => {
    const w = start()
    // What the terminal had heard when each listener ran (usage metering and webhooks write here).
    const heardWhenAnnounced: number[] = []
    let link: RecordingLink | undefined
    w.ws.on('session.opened', () => heardWhenAnnounced.push(link?.events.items.length ?? -1))
    const placed = (clientId: string, room: string | null) => {
      const identity = terminalIdentity(clientId, { workspaceId: 'ws_1', room })
      link = new RecordingLink()
      const session = new Session(identity, link, w.clock, 'forward')
      w.ws.send({ type: 'SESSION_OPEN', session, room, expiresAt: null })
      return link
    }
    expect(placed('a', 'lobby').events.items[0]).toMatchObject({ type: 'session', room: 'lobby' })
    expect(placed('b', null).events.items[0]).toMatchObject({ type: 'session', room: null })
    // A newer session of `a` replacing the live one: announced before it is introduced, too.
    expect(placed('a', 'lobby').events.items[0]).toMatchObject({ type: 'session', room: 'lobby' })
    expect(heardWhenAnnounced).toEqual([0, 0, 0])
  })

  it('keeps a client without a mapping connected in no room, and moves live sessions on a mapping change', () => {
    const w = start()
    const a = w.open('a', null)
    const b = w.open('b', 'r1')
    expect(a.link.events.items[0]).toMatchObject({ type: 'session', room: null, sourceId: null })
    w.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'a', room: 'r1' })
    expect(a.link.events.items.at(-1)).toMatchObject({ type: 'room.changed', from: null, to: 'r1', participants: [{ id: 'b' }] })
    w.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'a', room: 'r1' }) // same room: nothing happens
    w.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'a', room: 'r2' })
    expect(a.link.events.items.at(-1)).toMatchObject({ type: 'room.changed', from: 'r1', to: 'r2', participants: [] })
    expect(b.link.events.items.at(-1)).toMatchObject({ type: 'participant.left', participant: { id: 'a' } })
    expect(w.rooms()).toEqual(['r1', 'r2'])
    w.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'a', room: null })
    expect(a.link.events.items.at(-1)).toMatchObject({ type: 'room.changed', from: 'r2', to: null })
    expect(a.session.room).toBe(null)
    expect(w.rooms()).toEqual(['r1'])
    // A change for a client with no live session is nobody's business.
    w.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'ghost', room: 'r9' })
    expect(w.rooms()).toEqual(['r1'])
    expect(a.link.events.items.filter((e) => e.type === 'room.changed')).toHaveLength(3)
    // Each move is announced once, from where the session was to where it went; a non-move is not.
    expect(w.emitted.filter((e) => e.startsWith('session.moved'))).toEqual([
      'session.moved a null->r1', 'session.moved a r1->r2', 'session.moved a r2->null',
    ])
  })

  it('says where a session was placed when it opened, and, when it ended, the room it was in and why', () => {
    const w = start()
    const ended = () => w.announced.flatMap((e) => (e.type === 'session.ended' ? [`${e.session.clientId} ${e.room} ${e.reason?._tag ?? 'gone'}`] : []))
    const gone = w.open('gone', 'lobby')
    const nowhere = w.open('nowhere', null)
    const deleted = w.open('deleted', 'lobby')
    const older = w.open('twice', 'r1')
    const expiring = w.open('expiring', 'r2', { expiresAt: T0 + 1000 })
    const faulty = w.open('faulty', 'lobby')
    expect(w.announced.flatMap((e) => (e.type === 'session.opened' ? [`${e.session.clientId} ${e.room}`] : []))).toEqual([
      'gone lobby', 'nowhere null', 'deleted lobby', 'twice r1', 'expiring r2', 'faulty lobby',
    ])
    gone.session.end()
    nowhere.session.end()
    w.ws.send({ type: 'CLIENT_DELETED', clientId: 'deleted' })
    w.open('twice', 'r1')
    w.clock.advance(1000)
    faulty.session.close(new ProtocolError({ message: 'bad frame' }))
    expect(older.link.closedWith?._tag).toBe('SessionReplaced')
    expect(expiring.link.closedWith?._tag).toBe('TokenExpired')
    expect(ended()).toEqual([
      'gone lobby gone',
      'nowhere null gone',
      'deleted lobby ClientDeleted',
      // It left r1 for its successor before it ended: the room it was in last.
      'twice r1 SessionReplaced',
      'expiring r2 TokenExpired',
      'faulty lobby ProtocolError',
    ])
  })

  it('lets a newer session of a client replace the older: one member, one session, both announced', () => {
    const w = start()
    const observer = w.open('o', 'lobby')
    const older = w.open('a', 'lobby')
    const newer = w.open('a', 'lobby')
    // The room sees the older leave, then the newer join.
    expect(observer.link.events.items.filter((e) => 'participant' in e).map((e) => e.type)).toEqual([
      'participant.joined', 'participant.left', 'participant.joined',
    ])
    expect(older.link.closedWith?._tag).toBe('SessionReplaced')
    expect(newer.session.room).toBe('lobby')
    expect(older.session.room).toBe(null)
    const members = [...HashMap.values(w.ws.getSnapshot().context.rooms)][0]!.getSnapshot().context.members
    expect([...members.values()].map((e) => e.member)).toEqual([observer.session, newer.session])
    expect(w.sessions()).toEqual(['a', 'o'])
    expect(w.emitted.filter((e) => e.startsWith('session.') && e.endsWith(' a'))).toEqual(['session.opened a', 'session.opened a', 'session.ended a'])
  })

  it('closes sessions on deletion, revoke-all, a device password reset and a token revocation, each for its credential', () => {
    const w = start()
    const del = w.open('del', 'lobby')
    const all = w.open('all', 'lobby')
    const dev = w.open('dev', 'lobby', { devicePassword: true })
    const tok = w.open('tok', 'lobby', { jti: 'jti-1' })
    w.ws.send({ type: 'CLIENT_TOKENS_REVOKED', clientId: 'dev' }) // a device password is no token
    w.ws.send({ type: 'DEVICE_PASSWORD_RESET', clientId: 'all' }) // and a token is no device password
    w.ws.send({ type: 'TOKEN_REVOKED', jti: 'another', clientId: 'tok' }) // another token of its client
    w.ws.send({ type: 'TOKEN_REVOKED', jti: 'another', clientId: null })
    w.ws.send({ type: 'TOKEN_REVOKED', jti: 'jti-1', clientId: 'all' }) // a change naming another client
    expect(w.sessions()).toEqual(['all', 'del', 'dev', 'tok'])
    w.ws.send({ type: 'CLIENT_DELETED', clientId: 'del' })
    w.ws.send({ type: 'CLIENT_TOKENS_REVOKED', clientId: 'all' })
    w.ws.send({ type: 'DEVICE_PASSWORD_RESET', clientId: 'dev' })
    w.ws.send({ type: 'TOKEN_REVOKED', jti: 'jti-1', clientId: 'tok' })
    expect([del, all, dev, tok].map((s) => s.link.closedWith?._tag)).toEqual([
      'ClientDeleted', 'TokenRevoked', 'DevicePasswordReset', 'TokenRevoked',
    ])
    expect(w.sessions()).toEqual([])
    expect(w.rooms()).toEqual([])
  })

  it('finds the session of a revoked token whose client the change does not name', () => {
    const w = start()
    const a = w.open('a', 'lobby', { jti: 'jti-a' })
    const b = w.open('b', 'lobby', { jti: 'jti-b' })
    w.ws.send({ type: 'TOKEN_REVOKED', jti: 'jti-b', clientId: null })
    expect([a, b].map((s) => s.link.closedWith?._tag)).toEqual([undefined, 'TokenRevoked'])
    expect(w.sessions()).toEqual(['a'])
  })

  it('closes a session when its credential expires, on the engine clock', () => {
    const w = start()
    const a = w.open('a', 'lobby', { expiresAt: T0 + 3_600_000 })
    w.clock.advance(3_600_000 - 1)
    expect(a.link.closedWith).toBeNull()
    w.clock.advance(1)
    expect(a.link.closedWith?._tag).toBe('TokenExpired')
    expect(w.sessions()).toEqual([])
    expect(w.clock.pendingTimers).toBe(0)
  })

  it('open --SHUTDOWN--> closing --(last session ended, last room closed)--> closed, refusing sessions meanwhile', () => {
    const w = start()
    const a = w.open('a', 'lobby')
    const bot = member('bot')
    w.ws.send({ type: 'JOIN_ROOM', room: 'lobby', member: bot })
    w.ws.send({ type: 'SHUTDOWN' })
    expect(a.link.closedWith?._tag).toBe('ServerShuttingDown')
    // An agent is still in its room: the workspace waits for it.
    expect(w.ws.getSnapshot().value).toBe('closing')
    const late = w.open('b', 'lobby')
    expect(late.link.closedWith?._tag).toBe('ServerShuttingDown')
    expect(late.link.events.items.map((e) => e.type)).toEqual(['session.closing'])
    w.ws.send({ type: 'JOIN_ROOM', room: 'other', member: member('late-bot') })
    expect(w.rooms()).toEqual(['lobby'])
    w.ws.send({ type: 'LEAVE_ROOM', room: 'lobby', member: bot })
    expect(w.ws.getSnapshot().value).toBe('closed')
    expect(w.ws.getSnapshot().status).toBe('done')
    expect(w.emitted.filter((e) => e.startsWith('session.'))).toEqual(['session.opened a', 'session.ended a'])
  })

  it('places agents too, keeps two workspaces apart, and holds rooms in its context, not as xstate children', () => {
    const w1 = start('ws_1')
    const w2 = start('ws_2')
    const a = member('same')
    const b = member('same')
    w1.ws.send({ type: 'JOIN_ROOM', room: 'lobby', member: a })
    w2.ws.send({ type: 'JOIN_ROOM', room: 'lobby', member: b })
    expect(a.events.filter((e) => e.type === 'participant.joined')).toEqual([])
    expect(a.port!.router).not.toBe(b.port!.router)
    w1.ws.send({ type: 'BROADCAST_ROOM', room: 'lobby', event: { type: 'pong', id: 'x', serverTime: 0 } })
    expect(a.events.at(-1)).toMatchObject({ type: 'pong' })
    expect(b.events).toEqual([])
    // Agents are members, not terminals: the room's terminal count stays 0.
    expect(w1.emitted).toEqual(['room.occupancy lobby=0'])
    expect(Object.keys(w1.ws.getSnapshot().children)).toEqual([])
    const rooms = [...HashMap.values(w1.ws.getSnapshot().context.rooms)]
    stopWorkspace(w1.ws)
    expect(rooms.map((r) => r.getSnapshot().value)).toEqual(['closed'])
    expect(w1.ws.getSnapshot().status).toBe('stopped')
  })

  it('keeps a room that empties and fills again within one step (a lone session replaced by a newer one)', () => {
    const w = start()
    w.open('a', 'lobby')
    const room = [...HashMap.values(w.ws.getSnapshot().context.rooms)][0]!
    // The older leaves (the room reports itself empty), the newer joins, then the report arrives.
    w.open('a', 'lobby')
    expect(w.rooms()).toEqual(['lobby'])
    expect([...HashMap.values(w.ws.getSnapshot().context.rooms)][0]).toBe(room)
    expect(room.getSnapshot().status).toBe('active')
    expect(w.emitted.filter((e) => e.startsWith('room.closed'))).toEqual([])
  })

  it('runs each session\'s client actor and each room in the workspace\'s actor system, not in a system of its own', () => {
    const w = start()
    w.open('a', 'lobby', { expiresAt: T0 + 60_000 })
    w.open('b', 'lobby', { expiresAt: T0 + 60_000 })
    w.open('c', 'other')
    const clients = [...HashMap.values(w.ws.getSnapshot().context.sessions)].flatMap((s) => (s.lifecycle ? [s.lifecycle as ClientRef] : []))
    expect(clients).toHaveLength(2)
    for (const client of clients) expect(client.system).toBe(w.ws.system)
    const rooms = [...HashMap.values(w.ws.getSnapshot().context.rooms)]
    expect(rooms).toHaveLength(2)
    for (const room of rooms) expect(room.system).toBe(w.ws.system)
    // Still not xstate children: nothing copies a map of them per spawn.
    expect(Object.keys(w.ws.getSnapshot().children)).toEqual([])
  })

  it('keeps no client actor for an idle session of a long-lived credential; its first close or end after idling still ends it once', () => {
    const w = start()
    const closed = w.open('closed', 'lobby')
    const gone = w.open('gone', 'lobby')
    const expiring = w.open('expiring', 'lobby', { expiresAt: T0 + 60_000 })
    const live = () => [...HashMap.values(w.ws.getSnapshot().context.sessions)]
    expect(live().map((s) => [s.clientId, s.lifecycle === null])).toEqual(
      expect.arrayContaining([['closed', true], ['gone', true], ['expiring', false]]),
    )
    // A day idle: nothing timed for the two, the expiring one's timer is the only one.
    expect(w.clock.pendingTimers).toBe(1)
    w.ws.send({ type: 'CLIENT_DELETED', clientId: 'closed' })
    expect(closed.link.closedWith?._tag).toBe('ClientDeleted')
    expect(closed.link.events.items.map((e) => e.type).at(-1)).toBe('session.closing')
    // The transport noticing its own close adds nothing.
    closed.session.end()
    gone.session.end()
    gone.session.end()
    expect(gone.link.closedWith).toBeNull()
    expect(w.sessions()).toEqual(['expiring'])
    expect(w.emitted.filter((e) => e.startsWith('session.ended'))).toEqual(['session.ended closed', 'session.ended gone'])
    expect(w.rooms()).toEqual(['lobby'])
    expiring.session.end()
    expect(w.sessions()).toEqual([])
    expect(w.rooms()).toEqual([])
    expect(w.clock.pendingTimers).toBe(0)
  })

  it('survives a transport whose close throws: the workspace stays open, the error surfaces as uncaught', async () => {
    const w = start()
    const a = w.open('a', 'lobby')
    const b = w.open('b', 'lobby')
    const broken = new Error('transport close failed')
    a.link.close = () => {
      throw broken
    }
    // The test runner's own handlers step aside while this one error is expected.
    const runners = process.listeners('uncaughtException')
    process.removeAllListeners('uncaughtException')
    const uncaught = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve))
    try {
      w.ws.send({ type: 'CLIENT_DELETED', clientId: 'a' })
      expect(await uncaught).toBe(broken)
    } finally {
      process.removeAllListeners('uncaughtException')
      for (const listener of runners) process.on('uncaughtException', listener)
    }
    expect(w.ws.getSnapshot().status).toBe('active')
    expect(w.sessions()).toEqual(['b'])
    w.ws.send({ type: 'CLIENT_DELETED', clientId: 'b' })
    expect(b.link.closedWith?._tag).toBe('ClientDeleted')
    expect(w.sessions()).toEqual([])
  })

  it("ends its rooms' talk spurts on the one clock they sweep on: a hangover after the last voiced frame, not before", () => {
    const w = start()
    const bot = member('bot')
    w.open('a', 'lobby')
    w.ws.send({ type: 'JOIN_ROOM', room: 'lobby', member: bot })
    const port = bot.port!
    // Stamped on the engine clock's monotonic time, as the system clock's frames are (performance.now()).
    for (let i = 0; i < 3; i++) port.router.forward(port, uplink([1], 0x80 | 30), w.clock.monotonic() + i * 20)
    const spurts = () => w.announced.filter((e) => e.type === 'room.speaking').map((e) => `${e.participantId} ${e.speaking}`)
    expect(spurts()).toEqual(['bot true'])
    w.clock.advance(400)
    expect(spurts()).toEqual(['bot true'])
    w.clock.advance(100)
    expect(spurts()).toEqual(['bot true', 'bot false'])
    stopWorkspace(w.ws)
  })

  it('builds no xstate action while another actor\'s action runs: no "Custom actions should not" warning through join, move, broadcast, speaking and leave', () => {
    // xstate's development build (what vitest loads) warns when an action object (sendTo, emit …)
    // is built while any actor's custom action runs (xstate issue #5343). A member that talks as
    // soon as it is placed, or when the room tells it something, makes its room handle
    // SPEAKING_STARTED in the middle of whatever delivered that: the workspace's own step, if the
    // workspace ran its rooms from custom actions.
    const warn = vi.spyOn(console, 'warn')
    try {
      const w = start()
      let t = 0
      const talk = (port: SourcePort) => {
        for (let i = 0; i < 3; i++) port.router.forward(port, uplink([1], 0x80 | 30), (t += 20))
      }
      const chatty = (id: string) => {
        const m = member(id)
        const joined = m.joined
        m.joined = (room: string, port: SourcePort) => (joined(room, port), talk(port))
        const sendEvent = m.sendEvent
        m.sendEvent = (e: ServerEvent) => (sendEvent(e), e.type === 'pong' && m.port ? talk(m.port) : undefined)
        return m
      }
      const a = w.open('a', 'lobby')
      const bot = chatty('bot')
      w.ws.send({ type: 'JOIN_ROOM', room: 'lobby', member: bot })
      w.ws.send({ type: 'BROADCAST_ROOM', room: 'lobby', event: { type: 'pong', id: 'x', serverTime: 0 } })
      w.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'a', room: 'hall' })
      w.ws.send({ type: 'JOIN_ROOM', room: 'hall', member: chatty('bot2') })
      w.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'a', room: null })
      w.open('a', 'lobby')
      w.clock.advance(5_000)
      w.ws.send({ type: 'LEAVE_ROOM', room: 'lobby', member: bot })
      w.ws.send({ type: 'SHUTDOWN' })
      // What happened happened as before: the member talked, everyone heard, rooms closed.
      expect(a.link.events.items.some((e) => e.type === 'speaking.started')).toBe(true)
      expect(w.announced.filter((e) => e.type === 'room.speaking').map((e) => `${e.room} ${e.participantId} ${e.speaking}`)).toEqual(
        expect.arrayContaining(['lobby bot true', 'lobby bot false', 'hall bot2 true']),
      )
      expect(warn.mock.calls.filter(([message]) => String(message).includes('Custom actions should not'))).toEqual([])
    } finally {
      warn.mockRestore()
    }
  })

  it('in a cluster, a room it opens takes in the members other nodes announced there first; what the node relays for a room reaches it as events', () => {
    const warn = vi.spyOn(console, 'warn')
    try {
      const asked: string[] = []
      // A member of another node relayed here (core/cluster/relayed.ts): heard, never sent audio.
      const far = Object.assign(member('far'), { listens: false as const })
      const w = start('ws_1', (workspaceId, room, joiningId) => {
        asked.push(`${workspaceId} ${room} ${joiningId}`)
        return room === 'lobby' ? [far] : []
      })
      const a = w.open('a', 'lobby')
      // The member opening the room is told the whole room: the other node's member joined first.
      expect(a.link.events.items[0]).toMatchObject({ type: 'session', room: 'lobby', sourceId: 2, participants: [{ id: 'far', sourceId: 1 }] })
      expect(far.rooms).toEqual(['lobby'])
      w.open('b', 'lobby') // the room is open: nothing to ask
      w.ws.send({ type: 'JOIN_ROOM', room: 'hall', member: Object.assign(member('far2'), { listens: false as const }) }) // a relayed member brings no others
      w.ws.send({ type: 'JOIN_ROOM', room: 'atrium', member: member('bot') })
      w.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'b', room: 'porch' })
      expect(asked).toEqual(['ws_1 lobby a', 'ws_1 atrium bot', 'ws_1 porch b'])

      // The other nodes with members in the room get its own frames (the room sets its router).
      const sent: number[] = []
      w.ws.send({ type: 'ROOM_REMOTES', room: 'lobby', remotes: [{ send: (sourceId) => sent.push(sourceId) }] })
      a.session.pushAudio(uplink([1, 2, 3]), 0)
      expect(sent).toEqual([2])

      // A session's change of audio mode reaches its room, which splits its receivers again.
      const lobby = () => roomOf(w.ws.getSnapshot().context, 'lobby')!.getSnapshot().context.router
      expect(lobby().hasMixer).toBe(false)
      a.session.setAudioMode('mixed')
      expect(lobby().hasMixer).toBe(true)
      expect(a.link.events.items.at(-1)).toEqual({ type: 'audio.mode', audioMode: 'mixed' })
      w.ws.send({ type: 'SHUTDOWN' })
      expect(warn.mock.calls.filter(([message]) => String(message).includes('Custom actions should not'))).toEqual([])
    } finally {
      warn.mockRestore()
    }
  })

  it('sees the same event types however many rooms and expiring sessions come and go (xstate caches transitions per event type for good)', () => {
    const clock = new ManualClock(T0)
    const types = new Set<string>()
    let ws: ReturnType<typeof createActor<typeof workspaceMachine>> | null = null
    ws = createActor(workspaceMachine, {
      clock,
      input: { workspaceId: 'ws_1', clock },
      inspect: (e) => {
        if (e.type === '@xstate.event' && e.actorRef === ws) types.add(e.event.type)
      },
    }).start()
    const cycle = (i: number) => {
      const identity = terminalIdentity(`c${i}`, { workspaceId: 'ws_1', room: `room-${i}` })
      const session = new Session(identity, new RecordingLink(), clock, 'forward')
      // Every other session's credential expires: it gets a client actor, which ends with it.
      ws!.send({ type: 'SESSION_OPEN', session, room: `room-${i}`, expiresAt: i % 2 === 0 ? T0 + 60_000 : null })
      session.end()
    }
    for (let i = 0; i < 4; i++) cycle(i)
    const seen = [...types].sort()
    for (let i = 4; i < 100; i++) cycle(i)
    expect([...types].sort()).toEqual(seen)
    expect(HashMap.size(ws.getSnapshot().context.rooms) + HashMap.size(ws.getSnapshot().context.sessions)).toBe(0)
    stopWorkspace(ws)
  })
})
