/**
 * The agent dispatcher: turns "this agent into that room" into a running agent. It resolves the
 * preset (or the platform default provider), merges and validates the config, gives the agent a
 * stable identity, enforces the per-room limits, starts it and keeps its record — running agents,
 * and ended ones for a while so a back end can read why an agent stopped. Workspaces never see
 * each other's agents. Which agents a room has is its room-agents actor's (core/actors/roomAgents.ts):
 * the dispatcher registers every agent it starts there, and is the runtime those actors start the
 * agents their policies want with (every policy added with `addPolicy`: the room default agent's,
 * by its layer in `defaultAgents.ts`, first; an extension's, such as the xiaozhi auto agent).
 */
import { readFileSync } from 'node:fs'
import { toolSourcesFor } from './agentToolbox.js'
import type { FunctionEndpoint } from './functionTools.js'
import { checkMcpServerUrls } from './mcpServerUrls.js'
import { Gauge, Counter, type Registry } from 'prom-client'
import type { AgentProvider } from '../agentProvider.js'
import { liveAgents, policiesMayWant, type AgentReason, type AgentRequest, type PolicyLaunch, type RoomAgentPolicy, type RoomAgentsRuntime } from '../actors/roomAgents.js'
import type { ClockShape } from '../clock.js'
import type { Settings } from '../config.js'
import { AgentStartFailed, Conflict, NotFound, ServerShuttingDown, ValidationFailed } from '../errors.js'
import { randomBase62 } from '../ids.js'
import type { Logger } from '../log.js'
import type { RecordingTracksSetting } from '../storage/recordings.js'
import type { StorageShape } from '../storage/storage.js'
import type { TerminalHub } from '../terminals.js'
import type { TranscriptWriter } from '../transcripts/writer.js'
import { controlAgent, type AgentControlRequest } from './agentControl.js'
import { configJsonSchema, mergeConfig, validateAgentConfig } from './agentConfig.js'
import { LiveAgent, type AgentOrigin, type AgentView } from './liveAgent.js'
import { checkPresetIdForm } from './presets.js'
import { ToolCallMetrics, toolCallOf, type AgentToolCallEvent } from './toolCalls.js'

/** What a dispatch asks for (REST body, a room policy's agent). */
export type DispatchRequest = AgentRequest

/** Agent providers by name (the engine's extension registry). */
export interface ProviderDirectory {
  names(): ReadonlyArray<string>
  get(name: string): AgentProvider
}

export interface ResolvedAgent {
  readonly providerName: string
  readonly provider: AgentProvider
  readonly presetId: string | null
  readonly name: string | null
  readonly identity: string
  readonly config: unknown
  /** The preset asks for the room to be recorded while this agent is in it (null: it does not). */
  readonly record: RecordingTracksSetting | null
}

export interface ProviderInfo {
  readonly name: string
  readonly description: string | null
  /** JSON Schema (draft 2020-12) of what presets and overrides may set. */
  readonly configSchema: unknown
}

/** An agent started running, stopped, or failed (control plane; webhooks listen). */
export interface AgentLifecycleEvent {
  readonly type: 'started' | 'stopped' | 'failed'
  readonly workspaceId: string
  readonly agent: AgentView
  /** Its preset's `record.tracks`: the room recording it wants while it is in the room (null: none). */
  readonly record: RecordingTracksSetting | null
}

export const DEFAULT_IDENTITY = 'agent@default'
/** The room identity of an agent: `agent@<presetId>`, or `agent@default` for the platform default. */
export const identityOf = (presetId: string | null) => (presetId === null ? DEFAULT_IDENTITY : `agent@${presetId}`)

/** Ended agents stay readable this long (and at most MAX_ENDED per workspace). */
export const RETAIN_ENDED_MS = 10 * 60_000
const MAX_ENDED = 200

