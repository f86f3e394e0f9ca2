/**
 * The room-agents actor: one per room, beside its room actor in its workspace actor
 * (workspace.ts). It owns which agents the room has and why — dispatched by a back end, the
 * room's default agent, a device's auto agent —, stops the agents a policy started once the
 * room's last terminal has been gone for the policy's stop delay (a terminal back in time keeps
 * them), and holds the room's roster: the one participant list the room's agents read (the room
 * actor builds it on every join and leave and hands it here; terminals carry their client id as
 * participant id, and their transport).
 *
 * Policies say which agents a room should have (agentRuntime/defaultAgents.ts, the xiaozhi
 * transport's auto agent); the agent runtime (`RoomAgentsRuntime`) starts what they want and
 * registers every agent it starts here (AGENT_ADDED), whoever asked. A policy is consulted when
 * the room's terminals change and when it says its inputs changed (POLICY_CHANGED), only on the
 * node that runs the room's agents (in a cluster: the room's owner), and gets at most one agent
 * per occupancy cycle: one that failed or was stopped is started again only when the room empties
 * and fills anew, or when what the policy wants changes.
 *
 * Everything that reaches out of this actor — starting and stopping agents — runs after its step
 * (a microtask), so an agent never starts or stops inside an actor's step; stop timers run on the
 * engine clock.
 *
 *   open --CLOSE--> closed (final: stop timers cleared)
 */
import { assertEvent, assign, createActor, createEmptyActor, sendTo, setup, type ActorRef, type ActorRefFrom, type AnyActorRef, type Snapshot } from 'xstate'
import type { ClockShape, Timer } from '../clock.js'
import { EMPTY_ROSTER, type RoomRoster, type RoomRosterEvent } from './room.js'

/** Why an agent is in a room: a back end dispatched it, or a policy wanted it. */
export type AgentReason = 'dispatched' | 'default' | 'auto'

/** What starting an agent asks for: a preset (none: the platform default provider) and config overrides. */
export interface AgentRequest {
  readonly presetId?: string | null
  readonly overrides?: Readonly<Record<string, unknown>> | null
}

export type RoomAgentState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed'

/** An agent as this actor holds it (the agent runtime's LiveAgent). */
export interface RoomAgentHandle {
  readonly agentId: string
  readonly identity: string
  readonly state: RoomAgentState
  stop(reason: string): Promise<void>
}

export interface RoomAgentEntry {
  readonly agent: RoomAgentHandle
  readonly reason: AgentReason
  /** The policy that wanted it; null for a dispatched agent. */
  readonly policy: string | null
  /** How long it stays after the room's last terminal left; null: until stopped (a dispatched agent). */
  readonly stopDelayMs: number | null
}

/** A room as a policy sees it. */
export interface RoomAgentsView {
  readonly workspaceId: string
  readonly room: string
  readonly roster: RoomRoster
  readonly terminals: number
  /** The room's agents that start or run. */
  readonly agents: ReadonlyArray<RoomAgentEntry>
  /** Policies whose agent is being started (not registered yet). */
  readonly launching: ReadonlyArray<string>
}

/** What a policy wants in a room. */
export interface PolicyWant {
  /** What it wants, as a key: a want with another key replaces the agent the policy started. */
  readonly key: string
  readonly request: AgentRequest
  /** How long its agent stays after the room's last terminal left. */
  readonly stopDelayMs: number
}

export interface RoomAgentPolicy {
  /** Unique among the policies; names the policy in logs. */
  readonly name: string
  readonly reason: Exclude<AgentReason, 'dispatched'>
  /** Why its agent leaves when what it wants changed (what the room hears in agent.stopped). */
  readonly replacedReason: string
  /** What it wants in this room now; null: nothing. Called on the control plane; keep it quick. */
  want(room: RoomAgentsView): PolicyWant | null
  /**
   * Whether it may want an agent in a room that this member joins; false: the room needs no
   * room-agents actor for it, and a join costs it nothing. Called on every join into a room that
   * has none; keep it O(1), no storage read. Not given: it may, always (the room gets its actor).
   */
  mayWant?(joining: PolicyJoin): boolean
}

