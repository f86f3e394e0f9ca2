/**
 * The xiaozhi transport: xiaozhi-esp32 devices connect to `wss://host:gateway.port<xiaozhi.path>`
 * (a WebSocket route on the gateway, `services.gatewayRoutes`) or, when `xiaozhi.plainPort` is set,
 * to `ws://host:plainPort<xiaozhi.path>` on a LAN. The upgrade is decided here — credential in
 * `Authorization: Bearer`, `Protocol-Version` 1, 2 or 3 — and each accepted socket becomes an
 * XiaozhiConnection. See spec/xiaozhi.md.
 */
import type { Registry } from 'prom-client'
import {
  audioDrops,
  overloadInput,
  CredentialMissing,
  errorResponse,
  inject,
  injectable,
  isHarkError,
  ListenError,
  PROTOCOL_LIMITS,
  ServerShuttingDown,
  TokenInvalid,
  services,
  UnsupportedProtocolVersion,
  wireCodesOf,
  WriteBatch,
  type AgentDispatcher,
  type ClockShape,
  type GatewayRequest,
  type GatewayRoutes,
  type GatewaySocketRoute,
  type GatewayUpgrade,
  type Listeners,
  type Logger,
  type SecurityShape,
  type Settings,
  type StorageShape,
  type TerminalCredential,
  type TerminalHub,
  type Transport,
} from '../../core/extension.js'
import { autoAgentPolicy } from './autoAgent.js'
import { HELLO_TIMEOUT_MS, TRANSPORT_NAME, XiaozhiConnection, type ConnectionContext, type ConnectionLimits } from './connection.js'
import type { PlainListener } from './plainListener.js'
import type { ProtocolVersion } from './protocol.js'
import { xiaozhiSettings, type XiaozhiSettings } from './settings.js'

export const PLAIN_LISTENER = 'xiaozhi-plain'

/** Audio waiting for a device (queued + socket buffer) beyond which packets are dropped. */
export const AUDIO_BACKLOG_BYTES = 64 * 1024

export const DEFAULT_LIMITS: ConnectionLimits = {
  ...PROTOCOL_LIMITS,
  audioBacklogBytes: AUDIO_BACKLOG_BYTES,
  helloTimeoutMs: HELLO_TIMEOUT_MS,
}

/** One value of a header, or null when absent; several values are refused by the caller. */
const header = (request: GatewayRequest, name: string): string | null => request.headers.get(name)?.[0] ?? null

/**
 * A refused upgrade is always about the credential when it is 401: a token of a deleted client or
 * workspace is a bad credential here (REST says 404 for those resources).
 */
const refusalStatus = (error: unknown): number => {
  if (!isHarkError(error)) return 500
  switch (error._tag) {
    case 'ClientNotFound':
    case 'ClientDeleted':
    case 'WorkspaceNotFound':
    case 'NotFound':
      return 401
    default:
      return wireCodesOf(error).http
  }
}

@injectable()
export class XiaozhiTransport implements Transport {
  private readonly connections = new Set<XiaozhiConnection>()
  private ctx: ConnectionContext
  private removeAutoAgents: (() => void) | null = null
  private plain: PlainListener | null = null
  private removeRoute: (() => void) | null = null
  private accepting = false
  private readonly route: GatewaySocketRoute

  constructor(
    @inject(services.settings) private readonly engineSettings: Settings,
    @inject(xiaozhiSettings.key) private readonly settings: XiaozhiSettings,
    @inject(services.terminals) hub: TerminalHub,
    @inject(services.security) private readonly security: SecurityShape,
    @inject(services.agents) private readonly agents: AgentDispatcher,
    @inject(services.storage) private readonly storage: StorageShape,
    @inject(services.gatewayRoutes) private readonly routes: GatewayRoutes,
    @inject(services.listeners) private readonly listeners: Listeners,
    @inject(services.clock) private readonly clock: ClockShape,
    @inject(services.log) private readonly log: Logger,
    @inject(services.metrics) metrics: Registry,
  ) {
    const drops = audioDrops(metrics)
    const rate = drops.cell(TRANSPORT_NAME, 'rate')
    this.ctx = {
      hub,
      batch: new WriteBatch(),
      clock,
      log,
      limits: DEFAULT_LIMITS,
      input: { clock, limits: DEFAULT_LIMITS, rateDrops: rate, overload: overloadInput(metrics, TRANSPORT_NAME) },
      drops: { backpressure: drops.cell(TRANSPORT_NAME, 'backpressure'), rate, closed: drops.cell(TRANSPORT_NAME, 'closed') },
      gone: (c) => this.connections.delete(c),
    }
    this.route = { path: settings.path, upgrade: (request) => this.upgrade(request) }
  }