/**
 * Where agents run in a cluster (core/cluster/cluster.ts; on NATS, cluster/nats/agentRpc.ts): on
 * the room's owner. `ownerFor` answers null when that is this node (it takes the lease of a room
 * nobody owns), else the owner's id.
 */
export interface AgentPlacement {
  /** True while this node owns the room: the room's policy agents run here. */
  owns(workspaceId: string, room: string): boolean
  ownerFor(workspaceId: string, room: string): Promise<string | null>
  dispatchAt(node: string, workspaceId: string, room: string, request: DispatchRequest, origin: AgentOrigin): Promise<AgentView>
  /**
   * The agents the other nodes run (or ran) in a workspace, optionally of one room. Rejects with
   * ClusterUnavailable when a node believed alive does not answer.
   */
  remoteList(workspaceId: string, room: string | null): Promise<AgentView[]>
  /**
   * Read (`get`) or stop (`stop`) an agent that runs on another node: its view, or null when no
   * other node has it. Rejects with ClusterUnavailable when a node that may have it does not answer.
   */
  remoteAgent(workspaceId: string, agentId: string, op: 'get' | 'stop'): Promise<AgentView | null>
  /**
   * Live control of an agent that runs on another node, carried out there: its view after it,
   * or null when no other node has it. Rejects with that node's error (not running, not
   * supported, a validation failure), or AgentElsewhere when a node that may run it cannot be reached.
   */
  remoteControl(workspaceId: string, agentId: string, request: AgentControlRequest): Promise<AgentView | null>
}

/** A webhook endpoint of the workspace as a function endpoint, or why it cannot be one. */
export type FunctionEndpointResolver = (workspaceId: string, webhookId: string) => FunctionEndpoint

export interface DispatcherDeps {
  readonly hub: TerminalHub
  readonly storage: StorageShape
  readonly settings: Settings
  readonly log: Logger
  readonly clock: ClockShape
  readonly metrics: Registry
  /** Where providers are found; none yet: `useProviders` (the registry, built after the dispatcher). */
  readonly providers?: ProviderDirectory
  /** Where agents' conversations are written; none: not recorded. */
  readonly transcripts?: TranscriptWriter
}

const noProviders: ProviderDirectory = {
  names: () => [],
  get: (name) => {
    throw new Error(`no agent provider named ${name} yet: the engine is starting`)
  },
}

export class AgentDispatcher {
  /** workspaceId -> agentId -> agent (live and recently ended). */
  private readonly agents = new Map<string, Map<string, LiveAgent>>()
  private readonly endedAt = new Map<LiveAgent, number>()
  private closing = false
  private readonly started: Counter
  private readonly failed: Counter
  private readonly badPackets: Counter
  private retiredFramesOut = 0
  private readonly lifecycleListeners = new Set<(event: AgentLifecycleEvent) => void>()
  private readonly toolCallListeners = new Set<(event: AgentToolCallEvent) => void>()
  private readonly toolCalls: ToolCallMetrics
  /** The room policies in force, in the order the room-agents actors consult them. */
  private readonly policyList: RoomAgentPolicy[]
  /** Policy agents being started (idle() waits for them). */
  private readonly starting = new Set<Promise<unknown>>()
  /** Where providers are found: the engine's registry, which is built after the dispatcher (it hands the dispatcher to extensions). */
  private providerDirectory: ProviderDirectory = noProviders

