/**
 * Tool calls as the engine sees them: every `agent.event {kind: "tool_call"}` a session emits
 * (toolRunner.ts) is counted and timed in /metrics and handed to the dispatcher's tool-call
 * listeners (the `agent.tool_called` webhook listens). Built from the event as the room got it,
 * so an isolated provider's calls count the same as an in-process one's.
 */
import { Counter, Histogram, type Registry } from 'prom-client'
import type { AgentView } from './liveAgent.js'

export interface AgentToolCallEvent {
  readonly workspaceId: string
  readonly agent: AgentView
  readonly tool: string
  readonly source: string
  readonly arguments: unknown
  readonly ok: boolean
  readonly result: string | null
  readonly error: string | null
  readonly latencyMs: number
}

const str = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback)

/** The engine's view of a session's `tool_call` event. */
export const toolCallOf = (workspaceId: string, agent: AgentView, e: Readonly<Record<string, unknown>>): AgentToolCallEvent => ({
  workspaceId,
  agent,
  tool: str(e.name, 'unknown'),
  source: str(e.source, 'unknown'),
  arguments: e.arguments ?? null,
  ok: e.error === undefined,
  result: typeof e.result === 'string' ? e.result : null,
  error: e.error === undefined ? null : str(e.error, 'error'),
  latencyMs: typeof e.latencyMs === 'number' && Number.isFinite(e.latencyMs) && e.latencyMs >= 0 ? Math.round(e.latencyMs) : 0,
})

export class ToolCallMetrics {
  private readonly calls: Counter
  private readonly seconds: Histogram

  constructor(registry: Registry) {
    this.calls = new Counter({
      name: 'hark_agent_tool_calls_total',
      help: 'Tool calls agents made, by provider, source and outcome (ok or error)',
      labelNames: ['provider', 'source', 'outcome'],
      registers: [registry],
    })
    this.seconds = new Histogram({
      name: 'hark_agent_tool_call_seconds',
      help: 'Tool call latency as the agent measured it (call to result)',
      labelNames: ['provider', 'source'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    })
  }

  record(e: AgentToolCallEvent): void {
    // Only the sources a runtime knows: a provider's odd string must not grow the label set.
    const source = ['device', 'mcp', 'function'].includes(e.source) ? e.source : 'other'
    this.calls.inc({ provider: e.agent.provider, source, outcome: e.ok ? 'ok' : 'error' })
    this.seconds.observe({ provider: e.agent.provider, source }, e.latencyMs / 1000)
  }
}
