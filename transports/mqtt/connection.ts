/**
 * One MQTT network connection: framing and parsing of what it receives, dispatch to the packet
 * handlers (handlers/, which see it as a PacketContext), its batched output, and its part as a
 * `TerminalLink` of the hub — downlink audio and events go out as PUBLISH packets on the
 * terminal's own topics. What every connection shares is its ConnectionContext.
 *
 * Three ways a connection ends, each with its own rule:
 *   - the client breaks the protocol (`fail`): MQTT 5 hears DISCONNECT with the reason, the will goes out;
 *   - the hub closes the session on purpose (`close`): MQTT 5 hears DISCONNECT with the reason, no will;
 *   - the network goes away, or the client says DISCONNECT (`finish`).
 */
import type { Socket } from 'node:net'
import type { IConnackPacket, IDisconnectPacket, Packet } from 'mqtt-packet'
import {
  FrameTooLarge,
  KeepAliveTimeout,
  MalformedPacket,
  ProtocolError,
  ReceiverTooSlow,
  TerminalInput,
  UnsupportedProtocolVersion,
  isHarkError,
  mqtt5DisconnectReason,
  publicMessage,
  wireCodesOf,
  type Timer,
  type Flushable,
  type HarkError,
  type ServerEvent,
  type TerminalIdentity,
  type TerminalLink,
  type TerminalSession,
} from '../../core/extension.js'
import { TRANSPORT_NAME, type ConnectionContext } from './connectionContext.js'
import { eventPublish, eventPublishSize } from './eventPublish.js'
import { FIRST_BYTE, firstByteError, LARGEST_PACKET_BYTES, PINGREQ_FIRST_BYTE, PINGRESP } from './fixedHeader.js'
import { PacketFramer, type FramingProblem, type PacketSink } from './framer.js'
import { connectPreamble } from './handlers/connect.js'
import { handlers } from './handlers/index.js'
import type { KeepaliveWatched } from './keepalive.js'
import { sessionKey } from './live.js'
import type { OutboundEvents } from './outboundEvents.js'
import { OutputBuffer } from './outputBuffer.js'
import type { Admission, ConnectionState, PacketContext } from './packetContext.js'
import type { PacketError, PacketReceiver } from './parser.js'
import { PUBLISH_QOS0, PublishTemplate } from './publishTemplate.js'
import type { StoredSession } from './sessionStore.js'
import { attachSocket, directFd, writeToSocket, type SocketOwner } from './socket.js'
import type { Subscriptions } from './subscriptions.js'
import type { TopicNamespace } from './topics.js'
import type { WillMessage } from './will.js'
import { generate } from './generate.js'

/** How a connection ends, which decides whether its will is told to the room. */
type Ending = 'graceful' | 'ungraceful' | 'administrative' | 'refused'

/** Packets received while CONNECT is being authenticated; the socket is paused meanwhile. */
const MAX_HELD_PACKETS = 256
/** A closing socket that does not take its last bytes within this time is destroyed. */
const CLOSE_GRACE_MS = 2000

export class MqttConnection implements PacketContext, TerminalLink, Flushable, PacketSink, PacketReceiver, SocketOwner, KeepaliveWatched {
  queued = false
  state: ConnectionState = 'awaiting-connect'
  /** 4 = MQTT 3.1.1, 5 = MQTT 5.0; known once CONNECT is parsed. */
  version: 4 | 5 = 4

  // Set when CONNECT is accepted (see handlers/connect.ts).
  ns!: TopicNamespace
  identity: TerminalIdentity | null = null
  session: TerminalSession | null = null
  subscriptions!: Subscriptions
  outbound!: OutboundEvents
  /** MQTT 5 topic aliases set by the client (alias → topic); made on first use, like the next. */
  get topicAliases(): Map<number, string> {
    return (this.aliases ??= new Map())
  }
  /** Identifiers of QoS 2 publishes received and not yet released by PUBREL. */
  get awaitingRelease(): Set<number> {
    return (this.unreleased ??= new Set())
  }
  private aliases: Map<number, string> | null = null
  private unreleased: Set<number> | null = null
  /** The client's Maximum Packet Size (MQTT 5); bigger packets to it are dropped. None set: the largest MQTT packet. */
  clientMaxPacketBytes = LARGEST_PACKET_BYTES
  will: WillMessage | null = null
  /** 0 = clean session: nothing is kept after the connection. */
  sessionExpirySeconds = 0
  /** When the last packet arrived (performance.now(), read once per packet): keepalive, and the receive time of its audio. */
  lastHeard = performance.now()