  constructor(private readonly deps: DispatcherDeps) {
    const dispatcher = this
    this.policyList = []
    if (deps.providers) this.providerDirectory = deps.providers
    this.toolCalls = new ToolCallMetrics(deps.metrics)
    this.started = new Counter({ name: 'hark_agents_started_total', help: 'Agents dispatched', labelNames: ['provider'], registers: [deps.metrics] })
    this.failed = new Counter({ name: 'hark_agents_failed_total', help: 'Agents that ended failed', labelNames: ['provider'], registers: [deps.metrics] })
    this.badPackets = new Counter({
      name: 'hark_agent_undecodable_packets_total', help: 'Room packets an agent could not decode (dropped)', registers: [deps.metrics],
    })
    new Counter({
      name: 'hark_agent_frames_sent_total',
      help: 'Audio frames agents sent into rooms',
      registers: [deps.metrics],
      collect() {
        let n = dispatcher.retiredFramesOut
        for (const agents of dispatcher.agents.values()) for (const a of agents.values()) n += a.playout.stats.framesOut
        this.reset()
        this.inc(n)
      },
    })
    new Gauge({
      name: 'hark_agents',
      help: 'Agents by state',
      labelNames: ['state'],
      registers: [deps.metrics],
      collect() {
        this.reset()
        for (const agents of dispatcher.agents.values()) for (const a of agents.values()) this.inc({ state: a.state })
      },
    })
  }

  /** Where providers are found from now on (the engine's registry, once it is built). */
  useProviders(providers: ProviderDirectory): void {
    this.providerDirectory = providers
  }

  private functionEndpoints: FunctionEndpointResolver | null = null
  private functionsCa: string | undefined | null = null

  /**
   * Who resolves a config's `functionsWebhookId` to a URL and its signing secrets: the webhooks
   * plugin, which owns the endpoints (without it, functions answer that they cannot be called).
   */
  useFunctionEndpoints(resolver: FunctionEndpointResolver): void {
    this.functionEndpoints = resolver
  }

  private functionEndpoint(workspaceId: string, webhookId: string | undefined): FunctionEndpoint {
    if (webhookId === undefined) return { unavailable: 'no function endpoint: the agent config names no functionsWebhookId' }
    if (this.functionEndpoints === null) return { unavailable: 'no function endpoint: this engine has no webhooks plugin' }
    const found = this.functionEndpoints(workspaceId, webhookId)
    if ('unavailable' in found) return found
    const caFile = this.deps.settings.agents.functionsCaFile
    if (this.functionsCa === null) {
      try {
        this.functionsCa = caFile === '' ? undefined : readFileSync(caFile, 'utf8')
      } catch (e) {
        this.deps.log.warn({ caFile, error: (e as Error).message }, 'agents.functionsCaFile cannot be read; system CAs only')
        this.functionsCa = undefined
      }
    }
    return this.functionsCa === undefined ? found : { ...found, ca: this.functionsCa }
  }

  /** Where agents' conversations are written (null when not recorded). */
  get transcripts(): TranscriptWriter | null {
    return this.deps.transcripts ?? null
  }

  /** Become the rooms' agent runtime: their room-agents actors consult the policies and start agents here. */
  start(): void {
    this.deps.hub.attachAgents(this.runtime)
  }

  /**
   * Add a room policy (an extension's: a transport whose devices want an agent), consulted after
   * those already there. Returns the function that removes it.
   */
  addPolicy(policy: RoomAgentPolicy): () => void {
    if (this.policyList.some((p) => p.name === policy.name)) throw new Error(`a room policy named ${policy.name} is already there`)
    this.policyList.push(policy)
    return () => {
      const i = this.policyList.indexOf(policy)
      if (i >= 0) this.policyList.splice(i, 1)
    }
  }

  /** Resolves once every policy agent asked for so far has started (or failed to): tests, shutdown. */
  async idle(): Promise<void> {
    // After the room steps and the microtasks that ask for their agents.
    do {
      await new Promise<void>((resolve) => setImmediate(resolve))
      await Promise.all([...this.starting])
    } while (this.starting.size > 0)
  }

  /** What the room-agents actors start their policies' agents with. */
  private readonly runtime: RoomAgentsRuntime = {
    policies: () => this.policyList,
    mayWant: (joining) => policiesMayWant(this.policyList, joining),
    runsPolicies: (workspaceId, room) => this.placement === null || this.placement.owns(workspaceId, room),
    launch: (launch) => this.launchPolicyAgent(launch),
  }

