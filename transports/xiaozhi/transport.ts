/**
 * The xiaozhi transport: xiaozhi-esp32 devices connect to `wss://host:gateway.port<xiaozhi.path>`
 * (a WebSocket route on the gateway, core/gatewayRoutes.ts) or, when `xiaozhi.plainPort` is set,
 * to `ws://host:plainPort<xiaozhi.path>` on a LAN. The upgrade is decided here — credential in
 * `Authorization: Bearer`, `Protocol-Version` 1, 2 or 3 — and each accepted socket becomes an
 * XiaozhiConnection. See spec/xiaozhi.md.
 */
import { audioDrops } from '../../core/dataplane/drops.js'
import { WriteBatch } from '../../core/dataplane/writeBatch.js'
import {
  CredentialMissing,
  isHarkError,
  ServerShuttingDown,
  TokenInvalid,
  UnsupportedProtocolVersion,
  wireCodesOf,
} from '../../core/errors.js'
import { AUDIO_FRAME_BURST, AUDIO_FRAMES_PER_SECOND, CONTROL_MESSAGE_BURST, CONTROL_MESSAGES_PER_SECOND } from '../../core/events.js'
import { errorResponse, type GatewayRequest, type GatewaySocketRoute, type GatewayUpgrade } from '../../core/gatewayRoutes.js'
import type { EngineHost } from '../../core/host.js'
import type { TerminalCredential } from '../../core/security/security.js'
import { ListenError, type Transport } from '../../core/transport.js'
import { AutoAgents } from './autoAgent.js'
import { HELLO_TIMEOUT_MS, TRANSPORT_NAME, XiaozhiConnection, type ConnectionContext, type ConnectionLimits } from './connection.js'
import { PlainListener } from './plainListener.js'
import type { ProtocolVersion } from './protocol.js'
import type { XiaozhiSettings } from './settings.js'

export const PLAIN_LISTENER = 'xiaozhi-plain'

export const DEFAULT_LIMITS: ConnectionLimits = {
  audioBacklogBytes: 64 * 1024,
  audioFramesPerSecond: AUDIO_FRAMES_PER_SECOND,
  audioFrameBurst: AUDIO_FRAME_BURST,
  messagesPerSecond: CONTROL_MESSAGES_PER_SECOND,
  messageBurst: CONTROL_MESSAGE_BURST,
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

export class XiaozhiTransport implements Transport {
  private readonly connections = new Set<XiaozhiConnection>()
  private readonly ctx: ConnectionContext
  private readonly autoAgents: AutoAgents | null
  private plain: PlainListener | null = null
  private removeRoute: (() => void) | null = null
  private accepting = false
  private readonly route: GatewaySocketRoute

  constructor(
    private readonly host: EngineHost,
    private readonly settings: XiaozhiSettings,
    limits: Partial<ConnectionLimits> = {},
  ) {
    const drops = audioDrops(host.metrics)
    this.autoAgents = settings.autoAgent
      ? new AutoAgents({
          agents: host.agents,
          storage: host.storage,
          log: host.log,
          stopDelayMs: host.settings.agents.defaultAgentStopDelaySeconds * 1000,
          terminalCount: (workspaceId, room) => host.terminals.terminalCount(workspaceId, room),
          onOccupancy: (listener) => host.terminals.onRoomOccupancy(listener),
        })
      : null
    this.ctx = {
      hub: host.terminals,
      batch: new WriteBatch(),
      log: host.log,
      limits: { ...DEFAULT_LIMITS, ...limits },
      autoAgents: this.autoAgents,
      drops: {
        backpressure: drops.cell(TRANSPORT_NAME, 'backpressure'),
        rate: drops.cell(TRANSPORT_NAME, 'rate'),
        closed: drops.cell(TRANSPORT_NAME, 'closed'),
      },
      gone: (c) => this.connections.delete(c),
    }
    this.route = { path: settings.path, upgrade: (request) => this.upgrade(request) }
  }

  /** Live device connections (tests, the bench). */
  get connectionCount(): number {
    return this.connections.size
  }

  async start(): Promise<void> {
    if (this.settings.plainPort === null && !this.host.names('transport').includes('websocket')) {
      throw new Error('the xiaozhi transport needs the websocket transport (its TLS gateway) or xiaozhi.plainPort')
    }
    this.removeRoute = this.host.gatewayRoutes.addSocket(this.route)
    this.accepting = true
    if (this.settings.plainPort !== null) {
      const plain = new PlainListener(this.route, this.host.log)
      const { host } = this.host.settings
      try {
        this.host.listening(PLAIN_LISTENER, await plain.listen(host, this.settings.plainPort))
      } catch (e) {
        throw new ListenError(PLAIN_LISTENER, host, this.settings.plainPort, 'xiaozhi.plainPort', e)
      }
      this.plain = plain
    }
  }

  async stop(): Promise<void> {
    this.accepting = false
    this.removeRoute?.()
    this.removeRoute = null
    this.autoAgents?.stop()
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
      identity = await this.host.security.authenticateTerminal(credential)
    } catch (error) {
      if (!isHarkError(error)) this.host.log.error({ err: error }, 'xiaozhi authentication failed unexpectedly')
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