  private readonly framer: PacketFramer
  private readonly out = new OutputBuffer()
  /** What arrived behind a CONNECT still being decided; a refusal of one of them ends it (see `fail`). */
  private held: Array<Packet | HarkError> | null = null
  /**
   * The downlink audio template and the uplink audio prefix (topic length, topic, MQTT 5's empty
   * property list of a plain up/audio PUBLISH): made together on the first audio either way, so
   * a terminal that never talks or listens keeps neither (`audioHeaders`).
   */
  private downAudio: PublishTemplate | null = null
  private upAudioPrefix: Buffer | null = null
  /** Uplink audio and control messages, checked as on every transport: made with the first of either (`input`). */
  private inputOnce: TerminalInput | null = null
  private keepaliveMs = 0
  /** The connect timeout (on the engine's clock); the keepalive is checked by the transport's shared timers. */
  private timer: Timer | undefined
  /** `lastHeard` as the keepalive last saw it, and how many looks in a row saw nothing new (keepalive.ts keeps them). */
  lastSeen = 0
  silentChecks = 0
  private sessionHandedOver = false
  /** When audio last left for this receiver (performance.now()), read only with an audio budget. */
  private audioSentAt = Number.NEGATIVE_INFINITY
  /** This connection's place in the audio budget's batch, made the first time its audio waits. */
  private heldAudio: HeldAudio | null = null
  /** The socket's file descriptor for direct writes (plain TCP on a POSIX system), else -1. */
  private readonly fd: number
  /**
   * The close grace of a closing socket (`finish`), cleared when the socket closes: left to run, it
   * kept this connection, its session and buffers for CLOSE_GRACE_MS after every disconnect.
   */
  private closeGrace: NodeJS.Timeout | null = null

  constructor(
    readonly socket: Socket,
    readonly ctx: ConnectionContext,
  ) {
    this.fd = directFd(socket)
    this.framer = new PacketFramer(ctx.settings.maxPacketBytes, FIRST_BYTE.beforeConnect, this)
    this.timer = ctx.clock.setTimeout(() => this.finish('ungraceful'), ctx.settings.connectTimeoutSeconds * 1000)
    attachSocket(socket, this)
  }

  /** Read off the prototype: the same for every connection, no field each. */
  get transport(): string {
    return TRANSPORT_NAME
  }

  /** The checks of what an open connection publishes (up/audio, up/control), made on first use: an idle device sends neither. */
  get input(): TerminalInput {
    return (this.inputOnce ??= new TerminalInput(this.ctx.input))
  }

  /** What arrived on the socket (the shared 'data' listener). */
  received(chunk: Buffer): void {
    this.framer.push(chunk)
  }

  /** The socket is gone (the shared 'close' listener). */
  closed(): void {
    this.finish('ungraceful')
    this.ctx.clock.clearTimeout(this.timer)
    if (this.closeGrace !== null) clearTimeout(this.closeGrace)
    this.closeGrace = null
    this.ctx.onClosed(this)
  }

