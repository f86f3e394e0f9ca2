/**
 * One dispatched agent at run time: its lifecycle actor (core/actors/agent.ts) with the runtime's
 * start and stop supplied, the provider session, its room membership (AgentMember) and its voice
 * (AgentPlayout). Who else is in the room it reads from its room's room-agents actor
 * (core/actors/roomAgents.ts), the room's one roster. Whatever the provider does — throw, reject, hang, call `ctx.fail` — ends in the
 * actor's `failed` state with a public reason; the room hears `agent.stopped` with it, and only
 * this agent's resources are released.
 */
import { createActor, fromPromise, type ActorRefFrom } from 'xstate'
import { AgentFailure, type AgentContext, type AgentControl, type AgentProvider, type AgentSession } from '../agentProvider.js'
import { agentMachine, type AgentActorContext } from '../actors/agent.js'
import { EMPTY_ROSTER } from '../actors/room.js'
import type { RoomAgentsRef } from '../actors/roomAgents.js'
import type { ClockShape } from '../clock.js'
import type { Logger } from '../log.js'
import type { TerminalHub } from '../terminals.js'
import { ConversationRecorder } from '../transcripts/recorder.js'
import type { ConversationLog } from '../transcripts/writer.js'
import { AgentToolbox, NO_TOOL_SOURCES, TOOL_SOURCES_SPEC, type ToolSourcesSpec } from './agentToolbox.js'
import { inAgentScope } from './faultContainment.js'
import { ROOM_JOINED, type IsolatedSession } from './isolation/protocol.js'
import { AgentMember } from './member.js'
import { AgentPlayout } from './playout.js'
import { scrubbedError, scrubSecrets } from './redact.js'
import type { RecordingTracksSetting } from '../storage/recordings.js'

export type AgentState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed'

/** Why an agent was started: by a REST call, or as its room's default agent. */
export type AgentOrigin = 'api' | 'default'

/** The public record of an agent (REST detail and listings). */
export interface AgentView {
  readonly agentId: string
  readonly room: string
  readonly identity: string
  readonly name: string | null
  readonly provider: string
  readonly presetId: string | null
  readonly origin: AgentOrigin
  readonly state: AgentState
  /** Why it stopped or failed; null while it runs. */
  readonly reason: string | null
  /** Epoch milliseconds. */
  readonly startedAt: number
  readonly endedAt: number | null
}

export interface LiveAgentSpec {
  readonly agentId: string
  readonly workspaceId: string
  readonly room: string
  readonly identity: string
  readonly name: string | null
  readonly providerName: string
  readonly presetId: string | null
  readonly origin: AgentOrigin
  readonly config: unknown
  /** Its preset's recording tracks (the recordings service records the room while it is there); null: none. */
  readonly record: RecordingTracksSetting | null
  /** Server-side settings of the agent's tool sources (MCP server headers): never in a config or a view. */
  readonly toolSources?: ToolSourcesSpec
}

export interface LiveAgentDeps {
  readonly provider: AgentProvider
  readonly hub: TerminalHub
  readonly log: Logger
  readonly clock: ClockShape
  readonly leadMs: number
  readonly startTimeoutMs: number
  readonly stopTimeoutMs: number
  /** Told once, when the agent runs (has joined its room). */
  readonly running?: (agent: LiveAgent) => void
  /** Told once, when the agent reached stopped or failed. */
  readonly ended?: (agent: LiveAgent) => void
  /** A frame from a room member that its decoder refused. */
  readonly badPacket?: () => void
  /** The session reported a tool call (an `agent.event` of kind `tool_call`, as the room got it). */
  readonly toolCalled?: (agent: LiveAgent, event: Readonly<Record<string, unknown>>) => void
  /** Where its conversation is written (core/transcripts/), turn by turn. */
  readonly conversation?: ConversationLog
}

/** Largest `agent.event` payload relayed to the room (JSON characters). */
export const MAX_AGENT_EVENT_CHARS = 16_384

