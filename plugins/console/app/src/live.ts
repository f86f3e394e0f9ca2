/**
 * The live feed of a workspace (server-sent events, GET /api/workspaces/{id}/events): presence,
 * client changes, rooms, speaking, agents, agents' conversation turns and tool calls. Pages subscribe to the kinds they show and read again
 * (or apply the event) when one arrives; nothing polls.
 */
import { useEffect, useRef } from 'preact/hooks'

export type LiveEvent =
  | { type: 'presence'; clientId: string; online: boolean; transport: string }
  | { type: 'client'; clientId: string; change: 'created' | 'updated' | 'deleted' }
  | { type: 'room'; room: string }
  | { type: 'speaking'; room: string; participantId: string; speaking: boolean }
  | { type: 'agent'; room: string; agentId: string; state: 'started' | 'stopped' }
  | { type: 'turn'; room: string; agentId: string; seq: number }
  | ToolCallEvent

/** An agent called a tool; `detail` only for a role that reads conversations' text. */
export interface ToolCallEvent {
  readonly type: 'tool_call'
  readonly room: string
  readonly agentId: string
  readonly source: string
  readonly ok: boolean
  readonly latencyMs: number
  readonly detail?: { readonly name: string; readonly arguments: unknown; readonly result: string | null; readonly error: string | null }
}

const KINDS = ['presence', 'client', 'room', 'speaking', 'agent', 'turn', 'tool_call'] as const

export class LiveBus {
  private readonly listeners = new Set<(e: LiveEvent) => void>()
  private source: EventSource | null = null
  /** True while the stream is open (pages may say "live"). */
  connected = false

  constructor(
    readonly workspaceId: string,
    private readonly onEnded: () => void,
  ) {}

  open(): void {
    const source = new EventSource(`/api/workspaces/${encodeURIComponent(this.workspaceId)}/events`)
    this.source = source
    for (const kind of KINDS) {
      source.addEventListener(kind, (e) => {
        const event = JSON.parse((e as MessageEvent<string>).data) as LiveEvent
        for (const l of this.listeners) l(event)
      })
    }
    source.addEventListener('ready', () => (this.connected = true))
    source.addEventListener('ended', () => {
      source.close()
      this.connected = false
      this.onEnded()
    })
    source.onerror = () => {
      this.connected = false
    }
  }

  close(): void {
    this.source?.close()
    this.source = null
  }

  subscribe(listener: (e: LiveEvent) => void): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }
}

/** Call `handler` for each event of the workspace; the latest handler is used, no resubscribing. */
export const useLive = (bus: LiveBus, handler: (e: LiveEvent) => void) => {
  const latest = useRef(handler)
  latest.current = handler
  useEffect(() => bus.subscribe((e) => latest.current(e)), [bus])
}

/** Call `f` once shortly after a burst of calls (a refetch after several events). */
export const useDebounced = (f: () => void, ms = 100) => {
  const timer = useRef<number | undefined>(undefined)
  const latest = useRef(f)
  latest.current = f
  useEffect(() => () => window.clearTimeout(timer.current), [])
  return () => {
    window.clearTimeout(timer.current)
    timer.current = window.setTimeout(() => latest.current(), ms)
  }
}