  /** PacketSink: the framer cut a whole packet out of what arrived. */
  packet(bytes: Buffer, bodyStart: number): boolean {
    const now = performance.now()
    if (bytes[0] === PUBLISH_QOS0 && this.state === 'open') {
      // The per-frame path: a plain QoS 0 PUBLISH to the terminal's own up/audio topic (no DUP, no
      // RETAIN, no properties) is recognised by its bytes alone — its topic is ours, so already
      // valid UTF-8 — and skips the general parser. Every other packet goes through mqtt-packet.
      const prefix = this.upAudioPrefix ?? this.audioHeaders().upAudioPrefix!
      const payloadStart = bodyStart + prefix.length
      if (payloadStart <= bytes.length && prefix.compare(bytes, bodyStart, payloadStart) === 0) {
        this.lastHeard = now
        this.uplinkAudio(bytes.subarray(payloadStart), now)
        // Widened again: uplinkAudio may have failed the connection.
        return (this.state as ConnectionState) !== 'closing'
      }
    }
    if (bytes[0] === PINGREQ_FIRST_BYTE && bytes.length === 2 && this.state === 'open') {
      // Keepalive pings of every idle device: answered from their two bytes, no parser.
      this.lastHeard = now
      this.sendBytes(PINGRESP)
      return true
    }
    if (this.state === 'awaiting-connect') {
      // The framer let only a CONNECT first byte through (fixedHeader.ts).
      const preamble = connectPreamble(bytes)
      if (preamble === 'unknown-protocol') {
        // Not MQTT [MQTT-3.1.2-1]: close without a word.
        this.ctx.onProtocolError(new MalformedPacket({ message: 'unknown protocol name' }))
        this.finish('refused')
        return false
      }
      if (preamble === 'unsupported-level') {
        // MQTT 3.1 or an unknown level: CONNACK 0x01 in the 3.1.1 layout, which every version can read [MQTT-3.1.2-2].
        this.refuse(new UnsupportedProtocolVersion({ message: 'only MQTT 3.1.1 and 5.0 are supported' }))
        return false
      }
      // From here a broken CONNECT is refused in its own version's terms (MQTT 5: CONNACK 0x81 / 0x82).
      if (preamble !== null) this.version = preamble
    }
    this.lastHeard = now
    this.ctx.parser.parse(bytes, bodyStart, this.version, this)
    return this.state !== 'closing'
  }

  /** PacketSink: the framer refused a packet from its fixed header. */
  problem(problem: FramingProblem, detail: number): void {
    this.fail(this.framingError(problem, detail))
  }

  private framingError(problem: FramingProblem, detail: number): HarkError {
    if (problem === 'too-large') {
      return new FrameTooLarge({ message: `packet of ${detail} bytes exceeds the maximum of ${this.ctx.settings.maxPacketBytes}` })
    }
    if (problem === 'bad-remaining-length') return new MalformedPacket({ message: 'invalid remaining length' })
    return firstByteError(detail, this.state === 'awaiting-connect' ? 'before-connect' : this.version)
  }

  /** PacketReceiver: mqtt-packet (made strict, parser.ts) refused a packet: a CONNECT is refused, anything later fails the connection. */
  parseFailed(error: PacketError): void {
    const message = `malformed packet: ${error.message}`
    const harkError = error.kind === 'protocol' ? new ProtocolError({ message: error.message }) : new MalformedPacket({ message })
    if (this.state === 'awaiting-connect') this.refuse(harkError)
    else this.fail(harkError)
  }

  /** PacketReceiver: a packet parsed. */
  parsed(packet: Packet): void {
    this.dispatch(packet)
  }

  private dispatch(packet: Packet): void {
    if (this.state === 'authenticating') {
      if (this.held!.length >= MAX_HELD_PACKETS) return this.fail(new ProtocolError({ message: 'too many packets before CONNACK' }))
      this.held!.push(packet)
      return
    }
    if (this.state === 'closing') return
    const handler = handlers[packet.cmd]
    handler(this, packet as never)
  }

  // ---- CONNECT lifecycle (driven by handlers/connect.ts) -------------------------------------

  /** CONNECT arrived: hold what follows until it is decided. */
  beginConnect(version: 4 | 5): void {
    this.version = version
    this.framer.setFirstByteTable(FIRST_BYTE[version])
    this.state = 'authenticating'
    this.held = []
    this.ctx.clock.clearTimeout(this.timer)
    // Let go of the spent timer's handle: an open connection keeps none.
    this.timer = undefined
    this.socket.pause()
  }

