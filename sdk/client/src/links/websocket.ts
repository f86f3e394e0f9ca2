/**
 * The WebSocket binding (spec/websocket.md): `wss://…/v1/connect?token=…&mode=…`, JSON text frames
 * both ways, binary audio frames both ways. The socket itself comes from a factory: the standard
 * WebSocket in browsers (and any runtime that has one), `ws` in Node (the Node entry), so the
 * Node one can read the HTTP refusal of the upgrade and take TLS options.
 *
 * A browser's WebSocket never shows why an upgrade was refused (the 401 and its envelope are
 * hidden: the socket just closes with 1006). So when a browser socket fails before opening, the
 * link asks the gateway's `GET /v1/webrtc/ice-servers` with the same token — an endpoint that
 * checks a client token the same way and answers with the envelope and CORS — and reports what it
 * says; an endpoint that is not there (no WebRTC transport) leaves a plain ConnectionError.
 */
import { ConnectionError, connectionError, errorFromClose, errorFromHttp, type HarkClientError } from '../errors.js'
import type { AudioMode } from '../protocol.js'
import type { GatewayUrls, Link, LinkHandlers, LinkOpener } from './link.js'

/** What a link needs of a socket. */
export interface SocketLike {
  send(data: string | Uint8Array<ArrayBuffer>): void
  close(code?: number, reason?: string): void
  readonly bufferedAmount: number
}

export interface SocketEvents {
  open(): void
  message(data: string | Uint8Array): void
  /** Closed after it was open (the server's close code and reason text). */
  close(code: number, reason: string): void
  /** Never opened: why. */
  failed(error: HarkClientError): void
}

export type WebSocketFactory = (url: string, token: string, events: SocketEvents) => SocketLike

/** Audio waiting in the socket beyond this is dropped rather than queued: late speech is worse than lost speech. */
const MAX_BUFFERED_AUDIO_BYTES = 64 * 1024

/** The standard WebSocket (browsers; Deno, Bun, Node 22+). */
export const standardWebSocket =
  (urls: GatewayUrls): WebSocketFactory =>
  (url, token, events) => {
    const Ctor = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket
    if (!Ctor) throw new ConnectionError('this runtime has no WebSocket; in Node, import @hark/client (its Node entry uses ws)', 'no_websocket')
    const socket = new Ctor(url)
    socket.binaryType = 'arraybuffer'
    let opened = false
    socket.onopen = () => {
      opened = true
      events.open()
    }
    socket.onmessage = (e: MessageEvent) => events.message(typeof e.data === 'string' ? e.data : new Uint8Array(e.data as ArrayBuffer))
    socket.onclose = (e: CloseEvent) => {
      if (opened) events.close(e.code, e.reason)
      else void whyRefused(urls, token).then(events.failed)
    }
    return socket
  }

/** Why a browser socket never opened, asked of an endpoint that checks the token the same way (see the header). */
const whyRefused = async (urls: GatewayUrls, token: string): Promise<HarkClientError> => {
  const url = `${urls.http}/v1/webrtc/ice-servers`
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' })
    if (res.status === 401 || res.status === 429 || res.status >= 500) return errorFromHttp(res.status, await res.text(), res.headers.get('retry-after'))
    return new ConnectionError(`the WebSocket connection to ${urls.ws} failed`, 'websocket_failed')
  } catch (error) {
    return connectionError(urls.http, error)
  }
}

export const webSocketLink = (urls: GatewayUrls, factory: WebSocketFactory): LinkOpener => ({
  transport: 'websocket',
  open: (token: string, handlers: LinkHandlers, audioMode: AudioMode) =>
    new Promise<Link>((resolve, reject) => {
      const url = `${urls.ws}/v1/connect?token=${encodeURIComponent(token)}&mode=${audioMode}`
      let open = false
      let leaving = false
      let socket: SocketLike
      const link: Link = {
        sendControl: (text) => {
          if (open) socket.send(text)
        },
        sendAudio: (frame) => {
          if (!open || socket.bufferedAmount > MAX_BUFFERED_AUDIO_BYTES) return false
          socket.send(frame)
          return true
        },
        close: async () => {
          leaving = true
          if (open) socket.close(1000, 'leaving')
          open = false
        },
      }
      try {
        socket = factory(url, token, {
          open: () => {
            open = true
            resolve(link)
          },
          message: (data) => (typeof data === 'string' ? handlers.event(data) : handlers.audio(data)),
          close: (code, reason) => {
            open = false
            if (!leaving) handlers.closed(errorFromClose(code, reason))
          },
          failed: reject,
        })
      } catch (error) {
        reject(error)
      }
    }),
})
