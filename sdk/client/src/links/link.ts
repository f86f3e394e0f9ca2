/**
 * One connection attempt of a session, whatever carries it: a link delivers the server's JSON
 * events and audio frames, takes control messages (and, on WebSocket, audio frames), and says
 * once when its transport is gone. Reconnection makes a new link; the session outlives them.
 */
import type { HarkClientError } from '../errors.js'
import type { AudioMode } from '../protocol.js'

export interface LinkHandlers {
  /** One server event, as the JSON text it arrived in. */
  event(text: string): void
  /** One downlink audio frame (WebSocket): the 6-byte header, then the Opus packet. */
  audio(frame: Uint8Array): void
  /** The transport is gone, not by `close()`: why, as far as the transport knows. */
  closed(error: HarkClientError): void
}

export interface Link {
  sendControl(text: string): void
  /** Send one uplink frame; false when this link carries no audio frames (WebRTC sends RTP) or is not open. */
  sendAudio(frame: Uint8Array<ArrayBuffer>): boolean
  /** Leave: end the session on the server side and release the transport. */
  close(): Promise<void>
}

export interface LinkOpener {
  readonly transport: 'websocket' | 'webrtc'
  /** Open a link with `token`; resolves once the transport is open (the `session` event comes next), rejects with a typed error. */
  open(token: string, handlers: LinkHandlers, audioMode: AudioMode): Promise<Link>
}

/** The gateway's https:// and wss:// bases from what the caller gave (either scheme, with or without a path). */
export interface GatewayUrls {
  readonly http: string
  readonly ws: string
}

/** The https:// and wss:// bases of a gateway URL given with any of the four schemes; null when it is none of them. */
export const gatewayUrls = (url: string): GatewayUrls | null => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  const secure = parsed.protocol === 'https:' || parsed.protocol === 'wss:'
  if (!secure && parsed.protocol !== 'http:' && parsed.protocol !== 'ws:') return null
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/v1\/(connect|webrtc\/offer)$/, '')
  const rest = `//${parsed.host}${path}`
  return { http: `${secure ? 'https' : 'http'}:${rest}`, ws: `${secure ? 'wss' : 'ws'}:${rest}` }
}
