/**
 * The agent actor: one AI agent dispatched into a room. Starting and stopping are promises
 * supplied by the agent runtime (`agentMachine.provide({ actors: … })`), so the lifecycle here
 * stays provider-agnostic; a failure or a timeout ends in `failed` with the reason kept for the
 * room's agent.stopped event.
 *
 *   starting --done--> running --STOP--> stopping --done/timeout--> stopped
 *   starting --error/timeout--> failed ; running --FAILED--> failed
 */
import { assign, fromPromise, setup } from 'xstate'

export interface AgentInput {
  readonly agentId: string
  readonly room: string
  readonly identity: string
  readonly startTimeoutMs?: number
  readonly stopTimeoutMs?: number
}

export interface AgentActorContext {
  readonly agentId: string
  readonly room: string
  readonly identity: string
  readonly reason: string | null
  readonly startTimeoutMs: number
  readonly stopTimeoutMs: number
}

export type AgentEvent = { type: 'STOP'; reason?: string } | { type: 'FAILED'; reason: string }

const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e))

export const agentMachine = setup({
  types: {
    context: {} as AgentActorContext,
    events: {} as AgentEvent,
    input: {} as AgentInput,
  },
  actors: {
    /** Replaced by the runtime: connect the provider and join the room. */
    startAgent: fromPromise<void, AgentActorContext>(async () => {
      throw new Error('no agent runtime provided')
    }),
    /** Replaced by the runtime: leave the room and release the provider. */
    stopAgent: fromPromise<void, AgentActorContext>(async () => {}),
  },
  delays: {
    startTimeout: ({ context }) => context.startTimeoutMs,
    stopTimeout: ({ context }) => context.stopTimeoutMs,
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    agentId: input.agentId,
    room: input.room,
    identity: input.identity,
    reason: null,
    startTimeoutMs: input.startTimeoutMs ?? 15_000,
    stopTimeoutMs: input.stopTimeoutMs ?? 5_000,
  }),
  initial: 'starting',
  states: {
    starting: {
      invoke: {
        src: 'startAgent',
        input: ({ context }) => context,
        onDone: { target: 'running' },
        onError: { target: 'failed', actions: assign({ reason: ({ event }) => errorMessage(event.error) }) },
      },
      after: { startTimeout: { target: 'failed', actions: assign({ reason: 'start timed out' }) } },
      on: { STOP: { target: 'stopping', actions: assign({ reason: ({ event }) => event.reason ?? 'stopped' }) } },
    },
    running: {
      on: {
        STOP: { target: 'stopping', actions: assign({ reason: ({ event }) => event.reason ?? 'stopped' }) },
        FAILED: { target: 'failing', actions: assign({ reason: ({ event }) => event.reason }) },
      },
    },
    stopping: {
      invoke: { src: 'stopAgent', input: ({ context }) => context, onDone: 'stopped', onError: 'stopped' },
      after: { stopTimeout: 'stopped' },
    },
    /** A failure while running still releases the provider and the room before settling in failed. */
    failing: {
      invoke: { src: 'stopAgent', input: ({ context }) => context, onDone: 'failed', onError: 'failed' },
      after: { stopTimeout: 'failed' },
    },
    stopped: { type: 'final' },
    failed: { type: 'final' },
  },
})
