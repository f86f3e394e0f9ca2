/**
 * `connect(options)`: one call for every runtime and transport. WebRTC is the default where the
 * runtime has RTCPeerConnection (browsers), WebSocket elsewhere (Node: the Node entry supplies
 * `ws` and @evan/opus). Resolves with a connected Session once the `session` event arrived;
 * rejects with the typed error of the first attempt (errors.ts).
 */
import { BrowserAudio, type BrowserAudioOptions } from './browser/audio.js'
import { ConfigurationError, type HarkClientError } from './errors.js'
import { gatewayUrls, type LinkOpener } from './links/link.js'
import { webRtcLink } from './links/webrtc.js'
import { standardWebSocket, webSocketLink, type WebSocketFactory } from './links/websocket.js'
import type { AudioMode } from './protocol.js'
import { reconnectPolicy, type ReconnectOptions } from './reconnect.js'
import { Session, type OpusCodec } from './session.js'

export interface ConnectOptions {
  /** The gateway: `https://host:8443` (or `wss://host:8443`; a trailing `/v1/connect` is allowed). */
  readonly url: string
  /** A client token from the back end (POST /api/v1/clients/{id}/token or /clients/ephemeral). */
  readonly token: string
  /** `webrtc` (browsers; the default there) or `websocket` (browsers and Node; the default elsewhere). */
  readonly transport?: 'webrtc' | 'websocket'
  /** WebSocket only: `forward` (default: one stream per source) or `mixed`. WebRTC is always mixed. */
  readonly audioMode?: AudioMode
  /** A fresh token when the current one expired or was refused as invalid: called before reconnecting with it. */
  readonly refreshToken?: (error: HarkClientError) => string | Promise<string>
  /** Reconnect after a drop reconnecting can cure (default on: backoff with jitter); false to never. */
  readonly reconnect?: boolean | ReconnectOptions
  /** Browsers: the microphone and the room's playback (default on); false for neither (events only, or your own audio). */
  readonly audio?: BrowserAudioOptions | false
  /** From `connect()` to the `session` event, per attempt (default 15 s). */
  readonly connectTimeoutMs?: number
  /** Opus for `sendPcm` and the `pcm` event (the Node entry supplies @evan/opus). */
  readonly codec?: OpusCodec
  /** How WebSockets are made (the Node entry supplies `ws` with the `tls` options). */
  readonly webSocket?: WebSocketFactory
}

const inBrowser = (): boolean => typeof window !== 'undefined' && typeof navigator !== 'undefined' && navigator.mediaDevices !== undefined

export const connect = async (options: ConnectOptions): Promise<Session> => {
  const urls = gatewayUrls(options.url)
  if (!urls) throw new ConfigurationError(`not a gateway URL: ${JSON.stringify(options.url)} (expected https://host:port or wss://host:port)`, 'invalid_url')
  if (!options.token) throw new ConfigurationError('a client token is required', 'invalid_token')
  const transport = options.transport ?? (typeof RTCPeerConnection !== 'undefined' ? 'webrtc' : 'websocket')
  const audio = inBrowser() && options.audio !== false ? new BrowserAudio(options.audio ?? {}) : null
  const opener: LinkOpener =
    transport === 'webrtc'
      ? webRtcLink(urls, { track: () => audio?.track() ?? null, played: (track) => audio?.play(track) })
      : webSocketLink(urls, options.webSocket ?? standardWebSocket(urls))
  const session = new Session({
    opener,
    token: options.token,
    refreshToken: options.refreshToken,
    reconnect: reconnectPolicy(options.reconnect),
    audioMode: options.audioMode ?? 'forward',
    codec: options.codec ?? null,
    audio,
    connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
  })
  await session.start()
  return session
}
