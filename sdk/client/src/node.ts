/**
 * The Node entry of @hark/client (package.json's `node` condition): `connect` with `ws` for the
 * WebSocket (it shows why an upgrade was refused, and takes TLS options such as the engine's
 * self-signed certificate) and @evan/opus for `sendPcm` and the `pcm` event, loaded on first use
 * (an optional peer dependency: install it to use PCM). Everything else is the universal entry's.
 */
import { createRequire } from 'node:module'
import type { IncomingMessage } from 'node:http'
import WebSocket from 'ws'
import { connect as connectAnywhere, type ConnectOptions } from './connect.js'
import { connectionError, errorFromHttp, HarkClientError } from './errors.js'
import type { WebSocketFactory } from './links/websocket.js'
import type { OpusCodec, Session } from './session.js'
import { SAMPLE_RATE } from './protocol.js'

export * from './index.js'

export interface NodeConnectOptions extends ConnectOptions {
  /** TLS for `wss://`: the CA (or the engine's self-signed certificate) to trust, or `rejectUnauthorized: false` for a local test. */
  readonly tls?: { readonly ca?: string | Buffer; readonly rejectUnauthorized?: boolean }
}

/** `ws` as a WebSocketFactory: an HTTP refusal of the upgrade becomes the typed error of its envelope. */
export const nodeWebSocket =
  (tls: NodeConnectOptions['tls'] = {}): WebSocketFactory =>
  (url, _token, events) => {
    const socket = new WebSocket(url, { ...tls, perMessageDeflate: false, handshakeTimeout: 15_000 })
    let settled = false
    const fail = (error: HarkClientError) => {
      if (settled) return
      settled = true
      events.failed(error)
    }
    socket.on('unexpected-response', (request, response: IncomingMessage) => {
      const chunks: Buffer[] = []
      response.on('data', (c: Buffer) => chunks.push(c))
      response.on('end', () => fail(errorFromHttp(response.statusCode ?? 0, Buffer.concat(chunks).toString(), response.headers['retry-after'])))
      response.on('error', () => fail(errorFromHttp(response.statusCode ?? 0, '', response.headers['retry-after'])))
      request.on('error', () => undefined)
    })
    socket.on('error', (error) => fail(connectionError(url.replace(/\?.*/, ''), error)))
    socket.on('open', () => {
      settled = true
      events.open()
    })
    socket.on('message', (data: Buffer, isBinary) => events.message(isBinary ? data : data.toString()))
    socket.on('close', (code, reason) => {
      if (settled) events.close(code, reason.toString())
      else fail(connectionError(url.replace(/\?.*/, ''), new Error(`closed before opening (${code})`)))
    })
    return socket
  }

interface EvanOpus {
  Encoder: new (o: { channels: number; sample_rate: number; application: string }) => { encode(pcm: Int16Array): Uint8Array }
  Decoder: new (o: { channels: number; sample_rate: number }) => { decode(opus: Uint8Array): Uint8Array }
}

let opus: EvanOpus | null = null
const loadOpus = (): EvanOpus => {
  if (opus) return opus
  try {
    opus = createRequire(import.meta.url)('@evan/opus') as EvanOpus
  } catch (cause) {
    throw new HarkClientError('PCM needs the optional dependency @evan/opus: npm install @evan/opus', 'no_codec', { cause })
  }
  return opus
}

/** Opus at 16 kHz mono (VoIP) with @evan/opus, as the engine itself uses it. */
export const evanOpusCodec: OpusCodec = {
  encoder: () => new (loadOpus().Encoder)({ channels: 1, sample_rate: SAMPLE_RATE, application: 'voip' }),
  decoder: () => {
    const decoder = new (loadOpus().Decoder)({ channels: 1, sample_rate: SAMPLE_RATE })
    return {
      decode: (packet: Uint8Array) => {
        const bytes = decoder.decode(packet)
        // The decoder's bytes may be unaligned for 16-bit views: copy into a fresh buffer.
        return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
      },
    }
  },
}

/** `connect` for Node: WebSocket by default, through `ws`, with PCM helpers. */
export const connect = (options: NodeConnectOptions): Promise<Session> =>
  connectAnywhere({
    transport: 'websocket',
    codec: evanOpusCodec,
    webSocket: nodeWebSocket(options.tls),
    ...options,
  })
