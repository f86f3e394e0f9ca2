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
 *   open --END--> closed                                the terminal went away
 *   closed: final; on entry the workspace hears SESSION_END
 *
 * Only an expiring session arms a timer: a connect storm of long-lived tokens schedules nothing.
 */
import { assertEvent, sendTo, setup, type ActorRef, type Snapshot } from 'xstate'
import { TokenExpired, type HarkError } from '../errors.js'
import type { Session } from '../session.js'

export type ClientEvent = { type: 'CLOSE'; reason: HarkError } | { type: 'END' }

/** What the client actor tells its workspace. */
export interface ClientEndedEvent {
  readonly type: 'SESSION_END'
  readonly session: Session
}

export interface ClientInput {
  readonly session: Session
  /** Where SESSION_END goes (the workspace actor). */
  readonly workspace: ActorRef<Snapshot<unknown>, ClientEndedEvent>
  /** Time left on the credential (ms); null when it never expires. */
  readonly expiresInMs: number | null
}

export type ClientContext = ClientInput

export const clientMachine = setup({
  types: {
    context: {} as ClientContext,
    events: {} as ClientEvent,
    input: {} as ClientInput,
  },
  actions: {
    close: ({ context, event }) => {
      assertEvent(event, 'CLOSE')
      context.session.close(event.reason)
    },
    expire: ({ context }) => context.session.close(new TokenExpired({ message: 'credential expired' })),
    // Delivered after this actor's step: the workspace may be the one that sent CLOSE.
    reportEnded: sendTo(({ context }) => context.workspace, ({ context }): ClientEndedEvent => ({ type: 'SESSION_END', session: context.session })),
  },
  guards: {
    expires: ({ context }) => context.expiresInMs !== null,
  },
  delays: {
    expiry: ({ context }) => context.expiresInMs!,
  },
}).createMachine({
  id: 'client',
  context: ({ input }) => ({ session: input.session, workspace: input.workspace, expiresInMs: input.expiresInMs }),
  initial: 'open',
  states: {
    open: {
      initial: 'admitted',
      on: {
        CLOSE: { target: 'closed', actions: 'close' },
        END: { target: 'closed' },
      },
      states: {
        admitted: { always: [{ guard: 'expires', target: 'expiring' }, { target: 'unbounded' }] },
        unbounded: {},
        expiring: { after: { expiry: { target: '#client.closed', actions: 'expire' } } },
      },
    },
    closed: { type: 'final', entry: 'reportEnded' },
  },
})