export class LiveAgent {
  private readonly actor: ActorRefFrom<typeof agentMachine>
  private readonly member: AgentMember
  readonly playout: AgentPlayout
  private readonly abort = new AbortController()
  private readonly log: Logger
  private readonly secrets: ReadonlyArray<string>
  private session: AgentSession | null = null
  private releasing: Promise<void> | null = null
  private failStart: ((e: AgentFailure) => void) | null = null
  private joinedRoom: (() => void) | null = null
  private readonly settled: Promise<void>
  private announcedRunning = false
  private pendingFailure: string | null = null
  /** Its room's room-agents actor, from the join on (it keeps the actor while it holds this agent). */
  private roomAgents: RoomAgentsRef | null = null
  readonly startedAt: number
  private endedAt: number | null = null
  /** `ctx.config`: the spec's, until a live update replaces it (agentControl.ts). */
  private liveConfig: unknown
  /** `ctx.tools`, made at its first read (an isolated provider's are made in its worker). */
  private tools: AgentToolbox | null = null
  /** Its conversation as turns, from what it emits and hears (null: not recorded). */
  private readonly recorder: ConversationRecorder | null

  constructor(
    readonly spec: LiveAgentSpec,
    private readonly deps: LiveAgentDeps,
  ) {
    this.startedAt = deps.clock.now()
    this.liveConfig = spec.config
    this.secrets = safeSecrets(deps.provider)
    this.log = deps.log.child({ agentId: spec.agentId, workspaceId: spec.workspaceId, room: spec.room, provider: spec.providerName })
    this.playout = new AgentPlayout(deps.leadMs)
    this.member = new AgentMember(spec.identity, spec.name, {
      failed: (e, where) => this.failed(e, `provider error (${where})`),
      joined: (_room, port) => {
        this.playout.attach((uplink) => port.router.forward(port, uplink, performance.now()))
        this.roomAgents = deps.hub.roomAgents(spec.workspaceId, spec.room) ?? null
        this.joinedRoom?.()
      },
      // After the room's step (the member hears its room in microtasks): the roster has the agent's room.
      inRoom: () => {
        const session = this.session as Partial<IsolatedSession> | null
        session?.[ROOM_JOINED]?.(this.member.participants())
      },
      roster: () => this.roomAgents?.getSnapshot().context.roster ?? EMPTY_ROSTER,
      badPacket: () => deps.badPacket?.(),
    })
    const conversation = deps.conversation
    this.recorder = conversation
      ? new ConversationRecorder({
          identity: spec.identity,
          now: () => deps.clock.now(),
          isTerminal: (id) => this.member.participants().some((p) => p.id === id && p.kind === 'terminal'),
          pendingAudioMs: () => this.playout.pendingMs,
          turn: (turn) => conversation.turn(turn),
        })
      : null
    const machine = agentMachine.provide({
      actors: {
        startAgent: fromPromise<void, AgentActorContext>(() => this.run()),
        stopAgent: fromPromise<void, AgentActorContext>(() => this.release()),
      },
    })
    this.actor = createActor(machine, {
      clock: deps.clock,
      input: {
        agentId: spec.agentId,
        room: spec.room,
        identity: spec.identity,
        startTimeoutMs: deps.startTimeoutMs,
        stopTimeoutMs: deps.stopTimeoutMs,
      },
    })
    this.settled = new Promise((resolve) => {
      this.actor.subscribe((snapshot) => {
        if (snapshot.value === 'running' && !this.announcedRunning) {
          this.announcedRunning = true
          this.log.info({ identity: spec.identity }, 'agent running')
          conversation?.open()
          this.broadcast({ type: 'agent.started', room: spec.room, agentId: spec.agentId, identity: spec.identity })
          this.deps.running?.(this)
          if (this.pendingFailure !== null) this.actor.send({ type: 'FAILED', reason: this.pendingFailure })
        }
        if (snapshot.status === 'done') {
          this.endedAt = this.deps.clock.now()
          // A start that failed or timed out never went through stopAgent: release now.
          void this.release()
          const reason = snapshot.context.reason ?? 'stopped'
          if (snapshot.value === 'failed') this.log.warn({ reason }, 'agent failed')
          else this.log.info({ reason }, 'agent stopped')
          this.broadcast({ type: 'agent.stopped', room: spec.room, agentId: spec.agentId, identity: spec.identity, reason })
          // Its last turn before agent.stopped is announced.
          this.recorder?.end()
          conversation?.end(this.endedAt)
          this.deps.ended?.(this)
          resolve()
        }
      })
    })
  }