  private launchPolicyAgent(launch: PolicyLaunch): boolean {
    const { workspaceId, room, policy } = launch
    let agent: LiveAgent
    try {
      const resolved = this.resolve(workspaceId, launch.request)
      agent = this.launch(workspaceId, room, resolved, launch.reason, { policy, key: launch.key, stopDelayMs: launch.stopDelayMs })
    } catch (e) {
      // A preset deleted since, an identity already taken, a full room: the room goes without it this cycle.
      this.deps.log.warn({ workspaceId, room, reason: (e as Error).message }, `${policy} not started`)
      return false
    }
    const started: Promise<unknown> = agent.start().then((state) => {
      this.deps.log.info({ workspaceId, room, agentId: agent.agentId, state }, `${policy} dispatched`)
    })
    this.starting.add(started)
    void started.finally(() => this.starting.delete(started))
    return true
  }

  /** What a cluster node asks of this node's agents (core/cluster/node.ts, ClusterAgentHooks). */
  nodeHooks() {
    return {
      // The sender answered its own writes (a preset it just stored) before forwarding: this
      // node's replica catches up with the primary first, or the dispatch would not find them.
      dispatchHere: async (ws: string, room: string, request: DispatchRequest, origin: AgentOrigin) => {
        await this.deps.storage.refresh()
        return this.dispatchHere(ws, room, request, origin)
      },
      ownershipChanged: (ws: string, room: string, owned: boolean) => this.deps.hub.toRoomAgents(ws, room, { type: 'OWNERSHIP_CHANGED', owned }),
      list: (ws: string, room: string | null) => this.list(ws, { room }),
      get: (ws: string, agentId: string) => this.get(ws, agentId),
      stop: async (ws: string, agentId: string) => (this.get(ws, agentId) === null ? null : this.stop(ws, agentId)),
      control: async (ws: string, agentId: string, request: AgentControlRequest) => (this.agents.get(ws)?.has(agentId) ? this.controlHere(ws, agentId, request) : null),
    }
  }

  /** Hear agents start running, stop and fail. Returns the unsubscribe function. */
  onAgent(listener: (event: AgentLifecycleEvent) => void): () => void {
    this.lifecycleListeners.add(listener)
    return () => this.lifecycleListeners.delete(listener)
  }

  /** Every tool call an agent of this node made (the `agent.tool_called` webhook listens). */
  onToolCall(listener: (event: AgentToolCallEvent) => void): () => void {
    this.toolCallListeners.add(listener)
    return () => this.toolCallListeners.delete(listener)
  }

  private toolCalled(agent: LiveAgent, event: Readonly<Record<string, unknown>>): void {
    const call = toolCallOf(agent.spec.workspaceId, agent.view(), event)
    this.toolCalls.record(call)
    for (const listener of this.toolCallListeners) {
      try {
        listener(call)
      } catch (e) {
        this.deps.log.error({ err: e, agentId: agent.agentId }, 'tool call listener failed')
      }
    }
  }

  private announce(type: AgentLifecycleEvent['type'], agent: LiveAgent): void {
    if (this.lifecycleListeners.size === 0) return
    const event: AgentLifecycleEvent = { type, workspaceId: agent.spec.workspaceId, agent: agent.view(), record: agent.spec.record }
    for (const listener of this.lifecycleListeners) {
      try {
        listener(event)
      } catch (e) {
        this.deps.log.error({ err: e, agentId: agent.agentId }, `agent ${type} listener failed`)
      }
    }
  }

  /** Registered providers with their config schemas. */
  providers(): ProviderInfo[] {
    return this.providerDirectory.names().map((name) => {
      const p = this.providerDirectory.get(name)
      return { name, description: p.description ?? null, configSchema: configJsonSchema(p) }
    })
  }

