/**
 * Live control of a running agent (`POST /agents/{id}/say`, `…/interrupt`, `PATCH /agents/{id}`):
 * checked here, carried out by the provider session's optional `control` (core/agentProvider.ts).
 * An operation the session lacks is `AgentControlUnsupported` (409 `not_supported`, naming the
 * provider and the operation); an agent that is not running is a `Conflict`. An update merges the
 * new instructions and tool permissions over the agent's config, decodes the result with the
 * provider's schema (so the same bounds and refusals hold as at dispatch), swaps it in and tells
 * the session which fields changed.
 */
import type { AgentControl, AgentProvider, AgentUpdateField } from '../agentProvider.js'
import { AgentControlUnsupported, Conflict, ValidationFailed } from '../errors.js'
import { validateAgentConfig } from './agentConfig.js'
import type { LiveAgent } from './liveAgent.js'
import type { ToolPermissions } from './toolConfig.js'

/** Longest text `say` takes (characters). */
export const MAX_SAY_CHARS = 2000

export type AgentControlRequest =
  | { readonly op: 'say'; readonly text: string; readonly interrupt: boolean }
  | { readonly op: 'interrupt' }
  | { readonly op: 'update'; readonly instructions?: string; readonly tools?: ToolPermissions }

const WHAT: Record<AgentControlRequest['op'], string> = {
  say: 'say text on request',
  interrupt: 'be interrupted on request',
  update: 'change its instructions or tools while it runs',
}

const METHOD: Record<AgentControlRequest['op'], keyof AgentControl> = { say: 'say', interrupt: 'interrupt', update: 'update' }

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** Carry out `request` on `agent` (of `provider`); throws the domain error a caller maps to its status. */
export const controlAgent = (agent: LiveAgent, provider: AgentProvider, request: AgentControlRequest): void => {
  const providerName = agent.spec.providerName
  if (agent.state !== 'running') throw new Conflict({ message: `agent ${agent.agentId} is not running (${agent.state})` })
  const control = agent.control
  if (typeof control?.[METHOD[request.op]] !== 'function') {
    throw new AgentControlUnsupported({ message: `the ${providerName} provider cannot ${WHAT[request.op]} (${request.op} is not supported)` })
  }
  switch (request.op) {
    case 'say': {
      const text = request.text.trim()
      if (text.length === 0) throw new ValidationFailed({ field: 'text', message: 'text must not be blank' })
      control!.say!(text.slice(0, MAX_SAY_CHARS), { interrupt: request.interrupt })
      return
    }
    case 'interrupt':
      control!.interrupt!()
      return
    case 'update': {
      const changed: AgentUpdateField[] = []
      const base = isObject(agent.config) ? agent.config : {}
      const next: Record<string, unknown> = { ...base }
      if (request.instructions !== undefined) {
        next.instructions = request.instructions
        changed.push('instructions')
      }
      if (request.tools !== undefined) {
        next.tools = request.tools
        changed.push('tools')
      }
      if (changed.length === 0) throw new ValidationFailed({ field: 'body', message: 'give instructions, tools or both' })
      // The same checks as a dispatch's overrides (unknown fields, bounds, secret-named fields).
      const raw = Object.fromEntries(changed.map((f) => [f, next[f]]))
      const decoded = validateAgentConfig(providerName, provider, next, 'body', raw)
      agent.reconfigure(decoded)
      control!.update!(changed)
      return
    }
  }
}
