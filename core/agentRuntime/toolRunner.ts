/**
 * Tool calls as a model-backed provider makes them: the agent's tools (`ctx.tools`) offered to
 * the model under the names its API accepts (`^[a-zA-Z0-9_-]{1,64}$`), only those the agent's
 * permissions allow (toolConfig.ts); a call checked before it goes out (known, allowed, JSON
 * arguments valid against the tool's JSON Schema — ajv), bounded (a timeout, the result cut to a
 * size), and reported to the room as an `agent.event {kind: "tool_call", name, source,
 * arguments, result | error, latencyMs}` with secrets scrubbed. Whatever goes wrong is an error
 * result for the model, never a throw: a failing tool never fails the agent.
 */
import { createRequire } from 'node:module'
import type { Ajv as AjvInstance, ValidateFunction } from 'ajv'
import type { AgentContext, ToolInfo } from '../agentProvider.js'
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

/** Result text kept in the room's `tool_call` event (the model may get more, up to maxToolResultChars). */
export const EVENT_RESULT_CHARS = 2000

/**
 * ajv (63 modules) loads at the first schema compiled, not with `hark/provider`: the CLI's commands
 * read the providers' descriptors and must not pay for it (cli/startup.test.ts).
 */
let ajvInstance: AjvInstance | null = null
const ajv = (): AjvInstance => {
  if (ajvInstance === null) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv')
    ajvInstance = new Ajv({ strict: false, allErrors: false, validateSchema: true })
  }
  return ajvInstance
}
const validators = new WeakMap<object, ValidateFunction | string>()

/** The tool's argument validator, or why its schema is not usable JSON Schema. */
const validatorOf = (schema: Readonly<Record<string, unknown>>): ValidateFunction | string => {
  let v = validators.get(schema)
  if (v === undefined) {
    try {
      v = ajv().compile(schema as Record<string, unknown>)
    } catch (e) {
      v = `its argument schema is not valid JSON Schema (${String((e as Error).message).slice(0, 160)})`
    }
    validators.set(schema, v)
  }
  return v
}

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
    private readonly secrets: ReadonlyArray<string> = [],
  ) {}

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
    let args: unknown = {}
    const report = (outcome: ToolOutcome, reason?: string): ToolOutcome => {
      const event: Record<string, unknown> = {
        kind: 'tool_call',
        name: tool?.name ?? fnName,
        source: tool?.source ?? 'unknown',
        arguments: scrubbed(args, this.secrets),
        latencyMs: Math.round(performance.now() - begin),
      }
      if (outcome.isError) event.error = scrubSecrets(reason ?? outcome.output, this.secrets).slice(0, EVENT_RESULT_CHARS)
      else event.result = scrubSecrets(outcome.output, this.secrets).slice(0, EVENT_RESULT_CHARS)
      this.ctx.emit(event)
      return outcome
    }
    const refuse = (why: string) => report({ output: `error: ${why}`, isError: true }, why)
    try {
      args = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson)
    } catch {
      args = argumentsJson.slice(0, 200)
      return refuse('the arguments are not JSON')
    }
    if (!tool) return refuse(`there is no tool named ${fnName}`)
    if (!this.allowed(tool)) return refuse(`the tool ${tool.name} is not allowed for this agent`)
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
      return report({ output: text, isError: false })
    } catch (e) {
      this.ctx.log.warn({ tool: tool.name, error: scrubSecrets(String(e), this.secrets) }, 'tool call threw')
      return refuse('the tool failed')
    } finally {
      clearTimeout(timer)
      if (onAbort) signal?.removeEventListener('abort', onAbort)
    }
  }
}
