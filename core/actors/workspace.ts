/**
 * The workspace actor: the one owner of a workspace's live control state — its rooms (a room
 * actor per occupied room, created on the first join, closed when it empties) and its sessions
 * (client id → session, and the token id index that revocation uses) — and beside each room its
 * room-agents actor (roomAgents.ts: which agents the room has and why, the roster they read),
 * created with the room or with the room's first agent, dropped once the room is closed and it
 * holds no agent. Opening a session,
 * ending it, a client's change of room, its deletion, a revocation, a device-password reset are
 * events to it; it places sessions in rooms by the stored mapping, and it announces what changed
 * with `emit` (`actor.on`): usage metering, metrics, room default agents, webhooks and listings
 * subscribe or read its snapshot. Who is in a room is the room actor's alone, and so is announcing it: each
 * room's `room.occupancy` goes to the listener the workspace was given for its rooms. In a cluster,
 * a room it opens first takes in the members other nodes announced there (`remoteMembers`), and
 * what the node relays for a room (its members elsewhere, where its frames go) comes as events.
 *
 *   open --SHUTDOWN--> closing --(no session, no room left)--> closed
 *   open:    every event; SESSION_OPEN admits (a newer session of a client closes the older)
 *   closing: sessions are being closed; SESSION_OPEN is refused, JOIN_ROOM ignored
 *   closed:  final
 *
 * Rooms and sessions live in this actor's context, not as xstate children: xstate copies a
 * parent's whole `children` object on every spawn and stop, which made a connect or disconnect
 * storm O(n²) (3000 rooms of 4: 2 s to join, 3 s to leave). The context holds them in immutable
 * HashMaps (effect), so every change is an `assign` that returns a new map in O(log n), and a
 * snapshot read by a listing is a value that no later event edits.
 *
 * A session gets a client actor (client.ts) only when something about it is timed: a credential
 * that expires. An idle session of a long-lived credential has none (2.4 KB less per terminal):
 * the workspace closes it straight (`endSession`, contained like the client actor's close) and the
 * session reports its own end (SESSION_END, once), as its client actor would.
 */
import * as HashMap from 'effect/HashMap'
import * as Option from 'effect/Option'
import { assertEvent, assign, createActor, createEmptyActor, emit, sendTo, setup, type ActorRefFrom, type AnyActorRef } from 'xstate'
import type { ClockShape } from '../clock.js'
import {
  ClientDeleted,
  DevicePasswordReset,
  ServerShuttingDown,
  SessionReplaced,
  TokenRevoked,
  type HarkError,
} from '../errors.js'
import type { ParticipantInfo } from '../events.js'
import type { Session } from '../session.js'
import { clientMachine, contained } from './client.js'
import { roomMachine, type RoomEmitted, type RoomHost, type RoomMember } from './room.js'
import {
  holdsNothing,
  ROOM_AGENTS_ACTOR_ID,
  startRoomAgents,
  type RoomAgentsRef,
  type RoomAgentsRuntime,
} from './roomAgents.js'

export type RoomRef = ActorRefFrom<typeof roomMachine>
export type ClientRef = ActorRefFrom<typeof clientMachine>

export type { WorkspaceEvent, RoomTotals, WorkspaceEmitted, WorkspaceAnnouncement } from './workspaceEvents.js'
import type { WorkspaceAnnouncement, WorkspaceEmitted, WorkspaceEvent, RoomTotals } from './workspaceEvents.js'

export interface WorkspaceInput {
  readonly workspaceId: string
  /** The engine's clock: the timers of this actor's rooms and clients run on it. */
  readonly clock: ClockShape
  /** Subscribed (`actor.on`) to what each room it opens announces. */
  readonly roomListener?: (event: RoomEmitted) => void
  /**
   * Cluster: the members other nodes announced in a room this actor opens for `joiningId`
   * (RemoteDirectory.openingRoom); none on a single node.
   */
  readonly remoteMembers?: RemoteMembers
  /** The agent runtime its room-agents actors start policy agents with; none: rooms get no policy agents. */
  readonly agents?: RoomAgentsRuntime
}

export type RemoteMembers = (workspaceId: string, room: string, joiningId: string) => ReadonlyArray<RoomMember>
const noRemoteMembers: RemoteMembers = () => []

