/**
 * The auto agent (`xiaozhi.autoAgent`): a xiaozhi device expects someone to answer it, so a room
 * with a device in it and no agent gets one — the room's default agent when the room names one
 * (the engine's room default agents start it, as for any terminal), else the platform default
 * (`agents.defaultProvider`), dispatched here. Driven by the workspace actors' `room.occupancy`,
 * like the room default agents: one auto agent per occupancy cycle of a room; it leaves
 * `agents.defaultAgentStopDelaySeconds` (engine clock) after the last terminal of any transport
 * left, unless one comes back first. An agent already in the room is never doubled.
 */
import type { AgentDispatcher, ClockShape, Logger, StorageShape, TerminalHub, Timer } from '../../core/extension.js'

interface RoomEntry {
  /** The agent dispatched for this occupancy cycle; null when its dispatch failed. */
  readonly agentId: string | null
  stopTimer: Timer | undefined
}

export interface AutoAgentDeps {
  readonly agents: AgentDispatcher
  readonly hub: TerminalHub
  readonly storage: StorageShape
  readonly clock: ClockShape
  readonly log: Logger
  readonly stopDelayMs: number
  /** The devices' transport name: a room gets an auto agent only when one of its terminals is on it. */
  readonly transport: string
}

const keyOf = (workspaceId: string, room: string) => `${workspaceId}\u0000${room}`

export class AutoAgents {
  /** Rooms whose occupancy cycle has had its auto agent. */
  private readonly rooms = new Map<string, RoomEntry>()
  /** Work per room, serialized so joins and leaves never race a dispatch. */
  private readonly queues = new Map<string, Promise<void>>()
  private unsubscribe: (() => void) | null = null
  private stopped = false

  constructor(private readonly deps: AutoAgentDeps) {}

  start(): void {
    this.unsubscribe = this.deps.hub.on('room.occupancy', (e) => this.schedule(e.workspaceId, e.room))
  }

  /** Forget every room (the transport stops; the engine stops the agents themselves). */
  stop(): void {
    this.stopped = true
    this.unsubscribe?.()
    this.unsubscribe = null
    for (const entry of this.rooms.values()) this.deps.clock.clearTimeout(entry.stopTimer)
    this.rooms.clear()
  }

  /** Resolves when every occupancy change heard so far has been acted on (tests). */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()])
  }

  private schedule(workspaceId: string, room: string): void {
    if (this.stopped) return
    const key = keyOf(workspaceId, room)
    const previous = this.queues.get(key) ?? Promise.resolve()
    const next = previous
      // Deferred: occupancy is announced from inside the room's step, before its snapshot says who joined.
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.reconcile(workspaceId, room, key))
      .catch((e: unknown) => this.deps.log.error({ err: e, workspaceId, room }, 'xiaozhi auto agent failed'))
      .finally(() => {
        if (this.queues.get(key) === next) this.queues.delete(key)
      })
    this.queues.set(key, next)
  }

  private async reconcile(workspaceId: string, room: string, key: string): Promise<void> {
    if (this.stopped) return
    const { hub, agents, storage, clock } = this.deps
    const entry = this.rooms.get(key)
    if (hub.terminalCount(workspaceId, room) === 0) {
      if (!entry) return
      const agentId = entry.agentId
      if (agentId === null || !agents.live(workspaceId, room).some((a) => a.agentId === agentId)) {
        this.rooms.delete(key)
        return
      }
      if (entry.stopTimer) return
      entry.stopTimer = clock.setTimeout(() => {
        if (this.rooms.get(key) === entry) this.rooms.delete(key)
        agents.stop(workspaceId, agentId, 'room empty').catch(() => undefined)
      }, this.deps.stopDelayMs)
      return
    }
    if (entry) {
      // Someone is back in time; and this occupancy cycle has had its agent (one that failed or was stopped is not replaced).
      clock.clearTimeout(entry.stopTimer)
      entry.stopTimer = undefined
      return
    }
    if (!hub.roomView(workspaceId, room)?.participants.some((p) => p.transport === this.deps.transport)) return
    // The room's own default agent comes with its first terminal (the engine's room default agents).
    if (storage.roomSettings.get(workspaceId, room)?.defaultAgent) return
    if (agents.live(workspaceId, room).length > 0) return
    // If everyone leaves while it starts, that leave is queued behind this and arms the stop.
    try {
      const view = await agents.dispatch(workspaceId, room, {}, 'default')
      this.rooms.set(key, { agentId: view.agentId, stopTimer: undefined })
      this.deps.log.info({ workspaceId, room, agentId: view.agentId }, 'xiaozhi auto agent dispatched')
    } catch (e) {
      this.rooms.set(key, { agentId: null, stopTimer: undefined })
      this.deps.log.warn({ workspaceId, room, reason: (e as Error).message }, 'xiaozhi auto agent not started')
    }
  }
}
