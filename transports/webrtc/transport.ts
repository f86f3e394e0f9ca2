/**
 * The WebRTC transport: signalling routes on the gateway port (signalling.ts) and one werift
 * peer connection per terminal (peer.ts), each handed to the hub in `mixed` audio mode. It owns
 * the peers' bookkeeping — at most `webrtc.maxPeers`, one still-connecting offer per client (a
 * newer offer of the same client replaces it) — and closes every peer, waiting for its socket,
 * when the engine stops. Nothing here runs per audio frame.
 */
import { Counter, Gauge, type Registry } from 'prom-client'
import {
  audioDrops,
  overloadInput,
  CapacityExceeded,
  inject,
  injectable,
  isHarkError,
  PROTOCOL_LIMITS,
  ServerShuttingDown,
  services,
  wireCodesOf,
  type ClockShape,
  type GatewayRoutes,
  type Logger,
  type SecurityShape,
  type Settings,
  type TerminalHub,
  type TerminalIdentity,
  type Transport,
} from '../../core/extension.js'
import { iceServerSource, type IceServerSource } from './iceServers.js'
import { peerNetwork, type PeerNetwork } from './network.js'
import { mixedOnly, TRANSPORT_NAME, WebRtcPeer, type PeerContext, type PeerLimits } from './peer.js'
import { PortCursor } from './portCursor.js'
import { webrtcSettings, type WebRtcSettings } from './settings.js'
import { loadWerift, type Werift } from './werift.js'
import { signallingRoutes } from './signalling.js'

/** Per-peer limits: the protocol's rates, as on every transport (spec/terminal-protocol.md, Limits). */
export const DEFAULT_PEER_LIMITS: PeerLimits = PROTOCOL_LIMITS

/** The werift configuration of one peer connection. */
const peerConfiguration = ({ RTCRtpCodecParameters, useAudioLevelIndication }: Werift, network: PeerNetwork, portRange: [number, number] | undefined) => ({
  codecs: {
    audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, parameters: 'minptime=10;useinbandfec=1' })],
  },
  headerExtensions: { audio: [useAudioLevelIndication()] },
  // Host candidates on exactly the configured addresses: werift's own interface scan is off.
  iceUseIpv4: false,
  iceUseIpv6: false,
  iceAdditionalHostAddresses: [...network.hostAddresses],
  iceInterfaceAddresses: network.bindAddresses.udp4 || network.bindAddresses.udp6 ? { ...network.bindAddresses } : undefined,
  icePortRange: portRange,
  bundlePolicy: 'max-bundle' as const,
})

const clientKey = (identity: TerminalIdentity) => `${identity.workspaceId}\u0000${identity.clientId}`

@injectable()
export class WebRtcTransport implements Transport {
  private readonly peers = new Map<string, WebRtcPeer>()
  /** The still-connecting peer of each client. */
  private readonly connecting = new Map<string, WebRtcPeer>()
  private readonly network: PeerNetwork
  private readonly cursor: PortCursor | null
  private readonly iceServers: IceServerSource
  private ctx: PeerContext
  private readonly offers: Counter<'result'>
  private removeRoutes: Array<() => void> = []
  private accepting = false

  constructor(
    @inject(services.settings) settings: Settings,
    @inject(webrtcSettings.key) private readonly webrtc: WebRtcSettings,
    @inject(services.terminals) hub: TerminalHub,
    @inject(services.security) private readonly security: SecurityShape,
    @inject(services.gatewayRoutes) private readonly routes: GatewayRoutes,
    @inject(services.clock) private readonly clock: ClockShape,
    @inject(services.log) private readonly log: Logger,
    @inject(services.metrics) metrics: Registry,
  ) {
    this.network = peerNetwork(settings.host, webrtc)
    this.iceServers = iceServerSource(webrtc)
    this.cursor = this.network.portRange ? new PortCursor(...this.network.portRange) : null
    const drops = audioDrops(metrics)
    const rate = drops.cell(TRANSPORT_NAME, 'rate')
    this.ctx = {
      hub,
      clock,
      log,
      limits: DEFAULT_PEER_LIMITS,
      input: { clock, limits: DEFAULT_PEER_LIMITS, rateDrops: rate, refuse: mixedOnly, overload: overloadInput(metrics, TRANSPORT_NAME) },
      connectTimeoutMs: webrtc.connectTimeoutMs,
      announcedAddress: this.network.announcedAddress,
      drops: { rate, closed: drops.cell(TRANSPORT_NAME, 'closed') },
      reauthenticate: (token) => security.authenticateTerminal({ token }),
      gone: (peer) => {
        this.peers.delete(peer.peerId)
        const key = clientKey(peer.identity)
        if (this.connecting.get(key) === peer) this.connecting.delete(key)
      },
    }
    this.offers = new Counter({
      name: 'hark_webrtc_offers_total',
      help: 'WebRTC offers on POST /v1/webrtc/offer by result (answered, or the refusal code)',
      labelNames: ['result'],
      registers: [metrics],
    })
    const transport = this
    new Gauge({
      name: 'hark_webrtc_peers',
      help: 'WebRTC peer connections (answering, connecting, open or closing)',
      registers: [metrics],
      collect() {
        this.set(transport.peers.size)
      },
    })
  }

