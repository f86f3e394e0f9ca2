/**
 * The ICE servers a client should use (`webrtc.iceServerUrls`): STUN as given, TURN with either
 * static credentials or, with `webrtc.turnSecret`, time-limited ones per client in the scheme of
 * coturn's `use-auth-secret` ("TURN REST API"): username = `<expiry unix seconds>:<workspace>:<client>`,
 * credential = base64(HMAC-SHA1(secret, username)). Hark itself needs none of them: its
 * candidates are host candidates (or the announced address).
 */
import { createHmac } from 'node:crypto'
import { ConfigError } from '../../core/extension.js'
import type { WebRtcSettings } from './settings.js'

/** How long a generated TURN credential stays valid. */
export const TURN_CREDENTIAL_TTL_SECONDS = 86_400

export interface ClientIceServer {
  readonly urls: ReadonlyArray<string>
  readonly username?: string
  readonly credential?: string
}

export type IceServerSource = (workspaceId: string, clientId: string, nowMs: number) => ReadonlyArray<ClientIceServer>

const SCHEME = /^(stun|stuns|turn|turns):[^\s,;<>"]+$/

/** Validate the settings once (at start) and return how to build a client's list. */
export const iceServerSource = (webrtc: WebRtcSettings): IceServerSource => {
  const { iceServerUrls, turnUsername, turnCredential, turnSecret } = webrtc
  const urls = (iceServerUrls ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
  for (const url of urls) {
    if (!SCHEME.test(url)) throw new ConfigError('webrtc.iceServerUrls', 'settings', `"${url}" is not a stun:, stuns:, turn: or turns: URL`)
  }
  const stun = urls.filter((u) => u.startsWith('stun'))
  const turn = urls.filter((u) => u.startsWith('turn'))
  if (turn.length > 0 && turnSecret === null && (turnUsername === null || turnCredential === null)) {
    throw new ConfigError('webrtc.iceServerUrls', 'settings', 'turn: URLs need webrtc.turnSecret, or webrtc.turnUsername and webrtc.turnCredential')
  }
  return (workspaceId, clientId, nowMs) => {
    const servers: ClientIceServer[] = []
    if (stun.length > 0) servers.push({ urls: stun })
    if (turn.length > 0) {
      if (turnSecret !== null) {
        const username = `${Math.floor(nowMs / 1000) + TURN_CREDENTIAL_TTL_SECONDS}:${workspaceId}:${clientId}`
        const credential = createHmac('sha1', turnSecret).update(username).digest('base64')
        servers.push({ urls: turn, username, credential })
      } else servers.push({ urls: turn, username: turnUsername!, credential: turnCredential! })
    }
    return servers
  }
}

const quoted = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`

/** The same servers as WHIP `Link` header values (RFC 9725 §4.6). */
export const iceServerLinks = (servers: ReadonlyArray<ClientIceServer>): string[] =>
  servers.flatMap((server) =>
    server.urls.map((url) =>
      server.username !== undefined && server.credential !== undefined
        ? `<${url}>; rel="ice-server"; username=${quoted(server.username)}; credential=${quoted(server.credential)}; credential-type="password"`
        : `<${url}>; rel="ice-server"`,
    ),
  )