/** A member joining a room, as `RoomAgentPolicy.mayWant` sees it. */
export interface PolicyJoin {
  readonly workspaceId: string
  readonly room: string
  readonly kind: 'terminal' | 'agent'
  /** A terminal's transport's name (a relayed member's as its node said); none for an agent. */
  readonly transport?: string | null
}

/** A policy's agent to start. */
export interface PolicyLaunch extends PolicyWant {
  readonly workspaceId: string
  readonly room: string
  readonly policy: string
  readonly reason: Exclude<AgentReason, 'dispatched'>
}

/** What the agent runtime gives the room-agents actors. */
export interface RoomAgentsRuntime {
  /** The policies in force, consulted in this order. */
  policies(): ReadonlyArray<RoomAgentPolicy>
  /** Whether a policy may want an agent in the room this member joins (`RoomAgentPolicy.mayWant`): the room then gets its room-agents actor. */
  mayWant(joining: PolicyJoin): boolean
  /** Whether this node runs the room's policy agents (in a cluster: it owns the room). */
  runsPolicies(workspaceId: string, room: string): boolean
  /** Start it, registering it first (AGENT_ADDED); false when it cannot be started (the runtime logs why). */
  launch(launch: PolicyLaunch): boolean
}

export type RoomAgentsEvent =
  | RoomRosterEvent
  /** The runtime registered an agent of this room (`key`: the want it was started for, for a policy's). */
  | { type: 'AGENT_ADDED'; entry: RoomAgentEntry; key: string | null }
  /** The agent reached stopped or failed. */
  | { type: 'AGENT_ENDED'; agentId: string }
  /** What the policy wants may have changed (a room's settings were edited). */
  | { type: 'POLICY_CHANGED'; policy: string }
  /** This node gained or lost the room (a cluster's lease). */
  | { type: 'OWNERSHIP_CHANGED'; owned: boolean }
  /** Internal: a policy's agent could not be started. */
  | { type: 'LAUNCH_FAILED'; policy: string; key: string }
  /** Internal: an agent's stop delay ran out. */
  | { type: 'STOP_DUE'; agentId: string }
  | { type: 'CLOSE' }

/** What the actor tells its workspace: it holds nothing any more (no agent, nobody in the room). */
export interface RoomAgentsParentEvent {
  readonly type: 'ROOM_AGENTS_IDLE'
  readonly room: string
}

export type RoomAgentsHost = ActorRef<Snapshot<unknown>, RoomAgentsParentEvent>

interface Cycle {
  /** The want its agent was started for. */
  readonly key: string
  /** Its agent; null while it is being started, or when it could not be. */
  readonly agentId: string | null
  readonly launching: boolean
}

/** Stop timers per agent, on the engine clock (plain timers: the actor hears STOP_DUE). */
export class StopTimers {
  private readonly timers = new Map<string, Timer>()
  constructor(
    private readonly clock: Pick<ClockShape, 'setTimeout' | 'clearTimeout'>,
    private readonly due: (agentId: string) => void,
  ) {}

  arm(agentId: string, ms: number): void {
    if (this.timers.has(agentId)) return
    this.timers.set(agentId, this.clock.setTimeout(() => {
      this.timers.delete(agentId)
      this.due(agentId)
    }, ms))
  }

  cancel(agentId: string): void {
    this.clock.clearTimeout(this.timers.get(agentId))
    this.timers.delete(agentId)
  }

  cancelAll(): void {
    for (const timer of this.timers.values()) this.clock.clearTimeout(timer)
    this.timers.clear()
  }

  /** Agents whose stop delay runs now. */
  get armed(): ReadonlyArray<string> {
    return [...this.timers.keys()]
  }
}

/** What a step leaves to do once it is over. */
interface Effects {
  readonly launch: PolicyLaunch[]
  readonly stop: Array<{ agent: RoomAgentHandle; reason: string }>
  readonly arm: Array<{ agentId: string; ms: number }>
  readonly cancel: string[]
  cancelAll: boolean
}

