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

/** Where a tool comes from (ToolInfo.source). */
export const TOOL_SOURCES = ['device'] as const
export type ToolSource = (typeof TOOL_SOURCES)[number]

export type ToolPermissions = { readonly [S in ToolSource]?: ReadonlyArray<string> }

export interface ToolBounds {
  /** Tool rounds the model may take in one turn before it must answer. */
  readonly maxToolRounds: number
  readonly toolTimeoutMs: number
  /** A result longer than this (characters) is cut before the model reads it. */
  readonly maxToolResultChars: number
}

export interface ToolConfig extends ToolBounds {
  readonly tools?: ToolPermissions
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
}).annotate({ description: 'which tools the agent may call, per source; absent or empty: none' })

/** Spread into a provider's config Struct. */
export const toolConfigFields = {
  tools: Schema.optionalKey(ToolPermissionsSchema),
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