export interface WorkspaceContext {
  readonly workspaceId: string
  readonly clock: ClockShape
  readonly roomListener: ((event: RoomEmitted) => void) | undefined
  readonly remoteMembers: RemoteMembers
  readonly agents: RoomAgentsRuntime | null
  readonly rooms: HashMap.HashMap<string, RoomRef>
  /**
   * Each room's room-agents actor: a room with agents (or with agents on their way in) has one,
   * and so has an open room a policy may want an agent in; other rooms have none.
   */
  readonly roomAgents: HashMap.HashMap<string, RoomAgentsRef>
  /**
   * clientId -> its live session (its client actor, if it has one, is `session.lifecycle`). A
   * revoked token is found through its client (TOKEN_REVOKED names it): no index by jti, which
   * cost every session a second HashMap entry (~125 B) and the paths it copied on every change.
   */
  readonly sessions: HashMap.HashMap<string, Session>
}

const lookup = <V>(map: HashMap.HashMap<string, V>, key: string): V | undefined => Option.getOrUndefined(HashMap.get(map, key))

/**
 * Close a session from the server side: through its client actor when it has one, else straight
 * (what the transport's close throws surfaces as an uncaught error, never in this actor).
 */
const endSession = (session: Session, reason: HarkError): void => {
  const client = session.lifecycle as ClientRef | null
  if (client !== null) client.send({ type: 'CLOSE', reason })
  else contained(() => session.close(reason))
}

const jtiOf = (session: Session): string | null =>
  session.identity.credential.kind === 'token' ? session.identity.credential.jti : null

const totalsOf = (room: RoomRef): RoomTotals => {
  const router = room.getSnapshot().context.router
  return {
    framesIn: router.framesIn,
    framesOut: router.framesOut,
    framesPublished: router.framesPublished,
    framesDecoded: router.mixStats.framesDecoded,
    framesEncoded: router.mixStats.framesEncoded,
  }
}

/**
 * The ids of the actors this one creates: the same for every room, room-agents and client actor. A
 * finished actor tells its parent `xstate.done.actor.<id>`, and xstate caches the transitions of
 * each event type it has seen on the machine's state nodes for the life of the process: an id per
 * room name or per session made that cache grow by an entry (~150 B) with every room and every
 * expiring session ever opened (issue 33). Nothing looks these actors up by id.
 */
export const ACTOR_IDS = { room: 'room', client: 'client', roomAgents: ROOM_AGENTS_ACTOR_ID } as const

/**
 * The room an event names, created when missing (only inside an assign: see openTargetRoom). Like
 * a client actor, it runs in this actor's system (`parent`), not a root with a system of its own
 * (its scheduler, registry and maps: ~1.5 KB per room); still not an xstate child (see above).
 * In a cluster the members other nodes announced in it join it at once, before `joining` (whose
 * join is sent after this step), so `joining` is told the whole room (spec/cluster.md, The member
 * list); a relayed member opening a room brings no others.
 */
const withRoom = (context: WorkspaceContext, room: string | null, host: RoomHost & AnyActorRef, joining: RoomMember | undefined) => {
  if (room === null) return {}
  const open = lookup(context.rooms, room)
  if (open !== undefined) return needsRoomAgents(context, room, joining) ? { roomAgents: withRoomAgents(context, room, host).roomAgents } : {}
  const { roomAgents, ref: agents } = needsRoomAgents(context, room, joining)
    ? withRoomAgents(context, room, host)
    : { roomAgents: context.roomAgents, ref: lookup(context.roomAgents, room) }
  const ref = createActor(roomMachine, {
    // One id for every room (see ACTOR_IDS), not one per room name.
    id: ACTOR_IDS.room,
    parent: host,
    clock: context.clock,
    input: { workspaceId: context.workspaceId, room, host, agents, clock: context.clock },
  })
  if (context.roomListener) ref.on('*', context.roomListener)
  ref.start()
  if (joining !== undefined && joining.listens !== false) {
    for (const member of context.remoteMembers(context.workspaceId, room, joining.id)) ref.send({ type: 'JOIN', member })
  }
  return { rooms: HashMap.set(context.rooms, room, ref), roomAgents }
}

/**
 * Whether `joining` makes the room need a room-agents actor it does not have yet: a policy may
 * want an agent there (RoomAgentPolicy.mayWant). A room without agents and without a policy that
 * cares has none: a join costs no actor, no roster and no policy (issue 34, the connect storm).
 */
