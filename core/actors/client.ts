/**
 * The client actor: one live session of a client, from its admission to its end. The workspace
 * actor creates it when it admits the session and keeps it under the client id (a newer session
 * of the same client closes it). It holds what is timed about a session — a credential that
 * expires closes it at that instant, on the engine's clock — and tells the workspace when the
 * session is over, however it ended, exactly once. Placement in rooms is the workspace actor's
 * business, membership the room actor's: this actor keeps neither.
 *
 *   open.admitted --> open.unbounded | open.expiring    by whether the credential expires
 *   open.expiring --after expiry--> closed              the credential expired: closed as TokenExpired
 *   open --CLOSE(reason)--> closed                      the server ends it (revocation, deletion, a newer session, shutdown)
 *   open --END(reason)--> closed                        the session ended by itself: the terminal went away (reason
 *                                                       null) or its transport closed it (a protocol error, a keepalive)
 *   closed: final; on entry the workspace hears SESSION_END, with why it ended
 *
 * Only an expiring session arms a timer, and only an expiring session has this actor at all: the
 * workspace admits a session of a long-lived credential without one (workspace.ts), so a connect
 * storm of long-lived tokens schedules nothing and an idle terminal costs no actor (~2.4 KB).
 *
 * The workspace creates it with itself as `parent`, so it lives in the workspace's actor system
 * (one scheduler, one registry) instead of a system of its own: 1.8 KB less per session. A child
 * whose action throws would put its parent in error, so its actions never throw: what a
 * transport's close throws is reported as an uncaught error, as xstate does for a root actor.
 */
import { assertEvent, assign, sendTo, setup, type ActorRef, type Snapshot } from 'xstate'
import { TokenExpired, type HarkError } from '../errors.js'
import type { Session } from '../session.js'

export type ClientEvent = { type: 'CLOSE'; reason: HarkError } | { type: 'END'; reason: HarkError | null }

/** What the client actor tells its workspace. */
export interface ClientEndedEvent {
  readonly type: 'SESSION_END'
  readonly session: Session
  /** Why the session ended: the error it was closed with, null when the terminal went away. */
  readonly reason: HarkError | null
}

export interface ClientInput {
  readonly session: Session
  /** Where SESSION_END goes (the workspace actor). */
  readonly workspace: ActorRef<Snapshot<unknown>, ClientEndedEvent>
  /** Time left on the credential (ms); null when it never expires. */
  readonly expiresInMs: number | null
}

export interface ClientContext extends ClientInput {
  /** Why the session ended (set on the way to closed); null while open, or when the terminal went away. */
  readonly endedWith: HarkError | null
}

/** Run `fn`; what it throws surfaces as an uncaught error later, never in the parent actor. */
export const contained = (fn: () => void): void => {
  try {
    fn()
  } catch (error) {
    queueMicrotask(() => {
      throw error
    })
  }
}

export const clientMachine = setup({
  types: {
    context: {} as ClientContext,
    events: {} as ClientEvent,
    input: {} as ClientInput,
  },
  actions: {
    recordClose: assign(({ event }) => {
      assertEvent(event, 'CLOSE')
      return { endedWith: event.reason }
    }),
    recordEnd: assign(({ event }) => {
      assertEvent(event, 'END')
      return { endedWith: event.reason }
    }),
    recordExpiry: assign({ endedWith: () => new TokenExpired({ message: 'credential expired' }) }),
    closeSession: ({ context }) => contained(() => context.session.close(context.endedWith!)),
    // Delivered after this actor's step: the workspace may be the one that sent CLOSE.
    reportEnded: sendTo(
      ({ context }) => context.workspace,
      ({ context }): ClientEndedEvent => ({ type: 'SESSION_END', session: context.session, reason: context.endedWith }),
    ),
  },
  guards: {
    expires: ({ context }) => context.expiresInMs !== null,
  },
  delays: {
    expiry: ({ context }) => context.expiresInMs!,
  },
}).createMachine({
  id: 'client',
  context: ({ input }) => ({ session: input.session, workspace: input.workspace, expiresInMs: input.expiresInMs, endedWith: null }),
  initial: 'open',
  states: {
    open: {
      initial: 'admitted',
      on: {
        CLOSE: { target: 'closed', actions: ['recordClose', 'closeSession'] },
        END: { target: 'closed', actions: 'recordEnd' },
      },
      states: {
        admitted: { always: [{ guard: 'expires', target: 'expiring' }, { target: 'unbounded' }] },
        unbounded: {},
        expiring: { after: { expiry: { target: '#client.closed', actions: ['recordExpiry', 'closeSession'] } } },
      },
    },
    closed: { type: 'final', entry: 'reportEnded' },
  },
})
