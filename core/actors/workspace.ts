/**
 * The workspace actor: the boundary every room lives in. It creates a room actor per occupied
 * room (on the first join, stopped when empty) and routes join/leave requests to them; the
 * sessions' client actors (core/terminals.ts owns them) send those requests here. Rooms of
 * different workspaces never meet: the same room name in two workspaces is two actors under two
 * workspaces.
 *
 * Room actors are not spawned as xstate children: xstate copies a parent's whole `children`
 * object on every spawn and stop, so with thousands of rooms a connect or disconnect storm cost
 * O(rooms²) (3000 rooms of 4: 2 s to join, 3 s to leave, all on the event loop). The workspace
 * keeps them in its own map instead, and `stopWorkspace` stops them with it.
 */
import { assertEvent, assign, createActor, setup, type ActorRefFrom } from 'xstate'
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
  /** The open rooms. Only this machine's actions change it (in place: see the header). */
  readonly rooms: Map<string, RoomRef>
  readonly roomLifecycle?: WorkspaceInput['roomLifecycle']
}

export const workspaceMachine = setup({
  types: {
    context: {} as WorkspaceContext,
    events: {} as WorkspaceEvent,
    input: {} as WorkspaceInput,
  },
  actions: {
    // An assign, not a plain action: xstate's development build reports actors created while a
    // plain action runs (the room machine's own initial assign would look like a misuse).
    openRoomIfNeeded: assign(({ context, event, self }) => {
      assertEvent(event, 'JOIN_ROOM')
      if (context.rooms.has(event.room)) return {}
      let ref: RoomRef | undefined
      const router = new RoomRouter({
        speakingStarted: (port) => ref?.send({ type: 'SPEAKING_STARTED', sourceId: port.sourceId }),
      })
      const room = createActor(roomMachine, {
        id: `room:${event.room}`,
        input: {
          workspaceId: context.workspaceId,
          room: event.room,
          router,
          now: context.now,
          notify: (e) => self.send(e),
        },
      })
      ref = room
      context.rooms.set(event.room, room)
      room.start()
      context.roomLifecycle?.(event.room, 'opened', room)
      return { rooms: context.rooms }
    }),
    // Requests go straight to the room. They can arrive while another actor's action runs (a
    // room reporting itself empty, an agent joining); enqueueActions would then build
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
      context.rooms.delete(event.room)
      ref.stop()
    },
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
        ROOM_EMPTY: { guard: 'roomStillEmpty', actions: 'closeRoom' },
        ROOM_OCCUPIED: {},
      },
    },
  },
})

/** Stop a workspace actor and the rooms it holds (they are not xstate children: see the header). */
export const stopWorkspace = (ref: ActorRefFrom<typeof workspaceMachine>): void => {
  const rooms = ref.getSnapshot().context.rooms
  for (const room of rooms.values()) {
    room.getSnapshot().context.router.dispose()
    room.stop()
  }
  rooms.clear()
  ref.stop()
}
