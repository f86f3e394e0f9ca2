/**
 * What can be known of an MCP server's URL when a config is written or dispatched, without the
 * network: a URL whose host is an IP literal outside the public unicast ranges (loopback, private,
 * link-local, …), or plain http, is refused with 400 unless the server's `allowPrivateNetworks`
 * (setting `agents.mcpServers`) is set — the webhooks' rules (core/webhooks/addressGuard.ts). A
 * host name is resolved and checked when the agent connects, and again on every request.
 */
import { isIP } from 'node:net'
import { ValidationFailed } from '../errors.js'
import { addressRange, hostOf } from '../webhooks/addressGuard.js'
import { mcpServersOf } from './agentToolbox.js'
import { parseMcpServerSettings } from './mcpServerSettings.js'

/** Throws ValidationFailed (`<field>.mcpServers.<i>.url`) for the first server the settings do not let it use. */
export const checkMcpServerUrls = (config: unknown, mcpServersSetting: string, field: string): void => {
  const servers = mcpServersOf(config)
  if (servers.length === 0) return
  const settings = parseMcpServerSettings(mcpServersSetting)
  for (const [i, server] of servers.entries()) {
    if (typeof settings !== 'string' && settings.get(server.name)?.allowPrivateNetworks === true) continue
    const at = `${field}.mcpServers.${i}.url`
    const allow = `"allowPrivateNetworks": true for ${server.name} in the setting agents.mcpServers`
    const url = new URL(server.url)
    if (url.protocol === 'http:') throw new ValidationFailed({ field: at, message: `${at} must be https (http only with ${allow})` })
    const host = hostOf(url)
    if (isIP(host) === 0) continue
    const range = addressRange(host)
    if (range !== 'unicast') {
      throw new ValidationFailed({ field: at, message: `${at}: ${host} is a ${range} address, not a public one (allowed only with ${allow})` })
    }
  }
}