const needsRoomAgents = (context: WorkspaceContext, room: string, joining: RoomMember | undefined): boolean =>
  joining !== undefined &&
  context.agents !== null &&
  !HashMap.has(context.roomAgents, room) &&
  context.agents.mayWant({ workspaceId: context.workspaceId, room, kind: joining.kind, transport: joining.transport })

/**
 * The room's room-agents actor, created when missing (only inside an assign, like a room). A room
 * already open is told of it (AGENTS) and hands it its roster at once.
 */
const withRoomAgents = (context: WorkspaceContext, room: string, host: RoomHost & AnyActorRef) => {
  const existing = lookup(context.roomAgents, room)
  if (existing) return { roomAgents: context.roomAgents, ref: existing }
  const ref = startRoomAgents({ workspaceId: context.workspaceId, room, runtime: context.agents, host, clock: context.clock }, context.clock)
  lookup(context.rooms, room)?.send({ type: 'AGENTS', agents: ref })
  return { roomAgents: HashMap.set(context.roomAgents, room, ref), ref }
}

/** The room's room-agents actor when it may go: its room is closed (or closing now) and it holds nothing. */
const idleRoomAgents = (context: WorkspaceContext, room: string): RoomAgentsRef | undefined => {
  const ref = lookup(context.roomAgents, room)
  return ref && holdsNothing(ref.getSnapshot().context) ? ref : undefined
}

/**
 * Where a request to a room that is not open goes: a started actor that ignores every event. A
 * `sendTo` whose target expression gave nothing would send to this actor itself, and one to an
 * actor never started would pile up in its mailbox. It holds no state, so every workspace may share it.
 */
const nowhere = createEmptyActor() as unknown as RoomRef // an empty actor takes a room's events and does nothing with them
nowhere.start()
const nowhereAgents = nowhere as unknown as RoomAgentsRef // the same: it takes room-agents events and does nothing

/** The room actor `room` names, or nowhere (none, or it is not open). */
const roomRef = (context: WorkspaceContext, room: string | null | undefined): RoomRef =>
  (room == null ? undefined : lookup(context.rooms, room)) ?? nowhere

/** `event` as the event of `type` it must be (as xstate's assertEvent, with the type narrowed for a generic `type`). */
const ofType = <T extends WorkspaceEvent['type']>(event: WorkspaceEvent, type: T): Extract<WorkspaceEvent, { type: T }> => {
  if (event.type !== type) throw new Error(`Expected event ${JSON.stringify(event)} to have type "${type}"`)
  return event as Extract<WorkspaceEvent, { type: T }>
}

/**
 * The session an event places and the room it is to be in: a new session by its client's
 * mapping, or a live one whose client's room changed (the transition's guard made sure it is live).
 */
const placing = (context: WorkspaceContext, event: WorkspaceEvent): { session: Session; to: string | null } => {
  assertEvent(event, ['SESSION_OPEN', 'CLIENT_ROOM_CHANGED'])
  if (event.type === 'SESSION_OPEN') return { session: event.session, to: event.room }
  return { session: lookup(context.sessions, event.clientId)!, to: event.room }
}

/** Why each client change closes a session, and which credential kind it concerns (null: any). */
const CLOSES = {
  CLIENT_DELETED: { credential: null, reason: () => new ClientDeleted({ message: 'client deleted' }) },
  CLIENT_TOKENS_REVOKED: { credential: 'token', reason: () => new TokenRevoked({ message: 'token revoked' }) },
  DEVICE_PASSWORD_RESET: { credential: 'devicePassword', reason: () => new DevicePasswordReset({ message: 'device password was reset' }) },
} as const