  /** Validate a preset's provider and config before it is stored; returns the decoded config. */
  validatePreset(providerName: string, config: unknown): unknown {
    const provider = this.provider(providerName, 'provider')
    const decoded = validateAgentConfig(providerName, provider, config ?? {}, 'config')
    checkMcpServerUrls(decoded, this.deps.settings.agents.mcpServers, 'config')
    return decoded
  }

  /** Resolve what a dispatch would start: preset or platform default, config merged and validated. */
  resolve(workspaceId: string, request: DispatchRequest): ResolvedAgent {
    const presetId = request.presetId ?? null
    let providerName = this.deps.settings.agents.defaultProvider
    let base: unknown = {}
    let name: string | null = null
    let record: RecordingTracksSetting | null = null
    if (presetId !== null) {
      checkPresetIdForm(presetId)
      const preset = this.deps.storage.agentPresets.get(workspaceId, presetId)
      if (!preset) throw new NotFound({ message: `no agent preset ${presetId} in this workspace` })
      providerName = preset.provider
      base = preset.config
      name = preset.name
      record = preset.record?.tracks ?? null
    }
    const provider = this.provider(providerName, presetId === null ? 'agents.defaultProvider' : 'presetId')
    const overrides = request.overrides ?? undefined
    const config = validateAgentConfig(providerName, provider, mergeConfig(base, overrides), 'overrides', overrides)
    checkMcpServerUrls(config, this.deps.settings.agents.mcpServers, 'config')
    return { providerName, provider, presetId, name: name ?? providerName, identity: identityOf(presetId), config, record }
  }

  /**
   * Dispatch an agent into a room of a workspace and wait until it runs. Throws Conflict when
   * the identity is already in the room or the room is full, AgentStartFailed when the provider
   * could not start (the failed agent stays readable with its reason).
   */
  async dispatch(workspaceId: string, room: string, request: DispatchRequest, origin: AgentOrigin = 'api'): Promise<AgentView> {
    const placement = this.placement
    if (placement !== null) {
      const owner = await placement.ownerFor(workspaceId, room)
      if (owner !== null) return placement.dispatchAt(owner, workspaceId, room, request, origin)
    }
    return this.dispatchHere(workspaceId, room, request, origin)
  }

  /** In a cluster: agents are dispatched on the room's owner (set by the engine). */
  setPlacement(placement: AgentPlacement | null): void {
    this.placement = placement
  }
  private placement: AgentPlacement | null = null

  /** Dispatch on this node, whoever owns the room (a dispatch forwarded here by another node). */
  async dispatchHere(workspaceId: string, room: string, request: DispatchRequest, origin: AgentOrigin = 'api'): Promise<AgentView> {
    const resolved = this.resolve(workspaceId, request)
    const agent = this.launch(workspaceId, room, resolved, origin === 'api' ? 'dispatched' : 'default')
    const state = await agent.start()
    if (state === 'failed' || state === 'stopped') {
      throw new AgentStartFailed({ message: `agent ${agent.agentId} failed to start: ${agent.view().reason ?? 'stopped'}` })
    }
    return agent.view()
  }

