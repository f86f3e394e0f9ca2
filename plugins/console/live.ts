/**
 * The console's live feed: what changed in a workspace, as small events its pages apply or react
 * to by reading again — a client came online or went offline, a client was created, changed or
 * deleted, a room's membership or settings changed, someone started or stopped speaking, an agent
 * started or stopped, an agent's conversation has a new turn, an agent called a tool. Events come from the engine's owners of that state (the terminal hub, the
 * storage change log); the feed keeps nothing but its subscribers, and fans each event out to the
 * server-sent-event streams of that workspace (api/events.ts).
 */
import type { Logger } from '../../core/log.js'

export type LiveEvent =
  | { readonly type: 'presence'; readonly clientId: string; readonly online: boolean; readonly transport: string }
  | { readonly type: 'client'; readonly clientId: string; readonly change: 'created' | 'updated' | 'deleted' }
  | { readonly type: 'room'; readonly room: string }
  | { readonly type: 'speaking'; readonly room: string; readonly participantId: string; readonly speaking: boolean }
  | { readonly type: 'agent'; readonly room: string; readonly agentId: string; readonly state: 'started' | 'stopped' }
  /** An agent's conversation has a new turn (no text: a viewer's stream carries it too). */
  | { readonly type: 'turn'; readonly room: string; readonly agentId: string; readonly seq: number }
  /**
   * An agent of this node called a tool (spec/agents.md, `tool_call`). `detail` (what it called,
   * with what, and what came back, scrubbed as the room got it) goes only to streams of users who
   * may read conversations' text; a viewer's stream gets the event without it.
   */
  | {
      readonly type: 'tool_call'
      readonly room: string
      readonly agentId: string
      readonly source: string
      readonly ok: boolean
      readonly latencyMs: number
      readonly detail?: { readonly name: string; readonly arguments: unknown; readonly result: string | null; readonly error: string | null }
    }

export type LiveListener = (event: LiveEvent) => void

export class LiveFeed {
  private readonly listeners = new Map<string, Set<LiveListener>>()
  private readonly accessChecks = new Set<() => void>()

  constructor(private readonly log: Logger) {}

  /** Hear a workspace's events; returns the unsubscribe function. */
  subscribe(workspaceId: string, listener: LiveListener): () => void {
    let set = this.listeners.get(workspaceId)
    if (!set) this.listeners.set(workspaceId, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.listeners.get(workspaceId) === set) this.listeners.delete(workspaceId)
    }
  }

  publish(workspaceId: string, event: LiveEvent): void {
    const set = this.listeners.get(workspaceId)
    if (!set) return
    for (const listener of set) {
      try {
        listener(event)
      } catch (e) {
        this.log.error({ err: e, event: event.type }, 'console live listener failed')
      }
    }
  }

  /** Run `check` whenever someone's access may have changed (a stream then ends if its own has). */
  onAccessChange(check: () => void): () => void {
    this.accessChecks.add(check)
    return () => void this.accessChecks.delete(check)
  }

  /** Sessions ended or memberships changed: let every stream look again at once, not at its next heartbeat. */
  accessChanged(): void {
    for (const check of [...this.accessChecks]) check()
  }

  /** Open streams, over all workspaces. */
  get subscribers(): number {
    let n = 0
    for (const set of this.listeners.values()) n += set.size
    return n
  }
}