  get state(): AgentState {
    const snapshot = this.actor.getSnapshot()
    const value = snapshot.value as string
    return value === 'failing' ? 'stopping' : (value as AgentState)
  }

  get agentId(): string {
    return this.spec.agentId
  }

  get identity(): string {
    return this.spec.identity
  }

  view(): AgentView {
    const s = this.spec
    return {
      agentId: s.agentId,
      room: s.room,
      identity: s.identity,
      name: s.name,
      provider: s.providerName,
      presetId: s.presetId,
      origin: s.origin,
      state: this.state,
      reason: this.actor.getSnapshot().status === 'done' ? (this.actor.getSnapshot().context.reason ?? 'stopped') : null,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
    }
  }

  /** Start the agent; resolves once it runs or has ended (check `state`), never rejects. */
  async start(): Promise<AgentState> {
    this.actor.start()
    await new Promise<void>((resolve) => {
      const check = () => {
        const state = this.state
        if (state !== 'starting') {
          sub.unsubscribe()
          resolve()
        }
      }
      const sub = this.actor.subscribe(check)
      check()
    })
    return this.state
  }

  /** Stop the agent; resolves once it reached stopped (or failed). */
  async stop(reason: string): Promise<void> {
    if (this.actor.getSnapshot().status !== 'done') this.actor.send({ type: 'STOP', reason })
    await this.settled
  }

  /**
   * The running session's live control (agentControl.ts); null before it runs and once it ended.
   * Its operations are guarded like the session's callbacks: one that throws fails the agent.
   */
  get control(): AgentControl | null {
    const control = this.state === 'running' ? this.session?.control : undefined
    if (!control) return null
    const guarded = <A extends unknown[]>(name: keyof AgentControl, f: ((...args: A) => void) | undefined) =>
      f === undefined
        ? {}
        : {
            [name]: (...args: A) => {
              try {
                f.apply(control, args)
              } catch (e) {
                this.failed(e, `provider error (control.${name})`)
              }
            },
          }
    return { ...guarded('say', control.say), ...guarded('interrupt', control.interrupt), ...guarded('update', control.update) }
  }

  /** The config its session reads now. */
  get config(): unknown {
    return this.liveConfig
  }

  /** Replace the config its session reads (a live update, already decoded). */
  reconfigure(config: unknown): void {
    this.liveConfig = config
  }

  /** Resolves when the agent has ended. */
  get ended(): Promise<void> {
    return this.settled
  }

  private context(): AgentContext {
    const s = this.spec
    const agent = this
    const ctx: AgentContext & { readonly [TOOL_SOURCES_SPEC]: ToolSourcesSpec } = {
      agentId: s.agentId,
      workspaceId: s.workspaceId,
      room: s.room,
      identity: s.identity,
      get config() {
        return agent.liveConfig
      },
      log: this.log,
      clock: this.deps.clock,
      signal: this.abort.signal,
      audio: this.playout,
      emit: (event) => this.emit(event),
      participants: () => this.member.participants(),
      fail: (reason) => this.failed(new AgentFailure(String(reason)), 'provider failed'),
      get tools() {
        return (agent.tools ??= new AgentToolbox({ agentId: s.agentId, room: s.room, emit: (e) => agent.emit(e), log: agent.log }, agent.liveConfig, s.toolSources ?? NO_TOOL_SOURCES))
      },
      // For an isolated provider, which builds `ctx.tools` in its worker.
      [TOOL_SOURCES_SPEC]: s.toolSources ?? NO_TOOL_SOURCES,
    }
    return ctx
  }

  /** startAgent: start the provider session, then join the room. */
  private async run(): Promise<void> {
    const failure = new Promise<never>((_, reject) => (this.failStart = reject))
    failure.catch(() => {})
    let session: AgentSession
    try {
      // In the agent's scope: whatever the provider schedules later still fails only this agent.
      const scope = { agentId: this.spec.agentId, fail: (e: unknown) => this.failed(e, 'provider error (async)') }
      const ctx = this.context()
      session = await Promise.race([
        Promise.resolve().then(() => inAgentScope(scope, () => this.deps.provider.start(ctx))),
        failure,
      ])
    } catch (e) {
      throw this.publicFailure(e, 'provider failed to start')
    }
    if (this.releasing) {
      // Stopped or timed out while the provider was starting: release its late session.
      await this.stopSession(session)
      throw new AgentFailure('cancelled')
    }
    this.session = session
    this.member.listen(this.observed(session))
    const joined = new Promise<void>((resolve) => (this.joinedRoom = resolve))
    this.deps.hub.joinRoom(this.spec.workspaceId, this.spec.room, this.member)
    await Promise.race([joined, failure])
    this.failStart = null
  }

