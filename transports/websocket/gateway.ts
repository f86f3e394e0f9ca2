/**
 * The WebSocket gateway: a uWebSockets.js SSLApp on `gateway.port` serving
 * `wss://host:port/v1/connect?token=…[&mode=mixed]` (spec/websocket.md). The token is verified
 * before the upgrade: a refused credential gets an HTTP error with the JSON envelope and no
 * WebSocket. An admitted terminal is handed to the hub (core/terminals.ts) with a WsTerminal as
 * its link. Every other request is served from the engine's gateway routes (routeServer.ts), and
 * every other WebSocket upgrade from its WebSocket routes (socketRoutes.ts), so other extensions
 * (WebRTC signalling, device firmware protocols) share this port; an unknown path answers 404.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, us_socket_context_t, WebSocket } from 'uWebSockets.js'
import { Counter, type Registry } from 'prom-client'
import {
  audioDrops,
  overloadInput,
  errorResponse,
  inject,
  injectable,
  isHarkError,
  MAX_CONTROL_MESSAGE_BYTES,
  ProtocolError,
  ServerShuttingDown,
  TokenInvalid,
  services,
  ValidationFailed,
  wireCodesOf,
  WriteBatch,
  ListenError,
  type AudioMode,
  type ClockShape,
  type FanoutHub,
  type GatewayRoutes,
  type Listeners,
  type Logger,
  type SecurityShape,
  type Settings,
  type TerminalHub,
  type TerminalIdentity,
  type TlsMaterial,
  type Transport,
} from '../../core/extension.js'
import {
  DEFAULT_LIMITS,
  TRANSPORT_NAME,
  WsTerminal,
  type ConnectionContext,
  type ConnectionLimits,
  type SocketData,
} from './connection.js'
import { loadNativeUws, type UwsModule } from './native.js'
import { checkHandshake, headerLines, upgradeCorked } from './handshake.js'
import { serveRoute, writeResponse } from './routeServer.js'
import { gatewaySettings, type GatewaySettings } from './settings.js'
import { upgradeToRoute, UwsGatewaySocket, type RouteSocketData } from './socketRoutes.js'

export const CONNECT_PATH = '/v1/connect'
/**
 * uWS closes a connection by itself (no session.closing) when one message exceeds this; below it
 * Hark's own limits apply (1501-byte audio frames, 4096-byte control messages) and are reported.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024
/**
 * Listening sockets on the gateway's port, all served by this loop. uWS (uSockets) listens with a
 * fixed accept backlog of 512 and SO_REUSEPORT: more sockets on the port, among which the kernel
 * spreads new connections, give a fleet that reconnects at once 8 × 512 places to wait for accept
 * instead of SYNs dropped beyond 512, each such terminal then waiting its TCP retransmit (1 s, 3 s,
 * 7 s…) though the server would have taken it a moment later.
 */
const LISTEN_SOCKETS = 8

/** Nothing received (not even a pong to the server's automatic pings) for this long closes a socket. */
export const IDLE_TIMEOUT_SECONDS = 60
/** uWS buffer per socket beyond which even control events are refused (then receiver_too_slow). */
export const MAX_BACKPRESSURE_BYTES = 1024 * 1024
/** How long stop() waits for closing sockets before cutting the rest. */
const STOP_GRACE_MS = 1000

/**
 * HTTP status for a refused upgrade. Any credential problem is 401, including a token whose
 * workspace or client no longer exists (the table says 404 for those on REST, but here the
 * credential is what failed); bad query parameters are 400; anything else follows the table.
 */
const refusalStatus = (e: unknown): number => {
  if (!isHarkError(e)) return 500
  switch (e._tag) {
    case 'ClientNotFound':
    case 'ClientDeleted':
    case 'WorkspaceNotFound':
    case 'NotFound':
      return 401
    default:
      return wireCodesOf(e).http
  }
}

/**
 * The gateway's uWS pub/sub as a room router sees it (core/dataplane/fanout.ts): one publish per
 * frame for a room's WebSocket receivers. The router looks at their backlogs every quarter of the
 * audio limit it publishes, so a receiver that stops reading has at most the limit plus that quarter
 * (plus the 32 frames uWS holds per socket before it writes) waiting before it is served frame by
 * frame, far below maxBackpressure, where uWS would drop frames without our counting them.
 */
class UwsFanout implements FanoutHub {
  app: TemplatedApp | null = null
  checkEveryBytes = 0