export const workspaceMachine = setup({
  types: {
    context: {} as WorkspaceContext,
    events: {} as WorkspaceEvent,
    input: {} as WorkspaceInput,
    emitted: {} as WorkspaceEmitted,
  },
  actions: {
    // Actors are created inside assigns, not plain actions: xstate's development build reports an
    // actor whose initial context is built while a plain action runs.
    openTargetRoom: assign(({ context, event, self }) => {
      assertEvent(event, ['SESSION_OPEN', 'CLIENT_ROOM_CHANGED', 'JOIN_ROOM'])
      const joining = event.type === 'SESSION_OPEN' ? event.session : event.type === 'JOIN_ROOM' ? event.member : lookup(context.sessions, event.clientId)
      return withRoom(context, event.room, self, joining)
    }),
    // The older session leaves before the newer joins (both sendTo, delivered in order after this
    // step): the room sees left, then joined.
    leavePrevious: sendTo(
      ({ context, event }) => {
        assertEvent(event, 'SESSION_OPEN')
        return roomRef(context, lookup(context.sessions, event.session.clientId)?.room)
      },
      ({ context, event }) => {
        assertEvent(event, 'SESSION_OPEN')
        return { type: 'LEAVE' as const, member: lookup(context.sessions, event.session.clientId) ?? event.session }
      },
    ),
    closePrevious: ({ context, event }) => {
      assertEvent(event, 'SESSION_OPEN')
      const session = lookup(context.sessions, event.session.clientId)
      if (session !== undefined) endSession(session, new SessionReplaced({ message: 'replaced by a newer session of the same client' }))
    },
    admit: assign(({ context, event, self }) => {
      assertEvent(event, 'SESSION_OPEN')
      const { session } = event
      if (event.expiresAt === null) session.admitted(self, null)
      else {
        // A child in this actor's system (client.ts), not a root with a system of its own.
        const client = createActor(clientMachine, {
          id: ACTOR_IDS.client,
          parent: self,
          clock: context.clock,
          input: { session, workspace: self, expiresInMs: event.expiresAt - context.clock.now() },
        })
        session.admitted(self, client)
        client.start()
      }
      return { sessions: HashMap.set(context.sessions, session.clientId, session) }
    }),
    // Placing a session (a new one by its client's mapping, a live one on a mapping change): it
    // leaves the room it is in and joins the one it is to be in, both sendTo (the rooms hear it
    // after this step, in this order), or is told it has none.
    leaveCurrent: sendTo(
      ({ context, event }) => roomRef(context, placing(context, event).session.room),
      ({ context, event }) => ({ type: 'LEAVE' as const, member: placing(context, event).session }),
    ),
    joinTarget: sendTo(
      ({ context, event }) => roomRef(context, placing(context, event).to),
      ({ context, event }) => ({ type: 'JOIN' as const, member: placing(context, event).session }),
    ),
    tellUnplaced: ({ context, event }) => {
      const { session, to } = placing(context, event)
      if (to === null) session.unassigned()
    },
    // A new session placed in no room hears its `session` event after this step, like one that
    // joins a room (whose room introduces it after the step): after `announceOpened`'s listeners.
    // A placed one sends `nowhere` instead: a declared sendTo, not enqueueActions (see `join` below).
    introduceUnplaced: sendTo(
      ({ event, self }) => {
        assertEvent(event, 'SESSION_OPEN')
        return event.room === null ? self : nowhere
      },
      ({ event }) => {
        assertEvent(event, 'SESSION_OPEN')
        return { type: 'INTRODUCE_UNPLACED' as const, session: event.session }
      },
    ),
    introduce: ({ event }) => {
      assertEvent(event, 'INTRODUCE_UNPLACED')
      event.session.introduceUnplaced()
    },
    refuse: ({ event }) => {
      assertEvent(event, 'SESSION_OPEN')
      event.session.close(new ServerShuttingDown({ message: 'server shutting down' }))
    },
    // Before the join (emit and sendTo act after the step, in order): what listeners write at once
    // about the session (its usage row) is committed before the room tells the terminal it is in (its
    // `session` event), so a reader that heard `session` finds it. (Webhook live events are queued
    // here and written with their batch, LIVE_BATCH_MS later.)
    announceOpened: emit(({ event }) => {
      assertEvent(event, 'SESSION_OPEN')
      return { type: 'session.opened' as const, session: event.session.info, room: event.room }
    }),
    leaveRoom: sendTo(
      ({ context, event }) => {
        assertEvent(event, 'SESSION_END')
        return roomRef(context, event.session.room)
      },
      ({ event }) => {
        assertEvent(event, 'SESSION_END')
        return { type: 'LEAVE' as const, member: event.session }
      },
    ),
    dropSession: assign(({ context, event }) => {
      assertEvent(event, 'SESSION_END')
      const { session } = event
      const current = lookup(context.sessions, session.clientId)
      // A replaced session ends after its successor was admitted: the successor stays.
      if (current !== session) return {}
      return { sessions: HashMap.remove(context.sessions, session.clientId) }
    }),
    announceEnded: emit(({ event }) => {
      assertEvent(event, 'SESSION_END')
      return { type: 'session.ended' as const, session: event.session.info, room: event.session.lastRoom, reason: event.reason }
    }),
    // Resolved before the session is moved (emit and sendTo act after the step, in order): `from` is where the session still is.
    announceMoved: emit(({ context, event }) => {
      assertEvent(event, 'CLIENT_ROOM_CHANGED')
      const session = lookup(context.sessions, event.clientId)!
      return { type: 'session.moved' as const, session: session.info, from: session.room, to: event.room }
    }),
    closeClient: ({ context, event }) => {
      assertEvent(event, ['CLIENT_DELETED', 'CLIENT_TOKENS_REVOKED', 'DEVICE_PASSWORD_RESET'])
      const session = lookup(context.sessions, event.clientId)
      if (session === undefined) return
      const rule = CLOSES[event.type]
      if (rule.credential !== null && session.identity.credential.kind !== rule.credential) return
      endSession(session, rule.reason())
    },
    revokeToken: ({ context, event }) => {
      assertEvent(event, 'TOKEN_REVOKED')
      const { jti, clientId } = event
      // The token's client when the change knows it (it always does for a token Hark issued), else any session of that jti.
      const session =
        clientId !== null ? lookup(context.sessions, clientId) : HashMap.reduce(context.sessions, undefined as Session | undefined, (found, s) => found ?? (jtiOf(s) === jti ? s : undefined))
      if (session !== undefined && jtiOf(session) === jti) endSession(session, new TokenRevoked({ message: 'token revoked' }))
    },
    closeAllSessions: ({ context, event }) => {
      assertEvent(event, 'SHUTDOWN')
      const reason = event.reason ?? new ServerShuttingDown({ message: 'server shutting down' })
      for (const session of HashMap.values(context.sessions)) endSession(session, reason)
    },
    // Requests to a room are sendTo actions declared here, once, never built while the machine
    // runs (enqueueActions would): a request can arrive while another actor's custom action
    // runs (a room reporting a change, an agent joining), and xstate's development build warns
    // about an action object built then (xstate issue #5343). sendTo also delivers after this
    // step, so the room never runs inside one of this actor's actions.
    join: sendTo(
      ({ context, event }) => {
        assertEvent(event, 'JOIN_ROOM')
        return roomRef(context, event.room)
      },
      ({ event }) => {
        assertEvent(event, 'JOIN_ROOM')
        return { type: 'JOIN' as const, member: event.member }
      },
    ),
    leave: sendTo(
      ({ context, event }) => {
        assertEvent(event, 'LEAVE_ROOM')
        return roomRef(context, event.room)
      },
      ({ event }) => {
        assertEvent(event, 'LEAVE_ROOM')
        return { type: 'LEAVE' as const, member: event.member }
      },
    ),
    // Events that name a room, handed on to its room actor.
    broadcast: sendTo(({ context, event }) => roomRef(context, ofType(event, 'BROADCAST_ROOM').room), ({ event }) => ({ type: 'BROADCAST' as const, event: ofType(event, 'BROADCAST_ROOM').event })),
    splitAudioModes: sendTo(({ context, event }) => {
      assertEvent(event, 'AUDIO_MODE')
      return roomRef(context, event.session.room)
    }, { type: 'AUDIO_MODE' as const }),
    setRemotes: sendTo(({ context, event }) => roomRef(context, ofType(event, 'ROOM_REMOTES').room), ({ event }) => ({ type: 'REMOTES' as const, remotes: ofType(event, 'ROOM_REMOTES').remotes })),
    setRecording: sendTo(({ context, event }) => roomRef(context, ofType(event, 'ROOM_RECORDING').room), ({ event }) => ({ type: 'RECORDING' as const, recording: ofType(event, 'ROOM_RECORDING').recording })),
    announceRoomClosed: emit(({ context, event }) => {
      assertEvent(event, 'ROOM_EMPTY')
      const ref = lookup(context.rooms, event.room)!
      return { type: 'room.closed' as const, workspaceId: context.workspaceId, room: event.room, totals: totalsOf(ref) }
    }),
    closeRoom: sendTo(({ context, event }) => {
      assertEvent(event, 'ROOM_EMPTY')
      return roomRef(context, event.room)
    }, { type: 'CLOSE' as const }),
    dropRoom: assign(({ context, event }) => {
      assertEvent(event, 'ROOM_EMPTY')
      return { rooms: HashMap.remove(context.rooms, event.room) }
    }),
    openRoomAgents: assign(({ context, event, self }) => {
      assertEvent(event, 'ROOM_AGENTS')
      const open = event.open === true || (event.open === 'whenRoomOpen' && HashMap.has(context.rooms, event.room))
      return open ? { roomAgents: withRoomAgents(context, event.room, self).roomAgents } : {}
    }),
    toRoomAgents: sendTo(
      ({ context, event }) => {
        assertEvent(event, 'ROOM_AGENTS')
        return lookup(context.roomAgents, event.room) ?? nowhereAgents
      },
      ({ event }) => {
        assertEvent(event, 'ROOM_AGENTS')
        return event.event
      },
    ),
    // A closed room's room-agents actor goes with it, unless it still has agents (then when it has none).
    closeIdleRoomAgents: sendTo(({ context, event }) => {
      assertEvent(event, ['ROOM_EMPTY', 'ROOM_AGENTS_IDLE'])
      return idleRoomAgents(context, event.room) ?? nowhereAgents
    }, { type: 'CLOSE' as const }),
    dropIdleRoomAgents: assign(({ context, event }) => {
      assertEvent(event, ['ROOM_EMPTY', 'ROOM_AGENTS_IDLE'])
      return idleRoomAgents(context, event.room) ? { roomAgents: HashMap.remove(context.roomAgents, event.room) } : {}
    }),
  },
  guards: {
    // A join may have come in between the room emptying and this event: then it stays.
    roomStillEmpty: ({ context, event }) => {
      assertEvent(event, 'ROOM_EMPTY')
      return lookup(context.rooms, event.room)?.getSnapshot().matches('empty') === true
    },
    // The client has a live session and its new room is not the one the session is in.
    movesLiveSession: ({ context, event }) => {
      assertEvent(event, 'CLIENT_ROOM_CHANGED')
      const session = lookup(context.sessions, event.clientId)
      return session !== undefined && session.room !== event.room
    },
    replacesLiveSession: ({ context, event }) => {
      assertEvent(event, 'SESSION_OPEN')
      return HashMap.has(context.sessions, event.session.clientId)
    },
    drained: ({ context }) => HashMap.isEmpty(context.sessions) && HashMap.isEmpty(context.rooms),
    // Its room is closed: the room-agents actor may go (if it holds nothing).
    roomClosed: ({ context, event }) => {
      assertEvent(event, 'ROOM_AGENTS_IDLE')
      return !HashMap.has(context.rooms, event.room)
    },
  },
}).createMachine({
  id: 'workspace',
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    clock: input.clock,
    roomListener: input.roomListener,
    remoteMembers: input.remoteMembers ?? noRemoteMembers,
    agents: input.agents ?? null,
    rooms: HashMap.empty(),
    roomAgents: HashMap.empty(),
    sessions: HashMap.empty(),
  }),
  initial: 'open',
  // In every state: sessions end, members leave, empty rooms close.
  on: {
    SESSION_END: { actions: ['leaveRoom', 'dropSession', 'announceEnded'] },
    LEAVE_ROOM: { actions: 'leave' },
    BROADCAST_ROOM: { actions: 'broadcast' },
    AUDIO_MODE: { actions: 'splitAudioModes' },
    ROOM_REMOTES: { actions: 'setRemotes' },
    ROOM_RECORDING: { actions: 'setRecording' },
    ROOM_EMPTY: { guard: 'roomStillEmpty', actions: ['announceRoomClosed', 'closeRoom', 'dropRoom', 'closeIdleRoomAgents', 'dropIdleRoomAgents'] },
    ROOM_AGENTS: { actions: ['openRoomAgents', 'toRoomAgents'] },
    ROOM_AGENTS_IDLE: { guard: 'roomClosed', actions: ['closeIdleRoomAgents', 'dropIdleRoomAgents'] },
    INTRODUCE_UNPLACED: { actions: 'introduce' },
  },
  states: {
    open: {
      on: {
        // A new session is in no room yet (nothing to leave); only one that replaces a live session
        // of its client has a predecessor to take out first.
        SESSION_OPEN: [
          {
            guard: 'replacesLiveSession',
            actions: ['leavePrevious', 'closePrevious', 'admit', 'announceOpened', 'openTargetRoom', 'joinTarget', 'introduceUnplaced'],
          },
          { actions: ['admit', 'announceOpened', 'openTargetRoom', 'joinTarget', 'introduceUnplaced'] },
        ],
        CLIENT_ROOM_CHANGED: {
          guard: 'movesLiveSession',
          actions: ['openTargetRoom', 'announceMoved', 'leaveCurrent', 'joinTarget', 'tellUnplaced'],
        },
        CLIENT_DELETED: { actions: 'closeClient' },
        CLIENT_TOKENS_REVOKED: { actions: 'closeClient' },
        DEVICE_PASSWORD_RESET: { actions: 'closeClient' },
        TOKEN_REVOKED: { actions: 'revokeToken' },
        JOIN_ROOM: { actions: ['openTargetRoom', 'join'] },
        SHUTDOWN: { target: 'closing', actions: 'closeAllSessions' },
      },
    },
    closing: {
      always: { guard: 'drained', target: 'closed' },
      on: {
        SESSION_OPEN: { actions: 'refuse' },
      },
    },
    closed: { type: 'final' },
  },
})