const noEffects = (): Effects => ({ launch: [], stop: [], arm: [], cancel: [], cancelAll: false })

export interface RoomAgentsContext {
  readonly workspaceId: string
  readonly room: string
  /** Who is in the room (the room actor's, as of its last join or leave). */
  readonly roster: RoomRoster
  readonly terminals: number
  /** Every agent of the room until it ended, by agent id. */
  readonly agents: ReadonlyMap<string, RoomAgentEntry>
  /** What each policy started in this occupancy cycle, by policy name. */
  readonly cycles: ReadonlyMap<string, Cycle>
  readonly runtime: RoomAgentsRuntime | null
  readonly host: RoomAgentsHost | null
  readonly stops: StopTimers
  /** What the current step leaves to do (carried out at its end). */
  readonly effects: Effects
}

export interface RoomAgentsInput {
  readonly workspaceId: string
  readonly room: string
  readonly runtime?: RoomAgentsRuntime | null
  readonly host?: RoomAgentsHost
  /** The engine's clock (stop delays). */
  readonly clock: Pick<ClockShape, 'setTimeout' | 'clearTimeout'>
}

const isLive = (entry: RoomAgentEntry) => entry.agent.state === 'starting' || entry.agent.state === 'running'

/** The agents of a room that start or run, in the order they were added. */
export const liveAgents = (context: RoomAgentsContext): RoomAgentEntry[] => [...context.agents.values()].filter(isLive)

/** True when the actor holds nothing: no agent (not even one stopping), none being started, nobody in the room. */
export const holdsNothing = (context: RoomAgentsContext): boolean =>
  context.agents.size === 0 && context.roster.participants.length === 0 && ![...context.cycles.values()].some((c) => c.launching)

const viewOf = (context: RoomAgentsContext, cycles: ReadonlyMap<string, Cycle>): RoomAgentsView => ({
  workspaceId: context.workspaceId,
  room: context.room,
  roster: context.roster,
  terminals: context.terminals,
  agents: liveAgents(context),
  launching: [...cycles].filter(([, c]) => c.launching).map(([name]) => name),
})

/**
 * Ask the policies (`only`: that one) what they want, if the room has terminals and this node runs
 * its agents. `changed`: the policy's inputs changed, so a policy that had its agent this cycle is
 * asked again and its agent replaced when it wants something else.
 */
const consult = (context: RoomAgentsContext, effects: Effects, only: string | null, changed: boolean): Map<string, Cycle> => {
  const cycles = new Map(context.cycles)
  const { runtime } = context
  if (runtime === null || context.terminals === 0 || !runtime.runsPolicies(context.workspaceId, context.room)) return cycles
  for (const policy of runtime.policies()) {
    if (only !== null && policy.name !== only) continue
    const cycle = cycles.get(policy.name)
    if (cycle && !changed) continue
    let want: PolicyWant | null
    try {
      want = policy.want(viewOf(context, cycles))
    } catch {
      want = null // a policy that cannot tell wants nothing (the runtime's policies log their own faults)
    }
    if (cycle) {
      if (want !== null && want.key === cycle.key) continue
      const entry = cycle.agentId === null ? undefined : context.agents.get(cycle.agentId)
      if (entry && isLive(entry)) {
        effects.stop.push({ agent: entry.agent, reason: policy.replacedReason })
        effects.cancel.push(entry.agent.agentId)
      }
      cycles.delete(policy.name)
    }
    if (want === null) continue
    cycles.set(policy.name, { key: want.key, agentId: null, launching: true })
    effects.launch.push({ ...want, workspaceId: context.workspaceId, room: context.room, policy: policy.name, reason: policy.reason })
  }
  return cycles
}

/** The room has no terminal: each policy's agent gets its stop delay; a cycle whose agent is gone ends. */
const emptied = (context: RoomAgentsContext, cycles: Map<string, Cycle>, effects: Effects): Map<string, Cycle> => {
  for (const [name, cycle] of cycles) {
    if (cycle.launching) continue // armed once it is registered (AGENT_ADDED)
    const entry = cycle.agentId === null ? undefined : context.agents.get(cycle.agentId)
    if (entry && isLive(entry) && entry.stopDelayMs !== null) effects.arm.push({ agentId: entry.agent.agentId, ms: entry.stopDelayMs })
    else cycles.delete(name)
  }
  return cycles
}