  constructor(limits: ConnectionLimits) {
    this.setLimits(limits)
  }

  /** A quarter of the audio limit between two looks at the receivers' backlogs. */
  setLimits(limits: ConnectionLimits): void {
    this.checkEveryBytes = limits.audioBacklogBytes >>> 2
  }

  publish(topic: string, frame: Uint8Array): void {
    this.app?.publish(topic, frame, true)
  }
}

interface UpgradeData extends SocketData {
  readonly identity: TerminalIdentity
  readonly audioMode: AudioMode
}

@injectable()
export class WebSocketGateway implements Transport {
  private app: TemplatedApp | null = null
  private listenSockets: us_listen_socket[] = []
  private readonly terminals = new Set<WsTerminal>()
  /** Open sockets of WebSocket routes (other extensions' protocols). */
  private readonly routeSockets = new Set<UwsGatewaySocket>()
  private readonly batch = new WriteBatch()
  private readonly fanout = new UwsFanout(DEFAULT_LIMITS)
  private readonly upgrades: Counter<'result'>
  private ctx: ConnectionContext
  private accepting = false
  private allGone: (() => void) | null = null

  constructor(
    @inject(services.settings) private readonly settings: Settings,
    @inject(gatewaySettings.key) private readonly gateway: GatewaySettings,
    @inject(services.terminals) private readonly hub: TerminalHub,
    @inject(services.security) private readonly security: SecurityShape,
    @inject(services.tls) private readonly tls: TlsMaterial,
    @inject(services.gatewayRoutes) private readonly routes: GatewayRoutes,
    @inject(services.listeners) private readonly listeners: Listeners,
    @inject(services.clock) clock: ClockShape,
    @inject(services.log) private readonly log: Logger,
    @inject(services.metrics) metrics: Registry,
  ) {
    const drops = audioDrops(metrics)
    const rate = drops.cell(TRANSPORT_NAME, 'rate')
    this.ctx = {
      limits: DEFAULT_LIMITS,
      input: { clock, limits: DEFAULT_LIMITS, rateDrops: rate, overload: overloadInput(metrics, TRANSPORT_NAME) },
      batch: this.batch,
      clock,
      log,
      drops: { backpressure: drops.cell(TRANSPORT_NAME, 'backpressure'), rate, closed: drops.cell(TRANSPORT_NAME, 'closed') },
      gone: (t) => {
        this.terminals.delete(t)
        this.socketGone()
      },
      fanout: gateway.pubsub ? this.fanout : null,
    }
    this.upgrades = new Counter({
      name: 'hark_websocket_upgrades_total',
      help: 'WebSocket upgrade requests on /v1/connect by result (accepted, or the refusal code; closed_at_upgrade: accepted, then closed by uWS as its cork ended)',
      labelNames: ['result'],
      registers: [metrics],
    })
  }

  /** Other per-connection limits than the protocol's (tests, benchmarks); before start(). */
  withLimits(limits: Partial<ConnectionLimits>): this {
    const all = { ...DEFAULT_LIMITS, ...limits }
    this.ctx = { ...this.ctx, limits: all, input: { ...this.ctx.input, limits: all } }
    this.fanout.setLimits(all)
    return this
  }

  /** Live WebSocket connections (for tests and the bench). */
  get connections(): number {
    return this.terminals.size + this.routeSockets.size
  }

  private socketGone(): void {
    if (this.terminals.size === 0 && this.routeSockets.size === 0) this.allGone?.()
  }

