/**
 * The plain-WebSocket listener for devices on a LAN (`xiaozhi.plainPort`, off by default): ESP32
 * firmware checks server certificates against its built-in CA bundle, so a device cannot use the
 * engine's self-signed certificate; on a network the operator trusts, `ws://` is the way in.
 * Only the xiaozhi path is served here (never /v1/connect: terminal protocol v1 runs over TLS
 * only). Built on `ws` over node:http; each connection is handed to the same route as on the
 * TLS gateway through a GatewaySocket, so the protocol code does not know which listener it is on.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { STATUS_CODES } from 'node:http'
import { WebSocketServer, type WebSocket } from 'ws'
import {
  errorEnvelope,
  errorResponse,
  failureResponse,
  isHarkError,
  NotFound,
  ProtocolError,
  ServerShuttingDown,
  type ClockShape,
  type GatewayRequest,
  type GatewayResponse,
  type GatewaySocket,
  type GatewaySocketRoute,
  type Logger,
  type Timer,
} from '../../core/extension.js'

/** Largest message (uWS on the gateway has the same); bigger closes with 1009. */
const MAX_MESSAGE_BYTES = 16 * 1024
/** Buffered bytes beyond which sends are refused (the gateway's uWS ceiling). */
const MAX_BACKPRESSURE_BYTES = 1024 * 1024
/** A ping every this long (engine clock); a connection that did not answer the previous one is dropped. */
export const PING_INTERVAL_MS = 30_000

class WsGatewaySocket implements GatewaySocket {
  constructor(private readonly ws: WebSocket) {}

  send(message: Uint8Array | string, binary: boolean): boolean {
    if (this.ws.readyState !== this.ws.OPEN || this.ws.bufferedAmount > MAX_BACKPRESSURE_BYTES) return false
    // `ws` keeps a reference until the bytes are written: copy, the caller reuses its buffer.
    this.ws.send(typeof message === 'string' ? message : Buffer.from(message), { binary })
    return true
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount
  }

  cork(fn: () => void): void {
    fn()
  }

  close(code: number, reason: string): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason)
  }
}

const answer = (socket: Duplex, response: GatewayResponse): void => {
  const body = response.body === undefined ? Buffer.alloc(0) : Buffer.from(response.body)
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`, `content-length: ${body.length}`, 'connection: close']
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    for (const v of typeof value === 'string' ? [value] : value) lines.push(`${name}: ${v}`)
  }
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), body]))
}

export class PlainListener {
  private server: Server | null = null
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false })
  private readonly alive = new WeakMap<WebSocket, boolean>()
  private pinger: Timer | undefined
  private accepting = false

  constructor(
    private readonly route: GatewaySocketRoute,
    private readonly clock: ClockShape,
    private readonly log: Logger,
    /** A connection that has not sent its whole request head within this is closed (real time: it bounds real I/O). */
    private readonly headTimeoutMs: number,
  ) {}

  /** Listen on `host:port`; resolves with the bound port. */
  async listen(host: string, port: number): Promise<number> {
    // Node's own defaults hold a silent connection 60–90 s; the device says who it is in its head.
    const bounds = { headersTimeout: this.headTimeoutMs, requestTimeout: this.headTimeoutMs + 1000, connectionsCheckingInterval: 1000 }
    const server = createServer(bounds, (req, res) => {
      const error = new ProtocolError({ message: `${this.route.path} takes a WebSocket upgrade (GET with Upgrade: websocket)` })
      const notFound = new NotFound({ message: `no route ${req.method} ${req.url}` })
      const e = (req.url ?? '').split('?')[0] === this.route.path ? error : notFound
      res.writeHead(e === error ? 426 : 404, { 'content-type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify(errorEnvelope(e)))
    })
    server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head))
    server.on('clientError', (_e, socket) => socket.destroy())
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
    this.server = server
    this.accepting = true
    this.armPing()
    const address = server.address()
    return typeof address === 'object' && address ? address.port : port
  }

  /** Every PING_INTERVAL_MS: drop who did not answer the last ping, ping the others. */
  private armPing(): void {
    this.pinger = this.clock.setTimeout(() => {
      for (const ws of this.wss.clients) {
        if (this.alive.get(ws) === false) {
          ws.terminate()
          continue
        }
        this.alive.set(ws, false)
        ws.ping()
      }
      if (this.accepting) this.armPing()
    }, PING_INTERVAL_MS)
  }

  async close(): Promise<void> {
    this.accepting = false
    this.clock.clearTimeout(this.pinger)
    const server = this.server
    this.server = null
    if (!server) return
    for (const ws of this.wss.clients) ws.terminate()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy())
    const url = new URL(req.url ?? '/', 'http://device')
    if (url.pathname !== this.route.path) return answer(socket, errorResponse(new NotFound({ message: `no WebSocket route ${url.pathname}` }), 404))
    if (!this.accepting) return answer(socket, errorResponse(new ServerShuttingDown({ message: 'server shutting down' })))
    const headers = new Map<string, string[]>()
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!.toLowerCase()
      const values = headers.get(name)
      if (values) values.push(req.rawHeaders[i + 1]!)
      else headers.set(name, [req.rawHeaders[i + 1]!])
    }
    const request: GatewayRequest = {
      method: 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers,
      remoteAddress: req.socket.remoteAddress ?? '',
      body: Buffer.alloc(0),
    }
    Promise.resolve()
      .then(() => this.route.upgrade(request))
      .then(
        (decision) => {
          if (socket.destroyed) return
          if ('refuse' in decision) return answer(socket, decision.refuse)
          this.wss.handleUpgrade(req, socket, head, (ws) => {
            ws.binaryType = 'arraybuffer'
            this.alive.set(ws, true)
            ws.on('pong', () => this.alive.set(ws, true))
            const handler = decision.accept(new WsGatewaySocket(ws))
            ws.on('message', (data: ArrayBuffer, isBinary) => {
              this.alive.set(ws, true)
              handler.message(data, isBinary)
            })
            ws.on('close', (code) => handler.closed(code))
            ws.on('error', () => ws.terminate())
          })
        },
        (error: unknown) => {
          if (!isHarkError(error)) this.log.error({ err: error }, 'xiaozhi upgrade failed unexpectedly')
          if (!socket.destroyed) answer(socket, failureResponse(error))
        },
      )
  }
}