  /** stopAgent (and the end of every path): leave the room, then release the provider. Idempotent. */
  private release(): Promise<void> {
    this.releasing ??= (async () => {
      this.failStart = null
      this.abort.abort()
      this.tools?.close()
      this.member.mute()
      this.playout.close()
      this.deps.hub.leaveRoom(this.spec.workspaceId, this.spec.room, this.member)
      const session = this.session
      this.session = null
      if (session) await this.stopSession(session)
    })()
    return this.releasing
  }

  /** The session as the room sees it: room events reach `ctx.tools` (once read) before the session. */
  private observed(session: AgentSession): AgentSession {
    const onEvent = session.onEvent?.bind(session)
    return {
      ...(session.onAudio ? { onAudio: session.onAudio.bind(session) } : {}),
      ...(session.onSourceAudio ? { onSourceAudio: session.onSourceAudio.bind(session) } : {}),
      onEvent: (event) => {
        this.tools?.observe(event)
        this.recorder?.roomEvent(event)
        return onEvent?.(event)
      },
    }
  }

  private async stopSession(session: AgentSession): Promise<void> {
    try {
      await session.stop?.()
    } catch (e) {
      this.log.warn({ error: scrubbedError(e, this.secrets) }, 'provider session failed to stop cleanly')
    }
  }

  /** The provider failed (threw, rejected, or said so): fail the agent with a public reason. */
  private failed(error: unknown, fallback: string): void {
    const failure = this.publicFailure(error, fallback)
    if (this.failStart) {
      this.failStart(failure)
      return
    }
    // Deferred: a failure may surface inside a room actor's transition (an event callback).
    queueMicrotask(() => {
      if (this.state === 'running') this.actor.send({ type: 'FAILED', reason: failure.message })
      // Joined but the actor has not moved to running yet: fail as soon as it does.
      else if (this.state === 'starting') this.pendingFailure ??= failure.message
    })
  }

  /** The reason the room may hear: an AgentFailure's own (scrubbed), else the generic fallback. */
  private publicFailure(error: unknown, fallback: string): AgentFailure {
    // By name too: a provider module may bring its own copy of 'hark', hence its own AgentFailure class.
    if (!(error instanceof AgentFailure || (error instanceof Error && error.name === 'AgentFailure'))) {
      this.log.error({ error: scrubbedError(error, this.secrets) }, fallback)
      return new AgentFailure(fallback)
    }
    return new AgentFailure(scrubSecrets(error.message, this.secrets).slice(0, 200) || fallback)
  }

  private emit(event: Readonly<Record<string, unknown>>): void {
    const state = this.state
    if (state !== 'running' && state !== 'starting') return
    let json: string | undefined
    try {
      json = typeof event === 'object' && event !== null && !Array.isArray(event) ? JSON.stringify(event) : undefined
    } catch {
      json = undefined
    }
    if (json === undefined || json.length > MAX_AGENT_EVENT_CHARS) {
      this.log.warn({ chars: json?.length }, 'agent event is not a small JSON object; dropped')
      return
    }
    const copy = JSON.parse(json) as Record<string, unknown>
    this.broadcast({ type: 'agent.event', room: this.spec.room, agentId: this.spec.agentId, event: copy })
    if (copy.kind === 'tool_call') this.deps.toolCalled?.(this, copy)
    this.recorder?.agentEvent(copy)
  }

  private broadcast(event: Parameters<TerminalHub['broadcast']>[2]): void {
    this.deps.hub.broadcast(this.spec.workspaceId, this.spec.room, event)
  }
}

const safeSecrets = (provider: AgentProvider): ReadonlyArray<string> => {
  try {
    return (provider.secrets?.() ?? []).filter((s): s is string => typeof s === 'string' && s.length > 0)
  } catch {
    return []
  }
}