  async start(): Promise<void> {
    const uws = loadNativeUws()
    const { tls, settings, gateway } = this
    const app = uws.SSLApp({ cert_file_name: tls.certFile, key_file_name: tls.keyFile })
    // The same limits for /v1/connect and for every WebSocket route.
    const limits = {
      maxPayloadLength: MAX_MESSAGE_BYTES,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      sendPingsAutomatically: true,
      maxBackpressure: MAX_BACKPRESSURE_BYTES,
      closeOnBackpressureLimit: 0,
      compression: uws.DISABLED,
    }
    app.ws<UpgradeData>(CONNECT_PATH, {
      ...limits,
      upgrade: (res, req, context) => this.upgrade(res, req, context),
      open: (ws) => this.opened(ws),
      message: (ws, message, isBinary) => {
        const terminal = ws.getUserData().terminal
        if (terminal === null) return
        if (isBinary) terminal.onAudio(message)
        else terminal.onControl(message)
      },
      close: (ws) => {
        const data = ws.getUserData()
        // uWS.js hands out its own copy of the upgrade's user data: its identity is the upgrade's.
        if (upgrading !== null && data.identity === upgrading.identity) this.upgrades.inc({ result: 'closed_at_upgrade' })
        data.terminal?.onClosed()
      },
    })
    // Upgrades to any other path go to the engine's WebSocket routes; a GET without an upgrade
    // falls through (uWS yields it) to the HTTP routes below.
    app.ws<RouteSocketData>('/*', {
      ...limits,
      upgrade: (res, req, context) =>
        upgradeToRoute(res, req, context, this.routes.matchSocket(req.getUrl()), {
          log: this.log,
          accepting: () => this.accepting,
        }),
      open: (ws) => {
        const data = ws.getUserData()
        const socket = new UwsGatewaySocket(ws)
        data.socket = socket
        this.routeSockets.add(socket)
        try {
          data.handler = data.open(socket)
        } catch (error) {
          this.log.error({ err: error }, 'WebSocket route failed to open a connection')
          socket.close(1011, 'internal')
        }
      },
      message: (ws, message, isBinary) => ws.getUserData().handler?.message(message, isBinary),
      close: (ws, code) => {
        const data = ws.getUserData()
        data.socket?.gone()
        if (data.socket) this.routeSockets.delete(data.socket)
        this.socketGone()
        try {
          data.handler?.closed(code)
        } catch (error) {
          this.log.error({ err: error }, 'WebSocket route failed at close')
        }
      },
    })
    app.any(CONNECT_PATH, (res) => {
      const error = new ProtocolError({ message: `${CONNECT_PATH} takes a WebSocket upgrade (GET with Upgrade: websocket)` })
      writeResponse(res, { aborted: false, done: false }, errorResponse(error, 426, { upgrade: 'websocket' }), true)
    })
    // Every other request goes to the engine's gateway routes (e.g. WebRTC signalling), looked
    // up when it arrives; an unknown path is 404 with the envelope.
    app.any('/*', (res, req) => serveRoute(res, req, this.routes, this.log))
    this.app = app
    this.fanout.app = app
    const listen = (port: number) => new Promise<us_listen_socket | false>((resolve) => app.listen(settings.host, port, resolve))
    const refused = () => new ListenError('gateway', settings.host, gateway.port, 'gateway.port', 'the address is in use or not available')
    let first = await listen(gateway.port)
    if (first && gateway.port === 0) {
      // uWS sets SO_REUSEPORT only on a port it is given: the kernel's pick is given back to it
      // (or, taken meanwhile by another socket, one socket on a new pick).
      const picked = uws.us_socket_local_port(first)
      uws.us_listen_socket_close(first)
      first = (await listen(picked)) || (await listen(0))
    }
    if (!first) throw refused()
    const port = uws.us_socket_local_port(first)
    this.listenSockets = [first]
    for (let i = 1; i < LISTEN_SOCKETS; i++) {
      const more = await listen(port)
      if (more) this.listenSockets.push(more)
    }
    this.accepting = true
    this.listeners.listening('gateway', port)
  }

  stopAccepting(): void {
    this.accepting = false
    if (this.listenSockets.length === 0) return
    const uws = loadNativeUws()
    for (const socket of this.listenSockets) uws.us_listen_socket_close(socket)
    this.listenSockets = []
  }

