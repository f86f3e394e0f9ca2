/**
 * Tool calls as a model-backed provider makes them: the agent's tools (`ctx.tools`) offered to
 * the model under the names its API accepts (`^[a-zA-Z0-9_-]{1,64}$`), only those the agent's
 * permissions allow (toolConfig.ts); a call checked before it goes out (known, allowed, JSON
 * arguments valid against the tool's JSON Schema — ajv), bounded (a timeout, the result cut to a
 * size), and reported to the room as an `agent.event {kind: "tool_call", name, source,
 * arguments, result | error, latencyMs}` with secrets scrubbed. Whatever goes wrong is an error
 * result for the model, never a throw: a failing tool never fails the agent.
 */
import type { AgentContext, ToolInfo } from '../agentProvider.js'
import { validatorOf } from './jsonSchema.js'
import { scrubSecrets, REDACTED } from './redact.js'
import { toolAllowed, type ToolConfig } from './toolConfig.js'

/** What the model is offered for one tool (chat completions' `function`, realtime's `tools[]`). */
export interface ModelFunction {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
}

/** What goes back to the model. */
export interface ToolOutcome {
  readonly output: string
  readonly isError: boolean
}

/** An error result's output: this, then the reason in words (the room's event carries the reason). */
export const ERROR_PREFIX = 'error: '

/** Result text kept in the room's `tool_call` event (the model may get more, up to maxToolResultChars). */
export const EVENT_RESULT_CHARS = 2000

/** Model-safe unique names for every tool, in list order (stable while the list is). */
const modelNames = (tools: ReadonlyArray<ToolInfo>): Map<string, ToolInfo> => {
  const byName = new Map<string, ToolInfo>()
  for (const t of tools) {
    const base = t.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 60) || 'tool'
    let name = base
    for (let n = 2; byName.has(name); n++) name = `${base}_${n}`
    byName.set(name, t)
  }
  return byName
}

const SECRET_KEY = /pass(word)?|secret|token|api[-_]?key|authori[sz]ation|credential/i

/** Arguments as the room may see them: secret-named fields and secret values replaced. */
const scrubbed = (value: unknown, secrets: ReadonlyArray<string>, depth = 0): unknown => {
  if (typeof value === 'string') return scrubSecrets(value, secrets)
  if (depth > 8 || typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map((v) => scrubbed(v, secrets, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? REDACTED : scrubbed(v, secrets, depth + 1)]))
}

export class ToolRunner {
  constructor(
    private readonly ctx: Pick<AgentContext, 'tools' | 'emit' | 'log'>,
    /** Read at every use: a live change of permissions applies to the next offer and call. */
    private readonly config: () => ToolConfig,
    private readonly providerSecrets: ReadonlyArray<string> = [],
  ) {}

  /** The provider's secrets and the tools' own (an MCP server's header values). */
  private get secrets(): ReadonlyArray<string> {
    const own = this.ctx.tools.secrets?.() ?? []
    return own.length === 0 ? this.providerSecrets : [...this.providerSecrets, ...own]
  }

  private allowed(tool: ToolInfo): boolean {
    return toolAllowed(this.config().tools, tool.source, tool.name)
  }

  /** The functions to offer the model now: allowed tools whose schema compiles. */
  functions(): ModelFunction[] {
    const out: ModelFunction[] = []
    for (const [name, tool] of modelNames(this.ctx.tools.list())) {
      if (!this.allowed(tool) || typeof validatorOf(tool.inputSchema) === 'string') continue
      out.push({ name, description: tool.description || tool.tool, parameters: tool.inputSchema })
    }
    return out
  }

