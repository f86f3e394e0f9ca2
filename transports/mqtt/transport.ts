/**
 * The MQTT transport: a raw `net` listener (and an optional TLS one) whose connections speak
 * MQTT 3.1.1 and 5.0 to terminals. It is a gateway, not a broker: terminals publish and receive
 * on their own topics only, and everything they say goes to the hub (core/terminals.ts).
 */
import { createServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import { Counter, Gauge, type Registry } from 'prom-client'
import {
  audioDrops,
  overloadInput,
  ConfigError,
  inject,
  injectable,
  ListenError,
  ServerShuttingDown,
  services,
  wireCodesOf,
  WriteBatch,
  type ClockShape,
  type HarkError,
  type Listeners,
  type Logger,
  type SecurityShape,
  type Settings,
  type TerminalHub,
  type TerminalLink,
  type TlsMaterial,
  type Transport,
} from '../../core/extension.js'
import { StrictParser } from './parser.js'
import { KeepaliveSweeps } from './keepalive.js'
import { LiveConnections } from './live.js'
import { MqttConnection } from './connection.js'
import { TRANSPORT_NAME, type ConnectionContext, type MqttCounters } from './connectionContext.js'
import { SessionStore } from './sessionStore.js'
import { mqttSettings, type MqttSettings } from './settings.js'
import { WillDelivery } from './will.js'

/**
 * Connections the kernel may hold for accept (capped by net.core.somaxconn, 4096 on current
 * Linux). Node's default, 511, overflows when a fleet reconnects at once: the kernel then drops the
 * SYNs beyond it, and each such device waits its TCP retransmit (1 s, then 3 s, 7 s, 15 s) though the
 * server would have taken it a moment later.
 */
const LISTEN_BACKLOG = 4096

/** TCP keepalive probes catch dead peers of clients that asked for MQTT keepalive 0. */
const TCP_KEEPALIVE_MS = 60_000

@injectable()
export class MqttTransport implements Transport {
  private readonly servers: Server[] = []
  private readonly connections = new Set<TerminalLink>()
  private readonly ctx: ConnectionContext
  private readonly counters: MqttCounters

  constructor(
    @inject(services.settings) private readonly settings: Settings,
    @inject(mqttSettings.key) private readonly mqtt: MqttSettings,
    @inject(services.terminals) hub: TerminalHub,
    @inject(services.security) security: SecurityShape,
    @inject(services.tls) private readonly tls: TlsMaterial,
    @inject(services.listeners) private readonly listeners: Listeners,
    @inject(services.clock) clock: ClockShape,
    @inject(services.log) log: Logger,
    @inject(services.metrics) metrics: Registry,
  ) {
    if (mqtt.maxBufferedBytes <= mqtt.maxBufferedAudioBytes) {
      // Audio alone would then close a listener whose socket is merely slow, instead of being dropped.
      throw new ConfigError('mqtt.maxBufferedBytes', 'settings', `must be above mqtt.maxBufferedAudioBytes (${mqtt.maxBufferedAudioBytes})`)
    }
    const refused = new Counter({
      name: 'hark_mqtt_connects_refused_total',
      help: 'MQTT CONNECTs refused, by error code',
      labelNames: ['code'],
      registers: [metrics],
    })
    const protocolErrors = new Counter({
      name: 'hark_mqtt_protocol_errors_total',
      help: 'MQTT connections closed for breaking the protocol, by error code',
      labelNames: ['code'],
      registers: [metrics],
    })
    const connections = this.connections
    const drops = audioDrops(metrics)
    const counters: MqttCounters = (this.counters = {
      audioBackpressure: drops.cell(TRANSPORT_NAME, 'backpressure'),
      audioRate: drops.cell(TRANSPORT_NAME, 'rate'),
      eventsDropped: 0,
      writes: 0,
    })
    new Gauge({
      name: 'hark_mqtt_connections',
      help: 'Open MQTT network connections (authenticated or not)',
      registers: [metrics],
      collect() {
        this.set(connections.size)
      },
    })
    new Counter({
      name: 'hark_mqtt_events_dropped_total',
      help: 'Events not sent because they exceeded the MQTT 5 client\'s Maximum Packet Size',
      registers: [metrics],
      collect() {
        this.reset()
        this.inc(counters.eventsDropped)
      },
    })
    new Counter({
      name: 'hark_mqtt_writes_total',
      help: 'Socket writes: each carries everything one connection had queued (audio within mqtt.audioBatchMs, control packets at once)',
      registers: [metrics],
      collect() {
        this.reset()
        this.inc(counters.writes)
      },
    })
    this.ctx = {
      hub,
      clock,
      authenticate: (credential) => security.authenticateTerminal(credential),
      settings: mqtt,
      input: { clock, rateDrops: counters.audioRate, overload: overloadInput(metrics, TRANSPORT_NAME) },
      log: log.child({ transport: 'mqtt' }),
      scheduler: new WriteBatch(),
      audioHold: mqtt.audioBatchMs > 0 ? new WriteBatch(mqtt.audioBatchMs) : null,
      parser: new StrictParser(),
      sessions: new SessionStore(clock),
      keepalive: new KeepaliveSweeps(clock),
      wills: new WillDelivery(hub, clock),
      live: new LiveConnections(),
      counters,
      onRefused: (e: HarkError) => refused.inc({ code: wireCodesOf(e).code }),
      onProtocolError: (e: HarkError) => protocolErrors.inc({ code: wireCodesOf(e).code }),
      onClosed: (c) => this.connections.delete(c),
    }
  }

  private readonly accept = (socket: Socket): void => {
    socket.setNoDelay(true)
    socket.setKeepAlive(true, TCP_KEEPALIVE_MS)
    this.connections.add(new MqttConnection(socket, this.ctx))
  }

  async start(): Promise<void> {
    const { settings: { host: bindHost }, mqtt } = this
    const plain = createServer({ noDelay: true }, this.accept)
    await this.listen(plain, bindHost, mqtt.port, 'mqtt', 'mqtt.port')
    if (mqtt.tlsPort !== null) {
      // A socket that never starts TLS gets the CONNECT deadline too (Node's default holds it 120 s).
      const handshakeTimeout = mqtt.connectTimeoutSeconds * 1000
      const secure = createTlsServer({ cert: this.tls.cert, key: this.tls.key, handshakeTimeout }, this.accept)
      // A failed handshake only ends that socket.
      secure.on('tlsClientError', (_error, socket) => socket.destroy())
      await this.listen(secure, bindHost, mqtt.tlsPort, 'mqtt-tls', 'mqtt.tlsPort')
    }
  }

  private listen(server: Server, bindHost: string, port: number, name: string, setting: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const failed = (e: Error) => reject(new ListenError(name, bindHost, port, setting, e))
      server.once('error', failed)
      server.listen({ port, host: bindHost, backlog: LISTEN_BACKLOG }, () => {
        server.off('error', failed)
        this.servers.push(server)
        const address = server.address()
        this.listeners.listening(name, typeof address === 'object' && address ? address.port : port)
        resolve()
      })
    })
  }

  /** The listeners' closes, from stopAccepting on (each settles once its last connection is gone). */
  private closed: Promise<void>[] | null = null

  stopAccepting(): void {
    this.closed ??= this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))
  }

  async stop(): Promise<void> {
    this.stopAccepting()
    const closed = this.closed!
    this.closed = null
    const reason = new ServerShuttingDown({ message: 'server shutting down' })
    // Each connection flushes its last packets and closes (destroyed after a short grace if stuck).
    for (const c of [...this.connections]) c.close(reason)
    this.ctx.sessions.clear()
    this.ctx.wills.clear()
    this.ctx.keepalive.stop()
    this.ctx.audioHold?.stop()
    await Promise.all(closed)
    this.servers.length = 0
  }
}