  /** CONNECT accepted: CONNACK (with anything a resumed session owes) and the hub session. */
  admit(identity: TerminalIdentity, setup: Admission): void {
    this.identity = identity
    this.ns = setup.ns
    this.subscriptions = setup.subscriptions
    this.outbound = setup.outbound
    this.will = setup.will
    this.sessionExpirySeconds = setup.sessionExpirySeconds
    this.keepaliveMs = setup.keepaliveSeconds * 1000
    this.ctx.live.set(identity.workspaceId, identity.clientId, this)
    this.state = 'open'
    this.send(setup.connack)
    for (const packet of this.outbound.resume(this)) this.sendBytes(packet)
    // The hub sends `session` (and replaces an older session of this client) inside open().
    this.session = this.ctx.hub.open(identity, this)
    // From CONNECT on (the last packet heard so far): the keepalive looks every half period.
    if (this.keepaliveMs > 0) this.ctx.keepalive.add(this, this.keepaliveMs)
    const held = this.held ?? []
    this.held = null
    for (const item of held) {
      if (this.state !== 'open') break
      if (isHarkError(item)) this.fail(item)
      else this.dispatch(item)
    }
    if (this.state === 'open') this.socket.resume()
  }

  /**
   * CONNECT refused: CONNACK with the version's code for `error` (when it has one and `answer`),
   * then close. MQTT 3.1.1 has no CONNACK code for a malformed CONNECT: it is closed without one.
   */
  refuse(error: HarkError, answer = true): void {
    if (this.state === 'closing') return
    this.ctx.onRefused(error)
    const codes = wireCodesOf(error)
    const silent = !answer || (this.version === 4 && (error._tag === 'MalformedPacket' || error._tag === 'ProtocolError'))
    if (!silent) {
      if (this.version === 5) this.sendWithReason({ cmd: 'connack', sessionPresent: false, reasonCode: codes.mqtt5 }, error)
      else this.send({ cmd: 'connack', sessionPresent: false, returnCode: codes.mqtt311 })
    }
    this.finish('refused')
  }

  /** Another connection of the same client takes this one's session state (if it keeps any). */
  handOverSession(): StoredSession | undefined {
    if (this.state !== 'open') return undefined
    this.sessionHandedOver = true
    return { filters: this.subscriptions.filters, outbound: this.outbound, protocolVersion: this.version }
  }

  // ---- output ---------------------------------------------------------------------------------

  /**
   * Queue a control packet (encoded for this connection's protocol version). A packet larger than
   * the client's Maximum Packet Size is discarded [MQTT-3.1.2-24, -25]: false then.
   */
  send(packet: Packet): boolean {
    return this.write(generate(packet, { protocolVersion: this.version }))
  }

  /** Queue an encoded event packet; one larger than the client's Maximum Packet Size is dropped and counted. */
  sendBytes(bytes: Uint8Array): void {
    if (!this.write(bytes)) this.ctx.counters.eventsDropped++
  }

  private write(bytes: Uint8Array): boolean {
    if (this.state === 'closing') return true
    if (bytes.length > this.clientMaxPacketBytes) return false
    this.out.packet(bytes)
    // Control packets (CONNACK, SUBACK, PINGRESP, events) do not wait for the audio budget: they
    // go at the end of the turn, with this connection's audio queued before them (one buffer, in order).
    this.ctx.scheduler.add(this)
    return true
  }

  /**
   * CONNACK or DISCONNECT (MQTT 5) with the error message as Reason String — left out when it
   * would make the packet exceed the client's Maximum Packet Size [MQTT-3.2.2-19, MQTT-3.14.2-3].
   */
  private sendWithReason(packet: IConnackPacket | IDisconnectPacket, reason: HarkError): void {
    const v5 = { protocolVersion: 5 } as const
    const full = generate({ ...packet, properties: { ...packet.properties, reasonString: publicMessage(reason) } }, v5)
    if (!this.write(full)) this.write(generate(packet, v5))
  }