  /** Carry out the model's call of `fnName` with `argumentsJson`; resolves with what the model reads. */
  async call(fnName: string, argumentsJson: string, signal?: AbortSignal): Promise<ToolOutcome> {
    const begin = performance.now()
    const tool = modelNames(this.ctx.tools.list()).get(fnName)
    let args: unknown
    try {
      args = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson)
    } catch {
      return this.refuse(tool, fnName, argumentsJson.slice(0, 200), begin, 'the arguments are not JSON')
    }
    if (!tool) return this.refuse(tool, fnName, args, begin, `there is no tool named ${fnName}`)
    if (!this.allowed(tool)) return this.refuse(tool, fnName, args, begin, `the tool ${tool.name} is not allowed for this agent`)
    return this.invoke(tool, args, signal, begin)
  }

  /**
   * A call the provider decided on itself, not the model (the local provider's command grammar
   * names its tools): the caller has checked the permission; validated, bounded and reported as
   * the model's calls are.
   */
  callTool(tool: ToolInfo, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutcome> {
    return this.invoke(tool, args, signal, performance.now())
  }

  private async invoke(tool: ToolInfo, args: unknown, signal: AbortSignal | undefined, begin: number): Promise<ToolOutcome> {
    const refuse = (why: string) => this.refuse(tool, tool.name, args, begin, why)
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return refuse('the arguments must be a JSON object')
    const validate = validatorOf(tool.inputSchema)
    if (typeof validate === 'string') return refuse(`the tool ${tool.name} cannot be called: ${validate}`)
    if (!validate(args)) {
      const e = validate.errors?.[0]
      return refuse(`invalid arguments: ${e ? `${e.instancePath || '(the object)'} ${e.message ?? 'is invalid'}` : 'they do not match the schema'}`)
    }
    const { toolTimeoutMs, maxToolResultChars } = this.config()
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    try {
      const result = await Promise.race([
        this.ctx.tools.call(tool.name, args as Record<string, unknown>, { timeoutMs: toolTimeoutMs }),
        new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), toolTimeoutMs + 50))),
        new Promise<'aborted'>((resolve) => {
          onAbort = () => resolve('aborted')
          if (signal?.aborted) onAbort()
          else signal?.addEventListener('abort', onAbort, { once: true })
        }),
      ])
      if (result === 'timeout') return refuse(`the tool did not answer within ${toolTimeoutMs} ms`)
      if (result === 'aborted') return refuse('the call was abandoned (the turn was interrupted)')
      if (result.isError) {
        const why = result.error === 'timeout' ? `the tool did not answer within ${toolTimeoutMs} ms` : result.text || 'the tool failed'
        return refuse(why)
      }
      const text = result.text.length > maxToolResultChars ? `${result.text.slice(0, maxToolResultChars)}… [cut: ${result.text.length - maxToolResultChars} more characters]` : result.text
      return this.report(tool, tool.name, args, begin, { output: text, isError: false })
    } catch (e) {
      this.ctx.log.warn({ tool: tool.name, error: scrubSecrets(String(e), this.secrets) }, 'tool call threw')
      return refuse('the tool failed')
    } finally {
      clearTimeout(timer)
      if (onAbort) signal?.removeEventListener('abort', onAbort)
    }
  }

  private refuse(tool: ToolInfo | undefined, name: string, args: unknown, begin: number, why: string): ToolOutcome {
    return this.report(tool, name, args, begin, { output: `${ERROR_PREFIX}${why}`, isError: true })
  }

  /** The room's `tool_call` event of one call, then the outcome unchanged. */
  private report(tool: ToolInfo | undefined, name: string, args: unknown, begin: number, outcome: ToolOutcome): ToolOutcome {
    const event: Record<string, unknown> = {
      kind: 'tool_call',
      name: tool?.name ?? name,
      source: tool?.source ?? 'unknown',
      arguments: scrubbed(args, this.secrets),
      latencyMs: Math.round(performance.now() - begin),
    }
    if (outcome.isError) event.error = scrubSecrets(outcome.output.slice(ERROR_PREFIX.length), this.secrets).slice(0, EVENT_RESULT_CHARS)
    else event.result = scrubSecrets(outcome.output, this.secrets).slice(0, EVENT_RESULT_CHARS)
    this.ctx.emit(event)
    return outcome
  }
}