  async stop(): Promise<void> {
    this.stopAccepting()
    const app = this.app
    if (!app) return
    // The hub has already said session.closing to everyone; give the close handshakes a moment.
    for (const t of this.terminals) t.fail(new ServerShuttingDown({ message: 'server shutting down' }))
    // Route connections have heard the hub's session.closing already (if they hold a session).
    const shuttingDown = wireCodesOf(new ServerShuttingDown({ message: 'server shutting down' }))
    for (const socket of this.routeSockets) socket.close(shuttingDown.ws, shuttingDown.code)
    if (this.terminals.size > 0 || this.routeSockets.size > 0) {
      await new Promise<void>((resolve) => {
        // Real time, not the engine's clock: it bounds real I/O (the sockets' close handshakes).
        const timer = setTimeout(resolve, STOP_GRACE_MS)
        this.allGone = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
    this.allGone = null
    // close() exists in this uWS build (it force-closes what is left) but its typings omit it.
    ;(app as TemplatedApp & { close(): void }).close()
    this.app = null
    this.fanout.app = null
  }

  private upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
    // HttpRequest is only valid until the first await: read everything now.
    const headers = headerLines(req)
    const key = req.getHeader('sec-websocket-key')
    const protocol = req.getHeader('sec-websocket-protocol')
    const extensions = req.getHeader('sec-websocket-extensions')
    const query = new URLSearchParams(req.getQuery() ?? '')
    const exchange = { aborted: false, done: false }
    res.onAborted(() => {
      exchange.aborted = true
    })
    const refuse = (error: unknown, status = refusalStatus(error), extra?: Readonly<Record<string, string>>): void => {
      this.upgrades.inc({ result: wireCodesOf(error).code })
      writeResponse(res, exchange, errorResponse(error, status, extra), true)
    }
    const handshake = checkHandshake(headers)
    if (handshake) return refuse(handshake.error, handshake.status, handshake.headers)
    if (!this.accepting) return refuse(new ServerShuttingDown({ message: 'server shutting down' }))
    const token = query.get('token')
    const mode = query.get('mode') ?? 'forward'
    if (mode !== 'forward' && mode !== 'mixed') {
      return refuse(new ValidationFailed({ field: 'mode', message: 'mode must be "forward" or "mixed"' }))
    }
    if (!token) return refuse(new TokenInvalid({ message: 'missing token query parameter' }))
    this.security.authenticateTerminal({ token }).then(
      (identity) => {
        if (exchange.aborted) return
        if (!this.accepting) return refuse(new ServerShuttingDown({ message: 'server shutting down' }))
        this.upgrades.inc({ result: 'accepted' })
        exchange.done = true
        const data: UpgradeData = { identity, audioMode: mode, terminal: null }
        upgrading = data
        try {
          upgradeCorked(res, () => res.upgrade(data, key, protocol, extensions, context))
        } finally {
          upgrading = null
        }
      },
      (error: unknown) => {
        if (exchange.aborted) return
        if (!isHarkError(error)) this.log.error({ err: error }, 'terminal authentication failed unexpectedly')
        refuse(error)
      },
    )
  }

  private opened(ws: WebSocket<UpgradeData>): void {
    const data = ws.getUserData()
    const terminal = new WsTerminal(ws, this.ctx)
    data.terminal = terminal
    this.terminals.add(terminal)
    // The session opens once uWS has finished the upgrade and the response's cork around it
    // (upgradeCorked), and writes `session` (or a refusal) in a cork of its own on the WebSocket.
    // Opened inside uWS's open callback, i.e. inside that cork, an occasional terminal under load
    // heard `session` and was then closed by uWS (1006, no close frame) as the cork ended: 1 run in
    // ~7 of gateway.test's hundred terminals at load ~10; none in 30 runs since. The close itself is
    // uWS's cork defect (`upgrading`, below): opened here, such a terminal is gone before its session.
    queueMicrotask(() => {
      if (terminal.isGone) return
      ws.cork(() => {
        try {
          terminal.session = this.hub.open(data.identity, terminal, { audioMode: data.audioMode })
        } catch (error) {
          this.log.error({ err: error, clientId: data.identity.clientId }, 'could not open a terminal session')
          terminal.fail(isHarkError(error) ? error : new ProtocolError({ message: 'could not open a session' }))
        }
      })
    })
  }
}

/**
 * The upgrade being completed in its response's cork, if any. uWS 20.30 (the newest build that loads
 * on glibc 2.36) sometimes closes a socket upgraded there as the cork ends: when the upgrade's
 * realloc keeps the socket's address, HttpResponse::cork reads the upgraded socket's memory as HTTP
 * state and may take it for a finished `Connection: close` response (fixed upstream in
 * uNetworking/uWebSockets#1929). The terminal sees the 101, then the connection drop (1006), and
 * comes back on its backoff; counted as `closed_at_upgrade` (0 of 20k upgrades in a quiet 10k
 * reconnect run; the first upgrade of every process under `node --cpu-prof`).
 */
let upgrading: UpgradeData | null = null

/** Control messages must fit in one uWS message; checked at load so the constants cannot drift. */
if (MAX_CONTROL_MESSAGE_BYTES >= MAX_MESSAGE_BYTES) throw new Error('MAX_MESSAGE_BYTES must exceed MAX_CONTROL_MESSAGE_BYTES')