/** Where what every workspace actor and its rooms emit can be heard (the terminal hub fans it out). */
export interface WorkspaceEvents {
  on<T extends WorkspaceAnnouncement['type']>(type: T, listener: (event: Extract<WorkspaceAnnouncement, { type: T }>) => void): () => void
}

/** Where the workspace actors' contexts are found (the terminal hub). */
export interface WorkspaceContexts {
  context(workspaceId: string): WorkspaceContext | undefined
  contexts(): Iterable<WorkspaceContext>
}

// ---- Reads of a snapshot (listings, presence, default agents): the context is a value ----

/** The room actor of `room`, if it is open. */
export const roomOf = (context: WorkspaceContext, room: string): RoomRef | undefined => lookup(context.rooms, room)

/** The room-agents actor of `room`, if it has one (its room is open, or agents are on their way). */
export const roomAgentsOf = (context: WorkspaceContext, room: string): RoomAgentsRef | undefined => lookup(context.roomAgents, room)

/** The live session of a client, if any. */
export const liveSession = (context: WorkspaceContext, clientId: string): Session | undefined => lookup(context.sessions, clientId)

/** A live view of a room for listings. */
export interface RoomView {
  readonly room: string
  /** `speaking`: the room actor's own record (its talk spurt is on), so a view opened mid-spurt shows it. */
  readonly participants: ReadonlyArray<ParticipantInfo & { readonly transport: string | null; readonly speaking: boolean }>
}