  /**
   * Create the agent and register it with its room's room-agents actor (synchronously, so limits
   * hold under concurrent dispatches); `policy`: the policy that wanted it, and what for.
   */
  private launch(
    workspaceId: string,
    room: string,
    resolved: ResolvedAgent,
    reason: AgentReason,
    policy: { readonly policy: string; readonly key: string; readonly stopDelayMs: number } | null = null,
  ): LiveAgent {
    if (this.closing) throw new ServerShuttingDown({ message: 'server shutting down' })
    this.prune()
    const live = this.live(workspaceId, room)
    const same = live.find((a) => a.spec.identity === resolved.identity)
    if (same) {
      throw new Conflict({ message: `agent ${resolved.identity} is already in room ${room} (agentId ${same.agentId})` })
    }
    if (this.deps.hub.roomView(workspaceId, room)?.participants.some((p) => p.id === resolved.identity)) {
      throw new Conflict({ message: `a participant named ${resolved.identity} is already in room ${room}` })
    }
    const max = this.deps.settings.agents.maxPerRoom
    if (live.length >= max) throw new Conflict({ message: `room ${room} already has ${max} agents (agents.maxPerRoom)` })
    const { agents: a } = this.deps.settings
    const agentId = `ag_${randomBase62(16)}`
    const conversation = this.deps.transcripts?.conversation({
      workspaceId, agentId, room, identity: resolved.identity, provider: resolved.providerName, presetId: resolved.presetId,
      startedAt: this.deps.clock.now(),
    })
    const agent = new LiveAgent(
      {
        agentId,
        workspaceId,
        room,
        identity: resolved.identity,
        name: resolved.name,
        providerName: resolved.providerName,
        presetId: resolved.presetId,
        origin: reason === 'dispatched' ? 'api' : 'default',
        config: resolved.config,
        record: resolved.record,
        toolSources: toolSourcesFor(resolved.config, this.deps.settings.agents.mcpServers, (webhookId) => this.functionEndpoint(workspaceId, webhookId)),
      },
      {
        provider: resolved.provider,
        hub: this.deps.hub,
        log: this.deps.log,
        clock: this.deps.clock,
        leadMs: a.playoutLeadMs,
        startTimeoutMs: a.startTimeoutMs,
        stopTimeoutMs: a.stopTimeoutMs,
        badPacket: () => this.badPackets.inc(),
        toolCalled: (agent, event) => this.toolCalled(agent, event),
        ...(conversation ? { conversation } : {}),
        running: (running) => this.announce('started', running),
        ended: (ended) => {
          this.deps.hub.toRoomAgents(workspaceId, room, { type: 'AGENT_ENDED', agentId: ended.agentId })
          this.endedAt.set(ended, this.deps.clock.now())
          if (ended.state === 'failed') this.failed.inc({ provider: ended.spec.providerName })
          this.announce(ended.state === 'failed' ? 'failed' : 'stopped', ended)
        },
      },
    )
    let agents = this.agents.get(workspaceId)
    if (!agents) this.agents.set(workspaceId, (agents = new Map()))
    agents.set(agent.agentId, agent)
    const entry = { agent, reason, policy: policy?.policy ?? null, stopDelayMs: policy?.stopDelayMs ?? null }
    this.deps.hub.toRoomAgents(workspaceId, room, { type: 'AGENT_ADDED', entry, key: policy?.key ?? null }, true)
    this.started.inc({ provider: resolved.providerName })
    return agent
  }

  /** Stop an agent of this workspace; waits until it has left its room. */
  async stop(workspaceId: string, agentId: string, reason = 'stopped by request'): Promise<AgentView> {
    const agent = this.agents.get(workspaceId)?.get(agentId)
    if (!agent) throw new NotFound({ message: `no agent ${agentId} in this workspace` })
    await agent.stop(reason)
    return agent.view()
  }

  get(workspaceId: string, agentId: string): AgentView | null {
    return this.agents.get(workspaceId)?.get(agentId)?.view() ?? null
  }

  /** Like `list`, over every node of a cluster (this node alone otherwise). */
  async listAll(workspaceId: string, filter: { room?: string | null } = {}): Promise<AgentView[]> {
    const here = this.list(workspaceId, filter)
    if (this.placement === null) return here
    const there = await this.placement.remoteList(workspaceId, filter.room ?? null)
    const seen = new Set(here.map((a) => a.agentId))
    return [...here, ...there.filter((a) => !seen.has(a.agentId))].sort(byNewest)
  }

  /** Like `get`, on whichever node of a cluster runs the agent. */
  async find(workspaceId: string, agentId: string): Promise<AgentView | null> {
    const here = this.get(workspaceId, agentId)
    if (here !== null || this.placement === null) return here
    return this.placement.remoteAgent(workspaceId, agentId, 'get')
  }

