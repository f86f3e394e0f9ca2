/**
 * Serving the engine's WebSocket routes (core/gatewayRoutes.ts, `addSocket`) on the uWS gateway
 * listener: every upgrade request to a path other than /v1/connect is looked up when it arrives;
 * the route decides (refuse with an HTTP response, or accept with a handler) and the accepted
 * connection reads and writes through a `GatewaySocket` backed by the uWS socket. The limits of the
 * gateway apply to these sockets too: one message at most MAX_MESSAGE_BYTES (uWS closes with 1009
 * beyond), pings every idle period, the same backpressure ceiling.
 */
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocket } from 'uWebSockets.js'
import {
  errorResponse,
  failureResponse,
  isHarkError,
  NotFound,
  ServerShuttingDown,
  type GatewayRequest,
  type GatewayResponse,
  type GatewaySocket,
  type GatewaySocketHandler,
  type GatewaySocketRoute,
  type Logger,
} from '../../core/extension.js'
import { checkHandshake, headerLines, upgradeCorked } from './handshake.js'
import { writeResponse } from './routeServer.js'

/** uWS send() result: the message was not queued because maxBackpressure is reached. */
const SEND_DROPPED = 2

const ascii = new TextDecoder()

/** What the gateway keeps on a route's uWS socket. */
export interface RouteSocketData {
  readonly open: (socket: GatewaySocket) => GatewaySocketHandler
  socket: UwsGatewaySocket | null
  handler: GatewaySocketHandler | null
}

export class UwsGatewaySocket implements GatewaySocket {
  private open = true

  constructor(private readonly ws: WebSocket<RouteSocketData>) {}

  get isOpen(): boolean {
    return this.open
  }

  send(message: Uint8Array | string, binary: boolean): boolean {
    if (!this.open) return false
    return this.ws.send(message, binary) !== SEND_DROPPED
  }

  get bufferedAmount(): number {
    return this.open ? this.ws.getBufferedAmount() : 0
  }

  cork(fn: () => void): void {
    if (this.open) this.ws.cork(fn)
    else fn()
  }

  close(code: number, reason: string): void {
    if (!this.open) return
    this.open = false
    this.ws.end(code, reason)
  }

  /** The socket is gone (uWS close callback). */
  gone(): void {
    this.open = false
  }
}

export interface SocketUpgradeDeps {
  readonly log: Logger
  /** False once the gateway stops accepting connections. */
  readonly accepting: () => boolean
}

/**
 * An upgrade request to a WebSocket route. Everything needed from `req` is read before the first
 * await (uWS invalidates it when this returns).
 */
export const upgradeToRoute = (
  res: HttpResponse,
  req: HttpRequest,
  context: us_socket_context_t,
  route: GatewaySocketRoute | null,
  deps: SocketUpgradeDeps,
): void => {
  const exchange = { aborted: false, done: false }
  res.onAborted(() => {
    exchange.aborted = true
  })
  const path = req.getUrl()
  const key = req.getHeader('sec-websocket-key')
  const protocol = req.getHeader('sec-websocket-protocol')
  const extensions = req.getHeader('sec-websocket-extensions')
  if (route === null) {
    writeResponse(res, exchange, errorResponse(new NotFound({ message: `no WebSocket route ${path}` }), 404), true)
    return
  }
  if (!deps.accepting()) {
    writeResponse(res, exchange, errorResponse(new ServerShuttingDown({ message: 'server shutting down' })), true)
    return
  }
  const headers = headerLines(req)
  const handshake = checkHandshake(headers)
  if (handshake) {
    writeResponse(res, exchange, errorResponse(handshake.error, handshake.status, handshake.headers), true)
    return
  }
  const request: GatewayRequest = {
    method: 'GET',
    path,
    query: new URLSearchParams(req.getQuery() ?? ''),
    headers,
    remoteAddress: ascii.decode(res.getRemoteAddressAsText()),
    body: Buffer.alloc(0),
  }
  let decision: Promise<Awaited<ReturnType<GatewaySocketRoute['upgrade']>>>
  try {
    decision = Promise.resolve(route.upgrade(request))
  } catch (error) {
    decision = Promise.reject(error)
  }
  const refuse = (response: GatewayResponse) => writeResponse(res, exchange, response, true)
  decision.then(
    (answer) => {
      if (exchange.aborted) return
      if ('refuse' in answer) return refuse(answer.refuse)
      if (!deps.accepting()) return refuse(errorResponse(new ServerShuttingDown({ message: 'server shutting down' })))
      exchange.done = true
      const data: RouteSocketData = { open: answer.accept, socket: null, handler: null }
      upgradeCorked(res, () => res.upgrade(data, key, protocol, extensions, context))
    },
    (error: unknown) => {
      if (exchange.aborted) return
      if (!isHarkError(error)) deps.log.error({ err: error, path }, 'WebSocket route refused an upgrade unexpectedly')
      refuse(failureResponse(error))
    },
  )
}
