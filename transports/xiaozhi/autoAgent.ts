/**
 * The auto agent (`xiaozhi.autoAgent`): a xiaozhi device expects someone to answer it, so a room a
 * device joins that has no agent gets one — the room's default agent when the room names one (the
 * engine's room default agents start it), else the platform default (`agents.defaultProvider`),
 * dispatched here. It leaves `agents.defaultAgentStopDelaySeconds` after the last device left the
 * room, unless a device comes back first. An agent already in the room is never doubled.
 */
import type { AgentDispatcher } from '../../core/agents/dispatcher.js'
import type { Logger } from '../../core/log.js'
import type { StorageShape } from '../../core/storage/storage.js'

interface RoomEntry {
  devices: number
  /** The agent dispatched here, once running. */
  agentId: string | null
  starting: boolean
  stopTimer: NodeJS.Timeout | undefined
}

export interface AutoAgentDeps {
  readonly agents: AgentDispatcher
  readonly storage: StorageShape
  readonly log: Logger
  readonly stopDelayMs: number
}

const keyOf = (workspaceId: string, room: string) => `${workspaceId}\u0000${room}`

export class AutoAgents {
  private readonly rooms = new Map<string, RoomEntry>()
  private stopped = false

  constructor(private readonly deps: AutoAgentDeps) {}

  /** A device is in `room` now. */
  join(workspaceId: string, room: string): void {
    const key = keyOf(workspaceId, room)
    let entry = this.rooms.get(key)
    if (!entry) this.rooms.set(key, (entry = { devices: 0, agentId: null, starting: false, stopTimer: undefined }))
    entry.devices++
    if (entry.stopTimer) {
      clearTimeout(entry.stopTimer)
      entry.stopTimer = undefined
    }
    if (entry.starting || entry.agentId !== null || this.stopped) return
    // The room's own default agent comes with its first terminal (core/agents/defaultAgents.ts).
    if (this.deps.storage.roomSettings.get(workspaceId, room)?.defaultAgent) return
    if (this.deps.agents.live(workspaceId, room).length > 0) return
    entry.starting = true
    const started = entry
    this.deps.agents.dispatch(workspaceId, room, {}, 'default').then(
      (view) => {
        started.starting = false
        started.agentId = view.agentId
        this.deps.log.info({ workspaceId, room, agentId: view.agentId }, 'xiaozhi auto agent dispatched')
        if (started.devices === 0 || this.rooms.get(key) !== started) this.scheduleStop(key, workspaceId, started)
      },
      (e: unknown) => {
        started.starting = false
        this.deps.log.warn({ workspaceId, room, reason: (e as Error).message }, 'xiaozhi auto agent not started')
      },
    )
  }

  /** A device left `room` (moved, disconnected). */
  leave(workspaceId: string, room: string): void {
    const key = keyOf(workspaceId, room)
    const entry = this.rooms.get(key)
    if (!entry) return
    entry.devices = Math.max(0, entry.devices - 1)
    if (entry.devices > 0) return
    if (entry.agentId === null && !entry.starting) {
      this.rooms.delete(key)
      return
    }
    if (entry.agentId !== null) this.scheduleStop(key, workspaceId, entry)
  }

  /** Forget every room (the transport stops; the engine stops the agents themselves). */
  stop(): void {
    this.stopped = true
    for (const entry of this.rooms.values()) clearTimeout(entry.stopTimer)
    this.rooms.clear()
  }

  private scheduleStop(key: string, workspaceId: string, entry: RoomEntry): void {
    if (entry.stopTimer || entry.agentId === null) return
    const agentId = entry.agentId
    entry.stopTimer = setTimeout(() => {
      if (this.rooms.get(key) === entry) this.rooms.delete(key)
      this.deps.agents.stop(workspaceId, agentId, 'room empty').catch(() => undefined)
    }, this.deps.stopDelayMs)
    entry.stopTimer.unref()
  }
}
