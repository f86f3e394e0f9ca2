/**
 * The client actor: one live terminal session and its place in the workspace. It follows the
 * client-to-room mapping: ASSIGN moves it (leave the old room, join the new one), CLOSE or END
 * takes it out for good. Its join/leave requests go to the workspace actor with `sendTo`, so they
 * are delivered after this actor's step, not from inside one of its actions. Client actors are
 * not xstate children of the workspace, because xstate copies a parent's whole children object
 * on every spawn and stop, which made connect and disconnect storms O(n²) in live sessions (see
 * core/terminals.ts).
 *
 *   unassigned <--ASSIGN--> inRoom ; both --CLOSE/END--> closed
 */
import { assertEvent, assign, sendTo, setup, type ActorRef, type Snapshot } from 'xstate'
import type { RoomMember } from './room.js'

export type ClientEvent =
  | { type: 'ASSIGN'; room: string | null }
  | { type: 'END' }

/** Requests the client actor makes of its workspace. */
export type ClientParentEvent =
  | { type: 'JOIN_ROOM'; room: string; member: RoomMember }
  | { type: 'LEAVE_ROOM'; room: string; member: RoomMember }

/** Whoever takes the client's join/leave requests (the workspace actor). */
export type ClientParentRef = ActorRef<Snapshot<unknown>, ClientParentEvent>

export interface ClientInput {
  readonly member: RoomMember
  /** Where join/leave requests go (the workspace actor). */
  readonly workspace: ClientParentRef
  /** The stored mapping at connect time. */
  readonly room: string | null
  /** Called when the client is mapped to no room (it stays connected, silent). */
  readonly unassigned: (from: string | null) => void
}

export interface ClientContext {
  readonly member: RoomMember
  readonly workspace: ClientParentRef
  readonly room: string | null
  readonly unassigned: (from: string | null) => void
}

export const clientMachine = setup({
  types: {
    context: {} as ClientContext,
    events: {} as ClientEvent,
    input: {} as ClientInput,
  },
  actions: {
    joinRoom: sendTo(
      ({ context }) => context.workspace,
      ({ context }): ClientParentEvent => ({ type: 'JOIN_ROOM', room: context.room!, member: context.member }),
    ),
    leaveRoom: sendTo(
      ({ context }) => context.workspace,
      ({ context }): ClientParentEvent => ({ type: 'LEAVE_ROOM', room: context.room!, member: context.member }),
    ),
    takeRoom: assign(({ event }) => {
      assertEvent(event, 'ASSIGN')
      return { room: event.room }
    }),
    tellUnassigned: ({ context }) => context.unassigned(context.room),
  },
  guards: {
    toNoRoom: ({ event }) => event.type === 'ASSIGN' && event.room === null,
    toSameRoom: ({ context, event }) => event.type === 'ASSIGN' && event.room === context.room,
    hasRoom: ({ context }) => context.room !== null,
  },
}).createMachine({
  id: 'client',
  context: ({ input }) => ({ member: input.member, workspace: input.workspace, room: input.room, unassigned: input.unassigned }),
  initial: 'connecting',
  states: {
    connecting: {
      always: [{ guard: 'hasRoom', target: 'inRoom', actions: 'joinRoom' }, { target: 'unassigned', actions: 'tellUnassigned' }],
    },
    unassigned: {
      on: {
        ASSIGN: [{ guard: 'toNoRoom' }, { target: 'inRoom', actions: ['takeRoom', 'joinRoom'] }],
        END: { target: 'closed' },
      },
    },
    inRoom: {
      on: {
        ASSIGN: [
          { guard: 'toSameRoom' },
          { guard: 'toNoRoom', target: 'unassigned', actions: ['leaveRoom', 'tellUnassigned', 'takeRoom'] },
          { target: 'inRoom', reenter: true, actions: ['leaveRoom', 'takeRoom', 'joinRoom'] },
        ],
        END: { target: 'closed', actions: 'leaveRoom' },
      },
    },
    closed: { type: 'final' },
  },
})
