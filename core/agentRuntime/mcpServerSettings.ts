/**
 * The server side of the MCP servers presets name: `agents.mcpServers`, a JSON object from a
 * server's name to `{headers?, allowPrivateNetworks?}`. Headers (an `Authorization` bearer, an
 * API key) are credentials: they live here, like provider keys, never in a preset, a response or
 * an event. Parsed with no dependency, because the settings module checks it at start.
 */

export interface McpServerSettings {
  /** Sent with every request to the server. */
  readonly headers: Readonly<Record<string, string>>
  /** A URL whose host resolves to a loopback, private or other non-public address is refused unless true. */
  readonly allowPrivateNetworks: boolean
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The setting's value as a map, or why it is not one (a message for `invalid setting agents.mcpServers`). */
export const parseMcpServerSettings = (raw: string): ReadonlyMap<string, McpServerSettings> | string => {
  const out = new Map<string, McpServerSettings>()
  if (raw.trim() === '') return out
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return 'not JSON: expected {"<server>": {"headers": {"<name>": "<value>"}, "allowPrivateNetworks": false}}'
  }
  if (!isObject(parsed)) return 'must be a JSON object keyed by server name'
  for (const [name, entry] of Object.entries(parsed)) {
    if (!NAME.test(name)) return `server name ${JSON.stringify(name.slice(0, 40))}: 1–32 letters, digits, _ and -`
    if (!isObject(entry)) return `${name}: must be an object {headers?, allowPrivateNetworks?}`
    const extra = Object.keys(entry).find((k) => k !== 'headers' && k !== 'allowPrivateNetworks')
    if (extra !== undefined) return `${name}.${extra}: unknown field (headers, allowPrivateNetworks)`
    const headers: Record<string, string> = {}
    if (entry.headers !== undefined) {
      if (!isObject(entry.headers)) return `${name}.headers: must be an object of header names to strings`
      for (const [h, v] of Object.entries(entry.headers)) {
        if (!HEADER_NAME.test(h)) return `${name}.headers: ${JSON.stringify(h.slice(0, 40))} is not a header name`
        if (typeof v !== 'string' || /[\r\n\0]/.test(v)) return `${name}.headers.${h}: must be a string on one line`
        headers[h] = v
      }
    }
    if (entry.allowPrivateNetworks !== undefined && typeof entry.allowPrivateNetworks !== 'boolean') {
      return `${name}.allowPrivateNetworks: must be true or false`
    }
    out.set(name, { headers, allowPrivateNetworks: entry.allowPrivateNetworks === true })
  }
  return out
}
