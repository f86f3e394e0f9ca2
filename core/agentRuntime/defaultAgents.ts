/**
 * Room default agents: a room whose settings name a default agent gets it dispatched when its
 * first terminal joins, and stopped `stopDelaySeconds` after its last terminal left (a terminal
 * coming back in time cancels the stop). One default agent per room and occupancy cycle: one that
 * failed, or that a back end stopped, is started again only when the room empties and fills anew,
 * or when the room's setting changes. Driven by the workspace actors' `room.occupancy` and by committed
 * `room.updated` changes; work per room is serialized so joins, leaves and edits never race.
 */
import type { ClockShape, Timer } from '../clock.js'
import type { Settings } from '../config.js'
import type { Logger } from '../log.js'
import type { DefaultAgentSetting } from '../storage/roomSettings.js'
import type { StorageShape } from '../storage/storage.js'
import type { TerminalHub } from '../terminals.js'
import type { AgentDispatcher } from './dispatcher.js'
import type { LiveAgent } from './liveAgent.js'

interface Cycle {
  /** The setting this cycle's agent was started from (JSON, to notice edits). */
  readonly setting: string
  agent: LiveAgent | null
  stopTimer?: Timer
}

const keyOf = (workspaceId: string, room: string) => `${workspaceId}\u0000${room}`

export class RoomDefaultAgents {
  private readonly cycles = new Map<string, Cycle>()
  private readonly queues = new Map<string, Promise<void>>()
  private readonly unsubscribe: Array<() => void> = []
  private stopped = false

  constructor(
    private readonly dispatcher: AgentDispatcher,
    private readonly hub: TerminalHub,
    private readonly storage: StorageShape,
    private readonly settings: Settings,
    private readonly clock: ClockShape,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.unsubscribe.push(
      this.hub.on('room.occupancy', (e) => this.schedule(e.workspaceId, e.room, false)),
      this.storage.feed.on('room.updated', (change) => this.schedule(change.workspaceId, change.subject, true)),
    )
  }

  stop(): void {
    this.stopped = true
    this.unsubscribe.splice(0).forEach((f) => f())
    for (const cycle of this.cycles.values()) this.clock.clearTimeout(cycle.stopTimer)
    this.cycles.clear()
  }

  /** Resolves when every queued reconciliation has run (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()])
  }

  /**
   * In a cluster a room's default agent runs on its owner only (core/cluster): `owns` says whether
   * this node holds the room's lease; the cluster calls `recheck` when that changes.
   */
  setOwnership(owns: ((workspaceId: string, room: string) => boolean) | null): void {
    this.owns = owns
  }
  private owns: ((workspaceId: string, room: string) => boolean) | null = null

  /** Reconcile a room again (its lease moved, or its settings changed on another node). */
  recheck(workspaceId: string, room: string, settingChanged = false): void {
    this.schedule(workspaceId, room, settingChanged)
  }

  private schedule(workspaceId: string, room: string, settingChanged: boolean): void {
    if (this.stopped) return
    const key = keyOf(workspaceId, room)
    // Deferred: occupancy is announced from inside the workspace actor's step.
    const previous = this.queues.get(key) ?? Promise.resolve()
    const next = previous
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.reconcile(workspaceId, room, settingChanged))
      .catch((e: unknown) => this.log.error({ err: e, workspaceId, room }, 'room default agent failed'))
      .finally(() => {
        if (this.queues.get(key) === next) this.queues.delete(key)
      })
    this.queues.set(key, next)
  }

  private async reconcile(workspaceId: string, room: string, settingChanged: boolean): Promise<void> {
    if (this.stopped) return
    const key = keyOf(workspaceId, room)
    const cycle = this.cycles.get(key)
    if (this.owns !== null && !this.owns(workspaceId, room)) {
      // Not (or no longer) the owner: the owner runs it; one that ran here stops.
      if (!cycle) return
      this.cycles.delete(key)
      this.clock.clearTimeout(cycle.stopTimer)
      if (cycle.agent && isLive(cycle.agent)) await cycle.agent.stop('room owner moved to another node')
      return
    }
    const occupied = this.hub.terminalCount(workspaceId, room) > 0
    if (!occupied) {
      if (!cycle) return
      if (!cycle.agent || !isLive(cycle.agent)) {
        this.cycles.delete(key)
        return
      }
      if (cycle.stopTimer) return
      const setting = JSON.parse(cycle.setting) as DefaultAgentSetting
      const delayMs = (setting.stopDelaySeconds ?? this.settings.agents.defaultAgentStopDelaySeconds) * 1000
      const agent = cycle.agent
      cycle.stopTimer = this.clock.setTimeout(() => {
        if (this.cycles.get(key) === cycle) this.cycles.delete(key)
        void agent.stop('room empty')
      }, delayMs)
      return
    }
    if (cycle?.stopTimer) {
      this.clock.clearTimeout(cycle.stopTimer)
      cycle.stopTimer = undefined
    }
    // One default agent per occupancy cycle: more terminals joining change nothing.
    if (cycle && !settingChanged) return
    const setting = this.storage.roomSettings.get(workspaceId, room)?.defaultAgent ?? null
    const json = setting === null ? null : JSON.stringify(setting)
    if (cycle && cycle.setting === json) return
    if (cycle) {
      this.cycles.delete(key)
      if (cycle.agent && isLive(cycle.agent)) await cycle.agent.stop('room default agent changed')
    }
    if (setting === null || json === null) return
    const next: Cycle = { setting: json, agent: null }
    this.cycles.set(key, next)
    try {
      const resolved = this.dispatcher.resolve(workspaceId, setting)
      next.agent = this.dispatcher.launchResolved(workspaceId, room, resolved, 'default')
    } catch (e) {
      // A preset deleted since, an identity already taken: the room stays without its default agent.
      this.log.warn({ workspaceId, room, reason: (e as Error).message }, 'room default agent not started')
      return
    }
    const state = await next.agent.start()
    this.log.info({ workspaceId, room, agentId: next.agent.agentId, state }, 'room default agent dispatched')
  }
}

const isLive = (a: LiveAgent) => a.state === 'starting' || a.state === 'running'