/** Who is in a room now, in the order they joined (null: nobody, the room is not open). */
export const roomView = (context: WorkspaceContext, room: string): RoomView | null => {
  const ref = lookup(context.rooms, room)
  if (!ref) return null
  // Members relayed from other nodes (core/cluster) are listed by the node they are on.
  const { members: all, speaking } = ref.getSnapshot().context
  const members = [...all.values()].filter(({ member }) => member.listens !== false)
  const participants = members.map(({ info, member }) => ({
    ...info,
    transport: member.kind === 'terminal' ? (liveSession(context, member.id)?.link.transport ?? null) : null,
    speaking: speaking.has(member.id),
  }))
  return { room, participants }
}

/** Every live session of the workspace. */
export const liveSessions = (context: WorkspaceContext): Session[] => [...HashMap.values(context.sessions)]

/** Stop a workspace actor at once, and the rooms and client actors it holds (not xstate children). */
export const stopWorkspace = (ref: ActorRefFrom<typeof workspaceMachine>): void => {
  const { rooms, sessions, roomAgents } = ref.getSnapshot().context
  for (const session of HashMap.values(sessions)) session.lifecycle?.stop()
  for (const room of HashMap.values(rooms)) room.send({ type: 'CLOSE' })
  for (const agents of HashMap.values(roomAgents)) agents.send({ type: 'CLOSE' })
  ref.stop()
}
