/**
 * The auto agent (`xiaozhi.autoAgent`): a xiaozhi device expects someone to answer it, so a room a
 * device enters that has no agent gets one — the room's default agent when the room names one (the
 * engine's room default agents start it, as for any terminal), else the platform default
 * (`agents.defaultProvider`), dispatched here. Like a room default agent it leaves
 * `agents.defaultAgentStopDelaySeconds` after the last terminal left the room, unless one comes
 * back first. An agent already in the room is never doubled.
 */
import type { AgentDispatcher } from '../../core/agents/dispatcher.js'
import type { Logger } from '../../core/log.js'
import type { StorageShape } from '../../core/storage/storage.js'
import type { RoomOccupancyEvent } from '../../core/terminals.js'

interface RoomEntry {
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
  /** Terminals in a room right now (the hub's count). */
  readonly terminalCount: (workspaceId: string, room: string) => number
  /** Hear rooms' terminal counts change; returns the unsubscribe function. */
  readonly onOccupancy: (listener: (event: RoomOccupancyEvent) => void) => () => void
}

const keyOf = (workspaceId: string, room: string) => `${workspaceId}\u0000${room}`

export class AutoAgents {
  private readonly rooms = new Map<string, RoomEntry>()
  private readonly unsubscribe: () => void
  private stopped = false

  constructor(private readonly deps: AutoAgentDeps) {
    this.unsubscribe = deps.onOccupancy((e) => this.occupancy(e))
  }

  /** A device entered `room`. */
  join(workspaceId: string, room: string): void {
    if (this.stopped) return
    const key = keyOf(workspaceId, room)
    const entry = this.rooms.get(key)
    if (entry) {
      this.cancelStop(entry)
      if (entry.starting || entry.agentId !== null) return
    }
    // The room's own default agent comes with its first terminal (core/agents/defaultAgents.ts).
    if (this.deps.storage.roomSettings.get(workspaceId, room)?.defaultAgent) return
    if (this.deps.agents.live(workspaceId, room).length > 0) return
    const started: RoomEntry = { agentId: null, starting: true, stopTimer: undefined }
    this.rooms.set(key, started)
    this.deps.agents.dispatch(workspaceId, room, {}, 'default').then(
      (view) => {
        started.starting = false
        started.agentId = view.agentId
        this.deps.log.info({ workspaceId, room, agentId: view.agentId }, 'xiaozhi auto agent dispatched')
        if (this.deps.terminalCount(workspaceId, room) === 0) this.scheduleStop(key, workspaceId, started)
      },
      (e: unknown) => {
        if (this.rooms.get(key) === started) this.rooms.delete(key)
        this.deps.log.warn({ workspaceId, room, reason: (e as Error).message }, 'xiaozhi auto agent not started')
      },
    )
  }

  /** Forget every room (the transport stops; the engine stops the agents themselves). */
  stop(): void {
    this.stopped = true
    this.unsubscribe()
    for (const entry of this.rooms.values()) this.cancelStop(entry)
    this.rooms.clear()
  }

  private occupancy(e: RoomOccupancyEvent): void {
    const key = keyOf(e.workspaceId, e.room)
    const entry = this.rooms.get(key)
    if (!entry || entry.agentId === null) return
    if (e.terminals > 0) this.cancelStop(entry)
    else this.scheduleStop(key, e.workspaceId, entry)
  }

  private cancelStop(entry: RoomEntry): void {
    clearTimeout(entry.stopTimer)
    entry.stopTimer = undefined
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