/** The cycle that started this agent, if any. */
const cycleOf = (cycles: ReadonlyMap<string, Cycle>, agentId: string): string | undefined =>
  [...cycles].find(([, c]) => c.agentId === agentId)?.[0]

const nowhere = createEmptyActor() as unknown as RoomAgentsHost // takes any event, does nothing
nowhere.start()

export const roomAgentsMachine = setup({
  types: {
    context: {} as RoomAgentsContext,
    events: {} as RoomAgentsEvent,
    input: {} as RoomAgentsInput,
  },
  actions: {
    roster: assign(({ context, event }) => {
      assertEvent(event, 'ROSTER')
      const effects = noEffects()
      const next = { ...context, roster: event.roster, terminals: event.terminals }
      if (event.terminals > 0) {
        effects.cancelAll = true
        return { roster: event.roster, terminals: event.terminals, cycles: consult(next, effects, null, false), effects }
      }
      return { roster: event.roster, terminals: event.terminals, cycles: emptied(next, new Map(context.cycles), effects), effects }
    }),
    added: assign(({ context, event }) => {
      assertEvent(event, 'AGENT_ADDED')
      const effects = noEffects()
      const { entry, key } = event
      const agents = new Map(context.agents).set(entry.agent.agentId, entry)
      const cycles = new Map(context.cycles)
      if (entry.policy !== null) {
        const cycle = cycles.get(entry.policy)
        if (cycle?.launching && cycle.key === key) {
          cycles.set(entry.policy, { key: cycle.key, agentId: entry.agent.agentId, launching: false })
          // Everyone left while it was being started.
          if (context.terminals === 0 && entry.stopDelayMs !== null) effects.arm.push({ agentId: entry.agent.agentId, ms: entry.stopDelayMs })
        } else {
          // Wanted no more (the policy changed its mind, or this node lost the room, while it was being started).
          const policy = context.runtime?.policies().find((p) => p.name === entry.policy)
          effects.stop.push({ agent: entry.agent, reason: policy?.replacedReason ?? 'no longer wanted' })
        }
      }
      return { agents, cycles, effects }
    }),
    ended: assign(({ context, event }) => {
      assertEvent(event, 'AGENT_ENDED')
      const effects = noEffects()
      effects.cancel.push(event.agentId)
      const agents = new Map(context.agents)
      agents.delete(event.agentId)
      const cycles = new Map(context.cycles)
      const name = cycleOf(cycles, event.agentId)
      // In an occupied room the cycle stays (its agent is not started again); in an empty one it is over.
      if (name !== undefined && context.terminals === 0) cycles.delete(name)
      return { agents, cycles, effects }
    }),
    launchFailed: assign(({ context, event }) => {
      assertEvent(event, 'LAUNCH_FAILED')
      const cycle = context.cycles.get(event.policy)
      if (!cycle?.launching || cycle.key !== event.key) return { effects: noEffects() }
      const cycles = new Map(context.cycles)
      if (context.terminals === 0) cycles.delete(event.policy)
      else cycles.set(event.policy, { key: cycle.key, agentId: null, launching: false })
      return { cycles, effects: noEffects() }
    }),
    policyChanged: assign(({ context, event }) => {
      assertEvent(event, 'POLICY_CHANGED')
      const effects = noEffects()
      return { cycles: consult(context, effects, event.policy, true), effects }
    }),
    ownership: assign(({ context, event }) => {
      assertEvent(event, 'OWNERSHIP_CHANGED')
      const effects = noEffects()
      if (event.owned) return { cycles: consult(context, effects, null, false), effects }
      // Agents run on the room's owner: every agent here goes (none runs twice), and the policies start over there.
      for (const entry of liveAgents(context)) effects.stop.push({ agent: entry.agent, reason: 'room owner moved to another node' })
      effects.cancelAll = true
      return { cycles: new Map(), effects }
    }),
    stopDue: assign(({ context, event }) => {
      assertEvent(event, 'STOP_DUE')
      const effects = noEffects()
      const entry = context.agents.get(event.agentId)
      if (entry && isLive(entry)) effects.stop.push({ agent: entry.agent, reason: 'room empty' })
      const cycles = new Map(context.cycles)
      const name = cycleOf(cycles, event.agentId)
      if (name !== undefined) cycles.delete(name)
      return { cycles, effects }
    }),
    /** Carry out what the step left to do: timers now, starts and stops after the step. */
    carryOut: ({ context, self }) => {
      const { effects, stops, runtime } = context
      if (effects.cancelAll) stops.cancelAll()
      for (const agentId of effects.cancel) stops.cancel(agentId)
      for (const { agentId, ms } of effects.arm) stops.arm(agentId, ms)
      for (const { agent, reason } of effects.stop) queueMicrotask(() => void agent.stop(reason).catch(() => undefined))
      for (const launch of effects.launch) {
        queueMicrotask(() => {
          if (self.getSnapshot().status !== 'active') return
          const started = runtime !== null && runtime.launch(launch)
          if (!started && self.getSnapshot().status === 'active') self.send({ type: 'LAUNCH_FAILED', policy: launch.policy, key: launch.key })
        })
      }
    },
    // Delivered after this step: the workspace drops the actor when its room is closed too.
    reportIdle: sendTo(
      ({ context }) => (holdsNothing(context) && context.host !== null ? context.host : nowhere),
      ({ context }): RoomAgentsParentEvent => ({ type: 'ROOM_AGENTS_IDLE', room: context.room }),
    ),
    close: ({ context }) => context.stops.cancelAll(),
  },
}).createMachine({
  id: 'roomAgents',
  context: ({ input, self }) => ({
    workspaceId: input.workspaceId,
    room: input.room,
    roster: EMPTY_ROSTER,
    terminals: 0,
    agents: new Map(),
    cycles: new Map(),
    runtime: input.runtime ?? null,
    host: input.host ?? null,
    stops: new StopTimers(input.clock, (agentId) => self.send({ type: 'STOP_DUE', agentId })),
    effects: noEffects(),
  }),
  initial: 'open',
  states: {
    open: {
      on: {
        ROSTER: { actions: ['roster', 'carryOut', 'reportIdle'] },
        AGENT_ADDED: { actions: ['added', 'carryOut'] },
        AGENT_ENDED: { actions: ['ended', 'carryOut', 'reportIdle'] },
        LAUNCH_FAILED: { actions: ['launchFailed', 'reportIdle'] },
        POLICY_CHANGED: { actions: ['policyChanged', 'carryOut'] },
        OWNERSHIP_CHANGED: { actions: ['ownership', 'carryOut'] },
        STOP_DUE: { actions: ['stopDue', 'carryOut'] },
        CLOSE: { target: 'closed' },
      },
    },
    closed: { type: 'final', entry: 'close' },
  },
})

export type RoomAgentsRef = ActorRefFrom<typeof roomAgentsMachine>

/** The id of every room-agents actor: one for all, not one per room (workspace.ts, ACTOR_IDS). */
export const ROOM_AGENTS_ACTOR_ID = 'roomAgents'

/** Whether any of these policies may want an agent in the room `joining` enters. */
export const policiesMayWant = (policies: ReadonlyArray<RoomAgentPolicy>, joining: PolicyJoin): boolean =>
  policies.some((policy) => policy.mayWant === undefined || policy.mayWant(joining))

/** A room's room-agents actor, in its workspace actor's system (`parent`), started. */
export const startRoomAgents = (input: RoomAgentsInput & { host: RoomAgentsHost & AnyActorRef }, clock: ClockShape): RoomAgentsRef =>
  createActor(roomAgentsMachine, { id: ROOM_AGENTS_ACTOR_ID, parent: input.host, clock, input }).start()
