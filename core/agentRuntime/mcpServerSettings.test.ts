/**
 * The setting agents.mcpServers: a JSON object of server name → {headers?, allowPrivateNetworks?},
 * from a variable or the config file, refused at start with the offending server and field named
 * (and never the header's value); the per-agent part of it holds only the servers a config names.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, resolveSettings } from '../config.js'
import { toolSourcesFor } from './agentToolbox.js'
import { parseMcpServerSettings } from './mcpServerSettings.js'

const refusal = (value: string): string => {
  try {
    resolveSettings({ env: { HARK_AGENTS_MCP_SERVERS: value } })
    return 'accepted'
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return (e as Error).message
  }
}

describe('agents.mcpServers', () => {
  it('reads servers with headers and their network policy; empty means none', () => {
    const value = JSON.stringify({ crm: { headers: { Authorization: 'Bearer s3cret-value' } }, 'lab-1': { allowPrivateNetworks: true } })
    expect(resolveSettings({ env: { HARK_AGENTS_MCP_SERVERS: value } }).agents.mcpServers).toBe(value)
    const parsed = parseMcpServerSettings(value)
    expect(parsed instanceof Map && [...parsed]).toEqual([
      ['crm', { headers: { Authorization: 'Bearer s3cret-value' }, allowPrivateNetworks: false }],
      ['lab-1', { headers: {}, allowPrivateNetworks: true }],
    ])
    expect(parseMcpServerSettings('')).toEqual(new Map())
    expect(resolveSettings({}).agents.mcpServers).toBe('')
  })

  it('refuses a malformed value at start, naming the server and field but not the secret', () => {
    expect(refusal('{not json')).toMatch(/agents\.mcpServers .*HARK_AGENTS_MCP_SERVERS.*not JSON/)
    expect(refusal('[1]')).toMatch(/must be a JSON object keyed by server name/)
    expect(refusal('{"a/b": {}}')).toMatch(/server name "a\/b": 1–32 letters/)
    expect(refusal('{"crm": {"url": "https://x"}}')).toMatch(/crm\.url: unknown field \(headers, allowPrivateNetworks\)/)
    expect(refusal('{"crm": {"headers": {"Bad Header": "s3cret-value"}}}')).toMatch(/crm\.headers: "Bad Header" is not a header name/)
    const multiline = refusal('{"crm": {"headers": {"Authorization": "s3cret-value\\r\\nX: y"}}}')
    expect(multiline).toMatch(/crm\.headers\.Authorization: must be a string on one line/)
    expect(multiline).not.toContain('s3cret-value')
    expect(refusal('{"crm": {"allowPrivateNetworks": "yes"}}')).toMatch(/crm\.allowPrivateNetworks: must be true or false/)
  })

  it('hands an agent only the settings of the servers its config names', () => {
    const setting = JSON.stringify({ crm: { headers: { Authorization: 'Bearer a' } }, billing: { headers: { Authorization: 'Bearer b' } } })
    const noFunctions = () => ({ unavailable: 'none' })
    const spec = toolSourcesFor({ mcpServers: [{ name: 'crm', url: 'https://crm.example/mcp' }, { name: 'other', url: 'https://o.example' }] }, setting, noFunctions)
    expect([...spec.mcpServers.keys()]).toEqual(['crm'])
    expect(spec.functions).toBeNull()
    expect(toolSourcesFor({}, setting, noFunctions).mcpServers.size).toBe(0)
  })
})