  /** Other per-connection limits than the protocol's (tests, benchmarks); before start(). */
  withLimits(limits: Partial<ConnectionLimits>): this {
    const all = { ...DEFAULT_LIMITS, ...limits }
    this.ctx = { ...this.ctx, limits: all, input: { ...this.ctx.input, limits: all } }
    return this
  }

  /** Resolves when the auto agents asked for so far have started (tests). */
  async autoAgentsIdle(): Promise<void> {
    await this.agents.idle()
  }

  /** Live device connections (tests, the bench). */
  get connectionCount(): number {
    return this.connections.size
  }

  async start(): Promise<void> {
    if (this.settings.plainPort === null && this.listeners.port('gateway') === null) {
      throw new Error('the xiaozhi transport needs the websocket transport registered before it (its TLS gateway carries the devices) or xiaozhi.plainPort')
    }
    this.removeRoute = this.routes.addSocket(this.route)
    this.accepting = true
    if (this.settings.autoAgent) {
      const stopDelayMs = this.engineSettings.agents.defaultAgentStopDelaySeconds * 1000
      this.removeAutoAgents = this.agents.addPolicy(autoAgentPolicy({ storage: this.storage, stopDelayMs, transport: TRANSPORT_NAME }))
    }
    if (this.settings.plainPort !== null) {
      // Its `ws` server is loaded only when a plain port is set (issue 39: a lighter process).
      const { PlainListener } = await import('./plainListener.js')
      const plain = new PlainListener(this.route, this.clock, this.log, this.ctx.limits.helloTimeoutMs)
      const { host } = this.engineSettings
      try {
        this.listeners.listening(PLAIN_LISTENER, await plain.listen(host, this.settings.plainPort))
      } catch (e) {
        throw new ListenError(PLAIN_LISTENER, host, this.settings.plainPort, 'xiaozhi.plainPort', e)
      }
      this.plain = plain
    }
  }

  stopAccepting(): void {
    // On the gateway's port the gateway closes its listeners; on the plain port (closed at stop,
    // with its connections) an upgrade is refused from now on.
    this.accepting = false
  }

  async stop(): Promise<void> {
    this.stopAccepting()
    this.removeRoute?.()
    this.removeRoute = null
    this.removeAutoAgents?.()
    this.removeAutoAgents = null
    const shuttingDown = new ServerShuttingDown({ message: 'server shutting down' })
    for (const c of [...this.connections]) c.close(shuttingDown)
    await this.plain?.close()
    this.plain = null
  }

  /** Decide on a device's upgrade request (spec/xiaozhi.md, Connecting). */
  private async upgrade(request: GatewayRequest): Promise<GatewayUpgrade> {
    const refuse = (error: unknown): GatewayUpgrade => ({ refuse: errorResponse(error, refusalStatus(error)) })
    if (!this.accepting) return refuse(new ServerShuttingDown({ message: 'server shutting down' }))
    const authorization = (request.headers.get('authorization') ?? []).filter((v) => v.trim().length > 0)
    if (authorization.length === 0) return refuse(new CredentialMissing({ message: 'missing Authorization header' }))
    if (authorization.length > 1) return refuse(new TokenInvalid({ message: 'more than one Authorization header' }))
    const match = /^Bearer +(\S+)$/i.exec(authorization[0]!.trim())
    if (!match) return refuse(new TokenInvalid({ message: 'Authorization must be "Bearer <token>"' }))
    const value = match[1]!
    // The firmware stores whatever the OTA answer gave it: a client token or the device password.
    const credential: TerminalCredential = value.startsWith('hkd_') ? { devicePassword: value } : { token: value }
    let identity
    try {
      identity = await this.security.authenticateTerminal(credential)
    } catch (error) {
      if (!isHarkError(error)) this.log.error({ err: error }, 'xiaozhi authentication failed unexpectedly')
      return refuse(error)
    }
    const versionHeader = header(request, 'protocol-version') ?? '1'
    if (!/^[123]$/.test(versionHeader.trim())) {
      return refuse(new UnsupportedProtocolVersion({ message: `Protocol-Version ${JSON.stringify(versionHeader.slice(0, 16))} is not 1, 2 or 3` }))
    }
    if (!this.accepting) return refuse(new ServerShuttingDown({ message: 'server shutting down' }))
    const handshake = {
      identity,
      version: Number(versionHeader.trim()) as ProtocolVersion,
      deviceId: header(request, 'device-id'),
      clientUuid: header(request, 'client-id'),
    }
    return {
      accept: (socket) => {
        const connection = new XiaozhiConnection(socket, handshake, this.ctx)
        this.connections.add(connection)
        return connection
      },
    }
  }
}
