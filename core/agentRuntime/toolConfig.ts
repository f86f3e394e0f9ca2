/**
 * The part of an agent's config that says which tools it may call and within which bounds — the
 * same fields for every model-backed provider (`pipeline`, `openai-realtime`, an embedder's):
 * a provider spreads `toolConfigFields` into its config schema and hands the decoded values to a
 * `ToolRunner` (toolRunner.ts). Permissions are allow-lists per source with `*` wildcards,
 * matched against the tool's full name (`<clientId>/<tool>` for a device tool); no `tools`
 * field, or an empty list, means no tool of that source. An unknown source is refused as an
 * excess field of the provider's config.
 */
import * as Effect from 'effect/Effect'
import * as Schema from 'effect/Schema'
import type { FunctionEntry } from './functionTools.js'
import { validatorOf } from './jsonSchema.js'

/** Where a tool comes from (ToolInfo.source). */
export const TOOL_SOURCES = ['device', 'mcp', 'function'] as const
export type ToolSource = (typeof TOOL_SOURCES)[number]

export type ToolPermissions = { readonly [S in ToolSource]?: ReadonlyArray<string> }

export interface ToolBounds {
  /** Tool rounds the model may take in one turn before it must answer. */
  readonly maxToolRounds: number
  readonly toolTimeoutMs: number
  /** A result longer than this (characters) is cut before the model reads it. */
  readonly maxToolResultChars: number
}

/** An MCP server named in a preset; its headers and network policy are server settings (`agents.mcpServers`). */
export interface McpServerEntry {
  readonly name: string
  readonly url: string
  /** The server's own tool names the agent may see (`*` wildcards); absent: all of them. */
  readonly allowedTools?: ReadonlyArray<string>
}

export interface ToolConfig extends ToolBounds {
  readonly tools?: ToolPermissions
  readonly mcpServers?: ReadonlyArray<McpServerEntry>
  readonly functions?: ReadonlyArray<FunctionEntry>
  readonly functionsWebhookId?: string
}

const PATTERN = /^[A-Za-z0-9_.:@*/-]{1,200}$/

const patterns = (source: string) =>
  Schema.Array(
    Schema.String.check(Schema.isPattern(PATTERN)).annotate({
      description: `a ${source} tool name, * matching any characters (letters, digits and _ . : @ / - only)`,
    }),
  )
    .check(Schema.isMaxLength(64))
    .annotate({ description: `${source} tools this agent may call (allow-list with * wildcards)` })

const int = (minimum: number, maximum: number, fallback: number, description: string) =>
  Schema.Int.check(Schema.isBetween({ minimum, maximum }))
    .annotate({ description, default: fallback })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback)))

export const ToolPermissionsSchema = Schema.Struct({
  device: Schema.optionalKey(patterns('device')),
  mcp: Schema.optionalKey(patterns('mcp')),
  function: Schema.optionalKey(patterns('function')),
}).annotate({ description: 'which tools the agent may call, per source; absent or empty: none' })

/** A server name: the first part of its tools' names (`<server>/<tool>`) and its key in `agents.mcpServers`. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/

/** Syntax only (https, or http; no credentials, no fragment): where it resolves is checked when the agent connects. */
const mcpUrl = Schema.String.check(
  Schema.makeFilter((raw: string) => {
    if (raw.length > 2048) return 'at most 2048 characters'
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return 'not an absolute URL'
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// (or http://) URL'
    if (url.username !== '' || url.password !== '') return 'must not carry a user name or password (headers are server settings: agents.mcpServers)'
    if (url.hash !== '') return 'must not carry a fragment'
    return true
  }),
).annotate({ description: "the server's streamable HTTP endpoint" })

export const McpServerSchema = Schema.Struct({
  name: Schema.String.check(Schema.isPattern(MCP_SERVER_NAME)).annotate({
    description: 'names its tools <name>/<tool>; 1–32 letters, digits, _ and -',
  }),
  url: mcpUrl,
  allowedTools: Schema.optionalKey(
    Schema.Array(Schema.String.check(Schema.isPattern(PATTERN))).check(Schema.isMaxLength(64)).annotate({
      description: "the server's tool names the agent may see (* wildcards); absent: all",
    }),
  ),
})

const mcpServers = Schema.Array(McpServerSchema)
  .check(Schema.isMaxLength(8))
  .check(
    Schema.makeFilter((list: ReadonlyArray<{ readonly name: string }>) => {
      const seen = new Set<string>()
      for (const s of list) {
        if (seen.has(s.name)) return `two servers are named ${s.name}`
        seen.add(s.name)
      }
      return true
    }),
  )
  .annotate({ description: 'MCP servers (streamable HTTP) whose tools the agent may call, at most 8; headers live in the setting agents.mcpServers' })

const FunctionSchema = Schema.Struct({
  name: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{1,64}$/)).annotate({ description: 'the function\'s name, as the model and the back end see it: 1–64 letters, digits, _ and -' }),
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1024))),
  parameters: Schema.Record(Schema.String, Schema.Unknown)
    .check(
      Schema.makeFilter((schema: Readonly<Record<string, unknown>>) => {
        const v = validatorOf(schema)
        return typeof v === 'string' ? `is not JSON Schema: ${v.replace(/^its argument schema is not valid JSON Schema \((.*)\)$/, '$1')}` : true
      }),
    )
    .annotate({ description: 'JSON Schema of its arguments (checked when the config is written; arguments are validated against it before each call)' }),
})

const functions = Schema.Array(FunctionSchema)
  .check(Schema.isMaxLength(32))
  .check(
    Schema.makeFilter((list: ReadonlyArray<{ readonly name: string }>) => {
      const seen = new Set<string>()
      for (const f of list) {
        if (seen.has(f.name)) return `two functions are named ${f.name}`
        seen.add(f.name)
      }
      return true
    }),
  )
  .annotate({ description: 'back-end functions the agent may call, at most 32: a signed POST to the webhook endpoint functionsWebhookId' })

/** Spread into a provider's config Struct. */
export const toolConfigFields = {
  tools: Schema.optionalKey(ToolPermissionsSchema),
  mcpServers: Schema.optionalKey(mcpServers),
  functions: Schema.optionalKey(functions),
  functionsWebhookId: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^wh_[A-Za-z0-9]{1,64}$/)).annotate({
      description: "the workspace's webhook endpoint that answers the functions: its URL is called, signed with its signing secret",
    }),
  ),
  maxToolRounds: int(0, 10, 3, 'tool rounds the model may take in one turn before it must answer'),
  toolTimeoutMs: int(100, 60_000, 5000, 'a tool call that has not answered by then gives the model a timeout error, ms'),
  maxToolResultChars: int(100, 16_000, 4000, 'a tool result is cut to this many characters before the model reads it'),
}

/** A wildcard pattern as a RegExp: `*` is any run of characters, everything else literal. */
const compile = (pattern: string): RegExp => new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
const compiled = new Map<string, RegExp>()

/** True when `permissions` let the agent call `name` of `source`. */
export const toolAllowed = (permissions: ToolPermissions | undefined, source: string, name: string): boolean => {
  const list = (permissions as Record<string, ReadonlyArray<string> | undefined> | undefined)?.[source]
  if (!list) return false
  return list.some((p) => {
    let re = compiled.get(p)
    if (!re) {
      if (compiled.size > 1000) compiled.clear()
      compiled.set(p, (re = compile(p)))
    }
    return re.test(name)
  })
}
