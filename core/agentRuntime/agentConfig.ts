/**
 * An agent's config: a preset's stored config with a dispatch's overrides merged over it, decoded
 * with the provider's schema. Unknown fields are refused, and so is any field that carries a
 * credential or an endpoint, whatever the provider's schema says: those live in server settings.
 * Configs nest at most MAX_JSON_DEPTH levels: deeper ones are refused before any walk.
 */
import * as Schema from 'effect/Schema'
import * as SchemaIssue from 'effect/SchemaIssue'
import type { AgentProvider } from '../agentProvider.js'
import { ValidationFailed } from '../errors.js'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../jsonDepth.js'

/**
 * Field names (compared lowercased, without `_` and `-`) that are server-side secrets. A name
 * ending in apikey, secret, password or token also counts — but not one merely containing "token"
 * (an LLM's `maxOutputTokens` is fine).
 */
const SECRET_NAMES = new Set([
  'apikey', 'apikeyenv', 'key', 'token', 'accesstoken', 'authtoken', 'bearer', 'secret', 'clientsecret',
  'password', 'authorization', 'credentials', 'masterkey', 'baseurl', 'endpoint', 'url', 'host',
])
const SECRET_SUFFIXES = ['apikey', 'secret', 'password', 'token']

export const isSecretField = (name: string): boolean => {
  const n = name.toLowerCase().replace(/[-_]/g, '')
  return SECRET_NAMES.has(n) || SECRET_SUFFIXES.some((s) => n.endsWith(s))
}

/**
 * `mcpServers[i].url` names a server a preset may choose (as a webhook's URL is chosen); its
 * credentials (headers) stay server settings (`agents.mcpServers`), and the URL is checked
 * against the SSRF rules when the agent connects.
 */
const isMcpServerUrl = (path: ReadonlyArray<string>, key: string): boolean =>
  key === 'url' && path.length === 2 && path[0] === 'mcpServers' && /^\d+$/.test(path[1]!)

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

const tooDeep = (field: string) =>
  new ValidationFailed({ field, message: `${field} nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels` })

/** The path of the first secret-named field in `value` (at most MAX_JSON_DEPTH levels down), or null. */
export const findSecretField = (value: unknown, path: ReadonlyArray<string> = []): string | null => {
  if (path.length >= MAX_JSON_DEPTH && typeof value === 'object' && value !== null) throw tooDeep(path.join('.'))
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = findSecretField(v, [...path, String(i)])
      if (found) return found
    }
    return null
  }
  if (!isPlainObject(value)) return null
  for (const [k, v] of Object.entries(value)) {
    if (isSecretField(k) && !isMcpServerUrl(path, k)) return [...path, k].join('.')
    const found = findSecretField(v, [...path, k])
    if (found) return found
  }
  return null
}

/**
 * Overrides merged over a base: objects merge key by key, anything else (arrays too) replaces.
 * The merge goes no deeper than MAX_JSON_DEPTH levels (a deeper pair is refused as `overrides`).
 */
export const mergeConfig = (base: unknown, overrides: unknown, level = 1): unknown => {
  if (!isPlainObject(base) || !isPlainObject(overrides)) return overrides === undefined ? base : overrides
  if (level > MAX_JSON_DEPTH) throw tooDeep('overrides')
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(overrides)) out[k] = k in out ? mergeConfig(out[k], v, level + 1) : v
  return out
}

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Check a config object (a preset's, or overrides) for secret fields, then decode `merged` with the
 * provider's schema. `field` names the request field in error messages ("config", "overrides").
 */
export const validateAgentConfig = (
  providerName: string,
  provider: AgentProvider,
  merged: unknown,
  field: string,
  raw: unknown = merged,
): unknown => {
  if (raw !== undefined && !isPlainObject(raw)) {
    throw new ValidationFailed({ field, message: `${field} must be an object` })
  }
  if (exceedsJsonDepth(raw) || exceedsJsonDepth(merged)) throw tooDeep(field)
  const secret = findSecretField(raw)
  if (secret) {
    throw new ValidationFailed({
      field: `${field}.${secret}`,
      message: `${field}.${secret} is a server-side secret or endpoint; it belongs in the engine's settings, never in an agent config`,
    })
  }
  const value = merged ?? {}
  // Effect lets an empty Struct accept any object, excess fields included: check the top level here.
  const closed = closedFields(provider)
  const excess = closed && isPlainObject(value) ? Object.keys(value).find((k) => !closed.has(k)) : undefined
  if (excess !== undefined) {
    throw new ValidationFailed({ field: `${field}.${excess}`, message: `${field}.${excess} is not a setting of the ${providerName} provider` })
  }
  const decoded = Schema.decodeUnknownResult(provider.configSchema, { onExcessProperty: 'error' })(value)
  if (decoded._tag === 'Success') return decoded.success
  const issue = formatIssue(decoded.failure.issue).issues[0]
  const path = (issue?.path ?? []).map(String).join('.')
  const at = path ? `${field}.${path}` : field
  const what = issue?.message === 'Expected no excess property' ? `is not a setting of the ${providerName} provider` : issue?.message ?? 'is invalid'
  throw new ValidationFailed({ field: at, message: `${at} ${what.charAt(0).toLowerCase()}${what.slice(1)}` })
}

const fieldsOf = new WeakMap<AgentProvider, ReadonlySet<string> | null>()

/** The top-level fields of a provider's config when its schema is a plain struct, else null. */
const closedFields = (provider: AgentProvider): ReadonlySet<string> | null => {
  if (!fieldsOf.has(provider)) {
    const ast = provider.configSchema.ast
    const closed = ast._tag === 'Objects' && ast.indexSignatures.length === 0
    fieldsOf.set(provider, closed ? new Set(ast.propertySignatures.map((p) => String(p.name))) : null)
  }
  return fieldsOf.get(provider)!
}

/** The JSON Schema (draft 2020-12) of a provider's config, for listings and documentation. */
export const configJsonSchema = (provider: AgentProvider): unknown => {
  try {
    return Schema.toJsonSchemaDocument(provider.configSchema, { onExcessProperty: 'error' }).schema
  } catch {
    return { type: 'object' }
  }
}