  /** Write everything queued as one buffer: on plain TCP straight to the descriptor when it can (socket.ts). */
  flush(): void {
    const socket = this.socket
    if (this.out.empty || socket.destroyed || socket.writableEnded) return
    if (this.out.hasAudio && this.ctx.audioHold !== null) this.audioSentAt = performance.now()
    const data = this.out.drain()
    this.ctx.counters.writes++
    if (writeToSocket(socket, this.fd, data)) return
    // Audio stops queueing at maxBufferedAudioBytes; what still piles up is control output of a
    // client that does not read (its own pings, acknowledgements, QoS 0 events): bounded here.
    // It would not take its last words either: the socket goes at once (not after the close grace).
    if (socket.writableLength > this.ctx.settings.maxBufferedBytes && this.state !== 'closing') {
      this.fail(new ReceiverTooSlow({ message: `receiver too slow: more than ${this.ctx.settings.maxBufferedBytes} bytes waiting to be written` }))
      socket.destroy()
    }
  }

  /** EventEncoder: the QoS 1 PUBLISH of an event (a method, not a closure per connection). */
  encodeEvent(messageId: number, payload: Buffer): Buffer {
    return eventPublish(this.ns.downEvents, payload, this.version, messageId)
  }

  // ---- TerminalLink -----------------------------------------------------------------------------

  /** Data plane: one downlink frame, QoS 0 on down/audio; dropped when the socket is backed up. */
  deliverAudio(frame: Uint8Array): void {
    if (this.state !== 'open' || !this.subscriptions.audio) return
    const template = this.downAudio ?? this.audioHeaders().downAudio!
    const size = template.size(frame.length)
    if (
      size > this.clientMaxPacketBytes ||
      this.socket.writableLength + this.out.bytes + size > this.ctx.settings.maxBufferedAudioBytes
    ) {
      this.ctx.counters.audioBackpressure.count++
      return
    }
    this.out.audio(template, frame, size)
    // Already leaving at the end of this turn (a control packet, or audio that does not wait).
    if (this.queued) return
    const hold = this.ctx.audioHold
    if (hold === null || performance.now() - this.audioSentAt >= hold.delayMs) this.ctx.scheduler.add(this)
    else {
      // Audio left for this receiver less than the budget ago: this frame waits (at most the
      // budget) for the ones after it, so a receiver of several talkers gets them in one write.
      const held = (this.heldAudio ??= new HeldAudio(this))
      if (!held.queued) hold.add(held)
    }
  }

  /** Control plane: one event as JSON on down/events, at the QoS its subscription has. */
  sendEvent(event: ServerEvent): void {
    if (this.state !== 'open') return
    const subscribed = this.subscriptions.eventsQos
    if (subscribed < 0) return
    // The last word of a session never waits behind a full inflight window: the socket closes next.
    const qos = event.type === 'session.closing' ? 0 : subscribed
    const payload = Buffer.from(JSON.stringify(event))
    if (eventPublishSize(this.ns.downEvents, payload.length, qos, this.version) > this.clientMaxPacketBytes) {
      // Larger than the client takes: discarded, and as good as delivered — a QoS 1 event takes
      // no inflight slot it could never free [MQTT-3.1.2-25].
      this.ctx.counters.eventsDropped++
      return
    }
    if (qos === 0) {
      this.write(eventPublish(this.ns.downEvents, payload, this.version))
      return
    }
    const packet = this.outbound.offer(payload, this)
    if (packet === 'overflow') {
      // Not from inside the hub's call: the close re-enters the hub.
      setImmediate(() => this.fail(new ReceiverTooSlow({ message: 'receiver too slow: too many unacknowledged events' })))
      return
    }
    if (packet !== null) this.sendBytes(packet)
  }

  /** The audio headers of both directions, as views of one allocation (PublishTemplate.variableHeaders); once open. */
  private audioHeaders(): this {
    const mqtt5 = this.version === 5
    const [down, up] = PublishTemplate.variableHeaders([this.ns.downAudio, this.ns.upAudio], mqtt5)
    this.downAudio = new PublishTemplate(down!, mqtt5)
    this.upAudioPrefix = up!
    return this
  }

  /** The hub ends the session on purpose (revocation, deletion, a newer session, shutdown). */
  close(reason: HarkError): void {
    if (this.state === 'closing') return
    if (this.state === 'open' && this.version === 5) this.sendDisconnect(reason)
    this.finish('administrative')
  }