  /** Other per-peer limits than the protocol's (tests, benchmarks); before start(). */
  withLimits(limits: Partial<PeerLimits>): this {
    const all = { ...DEFAULT_PEER_LIMITS, ...limits }
    this.ctx = { ...this.ctx, limits: all, input: { ...this.ctx.input, limits: all } }
    return this
  }

  /** Live peers (any state but closed), for tests and the bench. */
  get peerCount(): number {
    return this.peers.size
  }

  peer(peerId: string): WebRtcPeer | undefined {
    return this.peers.get(peerId)
  }

  async start(): Promise<void> {
    this.removeRoutes = signallingRoutes({
      accepting: () => this.accepting,
      authenticate: (token) => this.security.authenticateTerminal({ token }),
      offer: (identity, token, sdp) => this.answer(identity, token, sdp),
      end: (identity, peerId) => this.end(identity, peerId),
      iceServers: (identity) => this.iceServers(identity.workspaceId, identity.clientId, this.clock.now()),
    }).map((route) => this.routes.add(route))
    this.accepting = true
    this.log.info(
      { hostAddresses: this.network.hostAddresses, announcedAddress: this.network.announcedAddress, portRange: this.network.portRange },
      'webrtc signalling on the gateway port',
    )
  }

  async stop(): Promise<void> {
    this.accepting = false
    for (const remove of this.removeRoutes) remove()
    this.removeRoutes = []
    const reason = new ServerShuttingDown({ message: 'server shutting down' })
    await Promise.all([...this.peers.values()].map((peer) => peer.shutdown(reason)))
  }

  private async answer(identity: TerminalIdentity, token: string, sdp: string): Promise<{ peerId: string; sdp: string }> {
    try {
      if (this.peers.size >= this.webrtc.maxPeers) {
        throw new CapacityExceeded({ message: `at most ${this.webrtc.maxPeers} WebRTC peers`, retryAfterSeconds: 5 })
      }
      // One connecting offer per client: the newer one wins (as sessions do once connected).
      const key = clientKey(identity)
      const previous = this.connecting.get(key)
      if (previous && (previous.state === 'answering' || previous.state === 'connecting')) void previous.teardown()
      const werift = await loadWerift()
      const bind = async (range: [number, number] | undefined) => {
        const pc = new werift.RTCPeerConnection(peerConfiguration(werift, this.network, range))
        const peer = new WebRtcPeer(identity, token, pc, this.ctx, werift)
        this.peers.set(peer.peerId, peer)
        try {
          const answer = await peer.answer(sdp)
          return { peer, ...answer }
        } catch (error) {
          await peer.teardown()
          // A peer closed while answering was closed by the shutdown.
          throw this.accepting ? error : new ServerShuttingDown({ message: 'server shutting down' })
        }
      }
      const { peer, sdp: answer } = this.cursor ? await this.cursor.exclusive((range) => bind(range)) : await bind(undefined)
      if (!this.accepting || peer.state !== 'answering') {
        await peer.teardown()
        throw new ServerShuttingDown({ message: 'server shutting down' })
      }
      peer.answered()
      this.connecting.set(key, peer)
      this.offers.inc({ result: 'answered' })
      this.log.debug({ peerId: peer.peerId, clientId: identity.clientId }, 'webrtc offer answered')
      return { peerId: peer.peerId, sdp: answer }
    } catch (error) {
      this.offers.inc({ result: wireCodesOf(error).code })
      if (!isHarkError(error)) this.log.error({ err: error, clientId: identity.clientId }, 'webrtc offer failed unexpectedly')
      throw error
    }
  }

  private async end(identity: TerminalIdentity, peerId: string): Promise<boolean> {
    const peer = this.peers.get(peerId)
    if (!peer || peer.workspaceId !== identity.workspaceId || peer.clientId !== identity.clientId) return false
    await peer.end()
    return true
  }
}