  /** Like `stop`, on whichever node of a cluster runs the agent. */
  async stopAnywhere(workspaceId: string, agentId: string, reason?: string): Promise<AgentView> {
    if (this.placement === null || this.agents.get(workspaceId)?.has(agentId)) return this.stop(workspaceId, agentId, reason)
    const view = await this.placement.remoteAgent(workspaceId, agentId, 'stop')
    if (view === null) throw new NotFound({ message: `no agent ${agentId} in this workspace` })
    return view
  }

  /**
   * Live control (say, interrupt, update) of an agent of this workspace; answers its view. In a
   * cluster an agent running on another node is controlled there (the placement forwards it).
   */
  async control(workspaceId: string, agentId: string, request: AgentControlRequest): Promise<AgentView> {
    if (this.agents.get(workspaceId)?.has(agentId)) return this.controlHere(workspaceId, agentId, request)
    const remote = this.placement === null ? null : await this.placement.remoteControl(workspaceId, agentId, request)
    if (remote === null) throw new NotFound({ message: `no agent ${agentId} in this workspace` })
    return remote
  }

  private controlHere(workspaceId: string, agentId: string, request: AgentControlRequest): AgentView {
    const agent = this.agents.get(workspaceId)?.get(agentId)
    if (!agent) throw new NotFound({ message: `no agent ${agentId} in this workspace` })
    controlAgent(agent, this.providerDirectory.get(agent.spec.providerName), request)
    return agent.view()
  }

  /** Agents of a workspace (running first, then newest), optionally of one room and/or one state class. */
  list(workspaceId: string, filter: { room?: string | null; live?: boolean } = {}): AgentView[] {
    this.prune()
    const views = [...(this.agents.get(workspaceId)?.values() ?? [])]
      .filter((a) => (filter.room == null || a.spec.room === filter.room) && (filter.live === undefined || isLive(a) === filter.live))
      .map((a) => a.view())
    return views.sort(byNewest)
  }

  /** Live (starting or running) agents in a room, as its room-agents actor has them. */
  live(workspaceId: string, room: string): LiveAgent[] {
    const ref = this.deps.hub.roomAgents(workspaceId, room)
    if (!ref) return []
    const agents = this.agents.get(workspaceId)
    return liveAgents(ref.getSnapshot().context).flatMap((e) => agents?.get(e.agent.agentId) ?? [])
  }

  /** Stop every agent (engine shutdown). */
  async shutdown(): Promise<void> {
    this.closing = true
    this.deps.hub.attachAgents(null)
    const all = [...this.agents.values()].flatMap((m) => [...m.values()])
    await Promise.all(all.map((a) => a.stop('server shutting down')))
  }

  private provider(name: string, field: string): AgentProvider {
    if (!this.providerDirectory.names().includes(name)) {
      throw new ValidationFailed({ field, message: `no agent provider named ${name} (registered: ${this.providerDirectory.names().join(', ') || 'none'})` })
    }
    return this.providerDirectory.get(name)
  }

  private prune(): void {
    const now = this.deps.clock.now()
    for (const [workspaceId, agents] of this.agents) {
      const ended = [...agents.values()].filter((a) => this.endedAt.has(a))
      const excess = ended.length - MAX_ENDED
      ended.forEach((a, i) => {
        if (i < excess || now - this.endedAt.get(a)! > RETAIN_ENDED_MS) {
          agents.delete(a.agentId)
          this.endedAt.delete(a)
          this.retiredFramesOut += a.playout.stats.framesOut
        }
      })
      if (agents.size === 0) this.agents.delete(workspaceId)
    }
  }
}

const byNewest = (x: AgentView, y: AgentView) => y.startedAt - x.startedAt || x.agentId.localeCompare(y.agentId)

const isLive = (a: LiveAgent) => a.state === 'starting' || a.state === 'running'
