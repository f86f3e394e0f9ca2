/**
 * The workspace actor: the boundary every room lives in. It spawns a room actor per occupied
 * room (created on the first join, stopped when empty) and routes join/leave requests to them;
 * the sessions' client actors (core/terminals.ts owns them) send those requests here. Rooms of
 * different workspaces never meet: the same room name in two workspaces is two actors under two
 * parents.
 */
import { assertEvent, assign, setup, stopChild, type ActorRefFrom } from 'xstate'
import { RoomRouter } from '../dataplane/roomRouter.js'
import type { ServerEvent } from '../events.js'
import { roomMachine, type RoomMember } from './room.js'

export type RoomRef = ActorRefFrom<typeof roomMachine>

export type WorkspaceEvent =
  | { type: 'JOIN_ROOM'; room: string; member: RoomMember }
  | { type: 'LEAVE_ROOM'; room: string; member: RoomMember }
  | { type: 'BROADCAST_ROOM'; room: string; event: ServerEvent }
  | { type: 'ROOM_EMPTY'; room: string }
  | { type: 'ROOM_OCCUPIED'; room: string }

export interface WorkspaceInput {
  readonly workspaceId: string
  readonly now: () => number
  /** Told when a room actor is created or stopped (metrics, room listings, default agents). */
  readonly roomLifecycle?: (room: string, state: 'opened' | 'closed', ref: RoomRef) => void
}

interface WorkspaceContext {
  readonly workspaceId: string
  readonly now: () => number
  readonly rooms: ReadonlyMap<string, RoomRef>
  readonly roomLifecycle?: WorkspaceInput['roomLifecycle']
}

export const workspaceMachine = setup({
  types: {
    context: {} as WorkspaceContext,
    events: {} as WorkspaceEvent,
    input: {} as WorkspaceInput,
  },
  actors: { room: roomMachine },
  actions: {
    openRoomIfNeeded: assign(({ context, event, spawn, self }) => {
      assertEvent(event, 'JOIN_ROOM')
      if (context.rooms.has(event.room)) return {}
      let ref: RoomRef | undefined
      const router = new RoomRouter({
        speakingStarted: (port) => ref?.send({ type: 'SPEAKING_STARTED', sourceId: port.sourceId }),
      })
      const spawned: RoomRef = spawn('room', {
        id: `room:${event.room}`,
        input: {
          workspaceId: context.workspaceId,
          room: event.room,
          router,
          now: context.now,
          notify: (e) => self.send(e),
        },
      })
      ref = spawned
      context.roomLifecycle?.(event.room, 'opened', spawned)
      return { rooms: new Map(context.rooms).set(event.room, spawned) }
    }),
    // Plain actions that send directly. A request can arrive while another actor's action runs
    // (a room reporting itself empty, an agent joining); enqueueActions would then build
    // sendTo/assign objects inside that action, which xstate's development build reports.
    join: ({ context, event }) => {
      assertEvent(event, 'JOIN_ROOM')
      context.rooms.get(event.room)!.send({ type: 'JOIN', member: event.member })
    },
    leave: ({ context, event }) => {
      assertEvent(event, 'LEAVE_ROOM')
      context.rooms.get(event.room)?.send({ type: 'LEAVE', member: event.member })
    },
    broadcast: ({ context, event }) => {
      assertEvent(event, 'BROADCAST_ROOM')
      context.rooms.get(event.room)?.send({ type: 'BROADCAST', event: event.event })
    },
    closeRoom: ({ context, event }) => {
      assertEvent(event, 'ROOM_EMPTY')
      const ref = context.rooms.get(event.room)!
      context.roomLifecycle?.(event.room, 'closed', ref)
      ref.getSnapshot().context.router.dispose()
    },
    stopRoom: stopChild(({ context, event }) => {
      assertEvent(event, 'ROOM_EMPTY')
      return context.rooms.get(event.room)!
    }),
    forgetRoom: assign(({ context, event }) => {
      assertEvent(event, 'ROOM_EMPTY')
      const rooms = new Map(context.rooms)
      rooms.delete(event.room)
      return { rooms }
    }),
  },
  guards: {
    // A join may have arrived between the room emptying and this event: then it stays.
    roomStillEmpty: ({ context, event }) => {
      assertEvent(event, 'ROOM_EMPTY')
      return context.rooms.get(event.room)?.getSnapshot().matches('empty') === true
    },
  },
}).createMachine({
  id: 'workspace',
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    now: input.now,
    rooms: new Map(),
    roomLifecycle: input.roomLifecycle,
  }),
  initial: 'active',
  states: {
    active: {
      on: {
        JOIN_ROOM: { actions: ['openRoomIfNeeded', 'join'] },
        LEAVE_ROOM: { actions: 'leave' },
        BROADCAST_ROOM: { actions: 'broadcast' },
        ROOM_EMPTY: { guard: 'roomStillEmpty', actions: ['closeRoom', 'stopRoom', 'forgetRoom'] },
        ROOM_OCCUPIED: {},
      },
    },
  },
})