  /** Data plane, uplink: one frame from up/audio into the room (core/terminalInput.ts checks it). */
  uplinkAudio(payload: Buffer, now: number): void {
    const error = this.input.audio(this.session, payload, now)
    if (error !== null) this.fail(error)
  }

  // ---- endings ----------------------------------------------------------------------------------

  /** The client broke the protocol: MQTT 5 hears why, then the connection closes (will included). */
  fail(error: HarkError): void {
    if (this.state === 'closing') return
    if (this.state === 'authenticating') {
      // Behind a CONNECT not yet answered: judged after it, so CONNACK (or its refusal) comes first.
      this.framer.stop()
      this.held!.push(error)
      return
    }
    this.ctx.onProtocolError(error)
    this.ctx.log.debug({ clientId: this.identity?.clientId, code: wireCodesOf(error).code, reason: error.message }, 'mqtt connection failed')
    if (this.state === 'open') {
      // As on every binding, the last message of a session the server ends says why.
      this.sendEvent({ type: 'session.closing', code: wireCodesOf(error).code, message: publicMessage(error) })
      if (this.version === 5) this.sendDisconnect(error)
    }
    this.finish('ungraceful')
  }

  /** The client said DISCONNECT (with reason 0x04, MQTT 5 asks for its will). */
  disconnected(withWill: boolean): void {
    this.finish(withWill ? 'ungraceful' : 'graceful')
  }

  private sendDisconnect(reason: HarkError): void {
    this.sendWithReason({ cmd: 'disconnect', reasonCode: mqtt5DisconnectReason(reason) }, reason)
  }

  private finish(ending: Ending): void {
    if (this.state === 'closing') return
    const wasOpen = this.state === 'open'
    this.state = 'closing'
    this.framer.stop()
    this.ctx.clock.clearTimeout(this.timer)
    if (this.keepaliveMs > 0) this.ctx.keepalive.remove(this, this.keepaliveMs)
    this.held = null
    if (!this.socket.destroyed) {
      // Nothing it sends counts any more: stop reading it (a flooding client costs nothing from here).
      this.socket.pause()
      this.flush()
      this.socket.destroySoon()
      // Real time, not the engine's clock: it bounds real I/O (the socket's last flush).
      this.closeGrace = setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref()
    }
    if (!wasOpen) return
    const identity = this.identity!
    this.ctx.live.release(identity.workspaceId, identity.clientId, this)
    // The will goes to the room the terminal was in: asked of the session before it ends.
    const room = this.session?.room ?? null
    this.session?.end()
    const { will } = this
    if (ending === 'ungraceful' && will !== null && room !== null) {
      this.ctx.wills.publish(
        sessionKey(identity),
        { workspaceId: identity.workspaceId, clientId: identity.clientId, room },
        { ...will, delaySeconds: Math.min(will.delaySeconds, this.sessionExpirySeconds) },
      )
    }
    if (!this.sessionHandedOver && this.sessionExpirySeconds > 0) {
      this.ctx.sessions.keep(
        sessionKey(identity),
        { protocolVersion: this.version, filters: this.subscriptions.filters, outbound: this.outbound },
        this.sessionExpirySeconds,
      )
    }
  }

  // ---- keepalive --------------------------------------------------------------------------------

  /** Nothing heard for 1.5 × keepalive (keepalive.ts looks). */
  keepaliveLost(): void {
    if (this.state !== 'open') return
    this.fail(new KeepAliveTimeout({ message: `nothing received for 1.5 × keepalive (${this.keepaliveMs / 1000} s)` }))
  }
}

/**
 * A connection's entry in the audio budget's batch: a second Flushable, so that waiting audio and
 * the end-of-turn writes are queued apart. Either flush writes everything the connection has
 * queued, in order; the other then finds nothing left.
 */
class HeldAudio implements Flushable {
  queued = false
  constructor(private readonly connection: MqttConnection) {}
  flush(): void {
    this.connection.flush()
  }
}
