/**
 * One WebRTC terminal: a werift RTCPeerConnection that answered the terminal's offer, and the
 * TerminalLink the hub talks to (spec/webrtc.md).
 *
 *   - Signalling is non-trickle: `answer()` applies the offer, gathers every candidate, and
 *     returns the complete answer.
 *   - The hub session opens when the terminal's data channel opens (DTLS and SCTP are up); the
 *     token is checked once more then. Events and control messages travel on that channel as the
 *     same JSON text as on WebSocket.
 *   - Uplink: each Opus RTP packet becomes one uplink frame, payload untouched, its V|level byte
 *     taken from the RFC 6464 audio-level header extension.
 *   - Downlink: the session is in `mixed` mode, so the room sends one stream; every frame goes out
 *     on the one audio track, re-stamped by OutboundClock so sequence numbers and timestamps stay
 *     continuous across source switches, mixes and silences (the SSRC is the sender's, constant).
 *   - Lifecycle: ICE or DTLS failure (including consent expiry), the channel closing, DELETE of
 *     the peer resource, the connect timeout, the hub closing the session (revocation, deletion,
 *     replacement, shutdown) — each ends in `teardown()`, which closes the connection (and so its
 *     UDP socket and werift's timers) exactly once.
 */
import type { Extensions, RTCDataChannel, RTCPeerConnection, RTCRtpSender, RtpPacket } from 'werift'
import {
  CapacityExceeded,
  DOWNLINK_HEADER_BYTES,
  Internal,
  isHarkError,
  ProtocolError,
  publicMessage,
  randomBase62,
  ReceiverTooSlow,
  TerminalInput,
  type TerminalInputOptions,
  ValidationFailed,
  wireCodesOf,
  type ClientMessage,
  type ClockShape,
  type Timer,
  type DropCell,
  type HarkError,
  type InputLimits,
  type Logger,
  type ServerEvent,
  type TerminalHub,
  type TerminalIdentity,
  type TerminalLink,
  type TerminalSession,
} from '../../core/extension.js'
import { finishAnswer } from './offer.js'
import { opusPacketSamples48k } from './opusPacket.js'
import { OutboundClock } from './outboundClock.js'
import type { Werift } from './werift.js'

export const TRANSPORT_NAME = 'webrtc'
export const AUDIO_LEVEL_URI = 'urn:ietf:params:rtp-hdrext:ssrc-audio-level'
/** Uplink V|level byte when a packet carries no audio-level extension: voiced, −30 dBov (terminal-protocol.md). */
export const UNMEASURED_LEVEL_BYTE = 0x80 | 30
/**
 * A packet counts as voiced only when the extension's V bit is set *and* its level is at most this
 * many −dBov (the protocol's reference rule): Chromium sets V on every non-DTX packet, silence too.
 */
export const VOICED_MAX_DBOV = 50
/** How long gathering may take before the offer fails (host candidates take milliseconds). */
const GATHER_TIMEOUT_MS = 5000
/** How long a closing peer waits for its data channel to flush `session.closing`. */
const CLOSE_GRACE_MS = 1000
/** How long the terminal may take to answer the data channel's stream reset before the association is aborted. */
const CHANNEL_CLOSE_GRACE_MS = 500
/** Events waiting in the data channel beyond which the terminal is too slow (as WebSocket's 1 MiB). */
export const MAX_EVENT_BACKLOG_BYTES = 1024 * 1024

/** One-byte audio-level extension payloads, one per V|level value, shared by every packet. */
const LEVEL_PAYLOADS: readonly Buffer[] = Array.from({ length: 256 }, (_, i) => Buffer.of(i))
const ignore = (): void => {}

export type PeerLimits = InputLimits

/** One audio track carries one stream: per-source frames have nowhere to go. */
export const mixedOnly = (message: ClientMessage): HarkError | null =>
  message.type === 'audio.mode' && message.audioMode !== 'mixed'
    ? new ValidationFailed({ field: 'audioMode', message: 'a WebRTC peer receives the mixed stream only ("audioMode" must be "mixed")' })
    : null

export interface PeerContext {
  readonly hub: TerminalHub
  readonly clock: ClockShape
  readonly log: Logger
  readonly limits: PeerLimits
  /** What every peer's TerminalInput shares: `limits`, the clock, the rate drop cell, mixed-only audio. */
  readonly input: TerminalInputOptions
  readonly connectTimeoutMs: number
  readonly announcedAddress: string | null
  readonly drops: { readonly rate: DropCell; readonly closed: DropCell }
  /** Check the credential again when the data channel opens (it may have been revoked since the offer). */
  readonly reauthenticate: (token: string) => Promise<TerminalIdentity>
  /** Told once, when the peer is closed. */
  readonly gone: (peer: WebRtcPeer) => void
}

export type PeerState = 'answering' | 'connecting' | 'open' | 'closing' | 'closed'

export class WebRtcPeer implements TerminalLink {
  readonly transport = TRANSPORT_NAME
  readonly peerId = `wrp_${randomBase62(16)}`
  state: PeerState = 'answering'
  session: TerminalSession | null = null
  /** Resolves once the connection is closed (socket released). */
  readonly closed: Promise<void>
  private resolveClosed!: () => void
  private channel: RTCDataChannel | null = null
  private sender: RTCRtpSender | null = null
  private levelExtensionId = 0
  private readonly outbound = new OutboundClock()
  private readonly input: TerminalInput
  /** webrtc.connectTimeoutMs, on the engine's clock. */
  private connectTimer: Timer | undefined
  /** Real time: it bounds real I/O (the data channel's last flush), as the gathering and channel-close waits do. */
  private graceTimer: NodeJS.Timeout | undefined
  private failing = false
  private stopGathering: (() => void) | null = null

  constructor(
    readonly identity: TerminalIdentity,
    private readonly token: string,
    private readonly pc: RTCPeerConnection,
    private readonly ctx: PeerContext,
    /** werift's RTP classes (the module is loaded by the first offer: werift.ts). */
    private readonly rtp: Pick<Werift, 'RtpHeader' | 'RtpPacket'>,
  ) {
    this.input = new TerminalInput(ctx.input)
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve))
  }

  get workspaceId(): string {
    return this.identity.workspaceId
  }
  get clientId(): string {
    return this.identity.clientId
  }

  // ---- Signalling ----

  /**
   * Apply the (already checked) offer and return the complete answer, candidates included.
   * Throws ValidationFailed when werift refuses the offer, CapacityExceeded when no candidate
   * could be gathered; the caller tears the peer down on any failure.
   */
  async answer(offerSdp: string): Promise<{ sdp: string; port: number | null }> {
    const pc = this.pc
    pc.onTrack.subscribe((track) => {
      if (track.kind === 'audio') track.onReceiveRtp.subscribe(this.onRtp)
    })
    pc.onDataChannel.subscribe((channel) => this.adopt(channel))
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'failed' || state === 'closed') this.lost(`connection ${state}`)
    })
    try {
      await pc.setRemoteDescription({ type: 'offer', sdp: offerSdp })
    } catch (e) {
      throw new ValidationFailed({ field: 'sdp', message: `the offer was refused: ${(e as Error).message}` })
    }
    const transceiver = pc.getTransceivers().find((t) => t.kind === 'audio')
    if (!transceiver) throw new ValidationFailed({ field: 'sdp', message: 'the offer has no audio section' })
    transceiver.setDirection('sendrecv')
    this.sender = transceiver.sender
    this.levelExtensionId = Number(Object.entries(pc.extIdUriMap).find(([, uri]) => uri === AUDIO_LEVEL_URI)?.[0] ?? 0)
    await pc.setLocalDescription(await pc.createAnswer())
    await this.gathered()
    const local = pc.localDescription
    if (!local) throw new Internal({ message: 'no local description after gathering' })
    const answer = finishAnswer(local.sdp, this.ctx.announcedAddress)
    if (answer.candidates === 0) throw new CapacityExceeded({ message: 'no UDP port could be bound for ICE', retryAfterSeconds: 5 })
    const port = /^a=candidate:\S+ \d+ udp \d+ \S+ (\d+) /m.exec(local.sdp)
    return { sdp: answer.sdp, port: port ? Number(port[1]) : null }
  }

  /** The answer is on its way: from now the terminal has connectTimeoutMs to open its data channel. */
  answered(): void {
    if (this.state !== 'answering') return
    this.state = 'connecting'
    this.connectTimer = this.ctx.clock.setTimeout(() => {
      if (this.state !== 'connecting') return
      this.ctx.log.debug({ peerId: this.peerId, clientId: this.clientId }, 'webrtc peer did not connect in time')
      void this.teardown()
    }, this.ctx.connectTimeoutMs)
  }

  private gathered(): Promise<void> {
    const pc = this.pc
    if (pc.iceGatheringState === 'complete') return Promise.resolve()
    return new Promise((resolve, reject) => {
      const settle = (error: HarkError | null) => {
        clearTimeout(timer)
        subscription.unSubscribe()
        this.stopGathering = null
        if (error) reject(error)
        else resolve()
      }
      const timer = setTimeout(() => settle(new CapacityExceeded({ message: 'ICE candidate gathering timed out', retryAfterSeconds: 5 })), GATHER_TIMEOUT_MS)
      const subscription = pc.iceGatheringStateChange.subscribe((state) => {
        if (state === 'complete') settle(null)
      })
      // A teardown meanwhile (shutdown) must not leave the timer behind.
      this.stopGathering = () => settle(new Internal({ message: 'peer closed while gathering' }))
    })
  }

  // ---- The data channel ----

  /** The first data channel the terminal opens carries the protocol; others are ignored. */
  private adopt(channel: RTCDataChannel): void {
    if (this.channel !== null || this.state === 'closed') return
    this.channel = channel
    channel.onMessage.subscribe(this.onMessage)
    channel.stateChanged.subscribe((state) => {
      if (state === 'open') void this.opened()
      else if (state === 'closed') this.lost('data channel closed')
    })
    if (channel.readyState === 'open') void this.opened()
  }

  private async opened(): Promise<void> {
    if (this.state !== 'connecting') return
    this.ctx.clock.clearTimeout(this.connectTimer)
    let identity: TerminalIdentity
    try {
      identity = await this.ctx.reauthenticate(this.token)
    } catch (error) {
      if (this.state !== 'connecting') return
      if (!isHarkError(error)) this.ctx.log.error({ err: error, peerId: this.peerId }, 'webrtc re-authentication failed unexpectedly')
      this.close(isHarkError(error) ? error : new Internal({ message: 'authentication failed' }), true)
      return
    }
    if (this.state !== 'connecting') return
    this.state = 'open'
    try {
      // The hub sends `session` at once (through sendEvent), then the room's events and audio.
      this.session = this.ctx.hub.open(identity, this, { audioMode: 'mixed' })
    } catch (error) {
      this.ctx.log.error({ err: error, peerId: this.peerId }, 'could not open a webrtc terminal session')
      this.close(new Internal({ message: 'could not open a session' }), true)
    }
  }

  private readonly onMessage = (data: string | Buffer): void => {
    const session = this.session
    if (this.state !== 'open' || session === null) {
      if (this.state === 'connecting') this.fail(new ProtocolError({ message: 'control message sent before the session event' }))
      return
    }
    if (typeof data !== 'string') {
      this.fail(new ProtocolError({ message: 'binary data channel messages are not part of the protocol (audio travels as RTP)' }))
      return
    }
    const refusal = this.input.control(session, data, this)
    if (refusal?.fatal) this.fail(refusal.error)
  }

  // ---- Media ----

  /** Uplink: one Opus RTP packet → one uplink frame into the room, payload untouched. */
  private readonly onRtp = (rtp: RtpPacket, extensions?: Extensions): void => {
    const session = this.session
    if (session === null || this.state !== 'open') return
    const level = extensions?.[AUDIO_LEVEL_URI] as { v: boolean; level: number } | undefined
    const levelByte =
      level === undefined ? UNMEASURED_LEVEL_BYTE : ((level.v && level.level <= VOICED_MAX_DBOV ? 0x80 : 0) | (level.level & 0x7f))
    // Padding-only packets carry no audio; the frame is copied by the router before this returns.
    const error = this.input.audioFromOpus(session, levelByte, rtp.payload, performance.now())
    if (error !== null) this.fail(error)
  }

  // ---- TerminalLink (what the hub calls) ----

  /** Downlink: the room's mixed stream, one frame → one RTP packet on the audio track. */
  deliverAudio(frame: Uint8Array): void {
    const sender = this.sender
    if (this.state !== 'open' || sender === null) {
      this.ctx.drops.closed.count++
      return
    }
    // A view on the frame's slab (never frame.buffer as a whole): the bytes never change.
    const opus = Buffer.from(frame.buffer, frame.byteOffset + DOWNLINK_HEADER_BYTES, frame.byteLength - DOWNLINK_HEADER_BYTES)
    const clock = this.outbound
    clock.next(performance.now(), opusPacketSamples48k(opus))
    const { RtpHeader, RtpPacket } = this.rtp
    const header = new RtpHeader({
      sequenceNumber: clock.sequenceNumber,
      timestamp: clock.timestamp,
      marker: clock.marker,
      extensions: this.levelExtensionId > 0 ? [{ id: this.levelExtensionId, payload: LEVEL_PAYLOADS[frame[1]!]! }] : [],
    })
    // The sender sets the SSRC and payload type; a failed send is a lost packet, nothing more.
    sender.sendRtp(new RtpPacket(header, opus)).catch(ignore)
  }

  sendEvent(event: ServerEvent): void {
    const channel = this.channel
    if (channel === null || channel.readyState !== 'open' || this.state === 'closed') return
    if (channel.bufferedAmount > MAX_EVENT_BACKLOG_BYTES) {
      // Not from inside the hub's call: the hub may be in the middle of sending this very event.
      if (!this.failing) queueMicrotask(() => this.fail(new ReceiverTooSlow({ message: 'receiver too slow: its data channel stopped taking data' })))
      this.failing = true
      return
    }
    channel.send(JSON.stringify(event))
  }

  /**
   * End the connection for `reason` (the hub already sent `session.closing`). With `announce`, say
   * `session.closing` here (no hub session exists yet). The channel gets a moment to flush it.
   */
  close(reason: HarkError, announce = false): void {
    if (this.state === 'closing' || this.state === 'closed') return
    const wasOpen = this.state === 'open' || this.state === 'connecting'
    this.state = 'closing'
    this.ctx.clock.clearTimeout(this.connectTimer)
    this.ctx.log.debug({ peerId: this.peerId, clientId: this.clientId, code: wireCodesOf(reason).code }, 'closing webrtc peer')
    const channel = this.channel
    if (announce && wasOpen) this.sendEvent({ type: 'session.closing', code: wireCodesOf(reason).code, message: publicMessage(reason) })
    if (channel === null || channel.readyState !== 'open' || channel.bufferedAmount === 0) {
      // Let the SCTP stack put what was just queued on the wire before DTLS closes.
      setImmediate(() => void this.teardown())
      return
    }
    const drained = channel.bufferedAmountLow.subscribe(() => {
      drained.unSubscribe()
      void this.teardown()
    })
    this.graceTimer = setTimeout(() => void this.teardown(), CLOSE_GRACE_MS)
  }

  // ---- Endings ----

  /** The terminal ends its session itself (DELETE of the peer resource). */
  end(): Promise<void> {
    void this.teardown()
    return this.closed
  }

  /** Server shutdown: say why, then close. */
  shutdown(reason: HarkError): Promise<void> {
    if (this.session) this.session.close(reason)
    else if (this.state === 'answering') void this.teardown()
    else this.close(reason, true)
    return this.closed
  }

  /** A problem this terminal caused: `session.closing` with its code, then close. */
  private fail(error: HarkError): void {
    if (this.session) this.session.close(error)
    else this.close(error, true)
  }

  /** The connection or the channel went away under us. */
  private lost(why: string): void {
    if (this.state === 'closed') return
    if (this.state !== 'closing') this.ctx.log.debug({ peerId: this.peerId, clientId: this.clientId, why }, 'webrtc peer lost')
    void this.teardown()
  }

  private closeChannel(channel: RTCDataChannel): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        subscription.unSubscribe()
        resolve()
      }
      const timer = setTimeout(done, CHANNEL_CLOSE_GRACE_MS)
      const subscription = channel.stateChanged.subscribe((state) => {
        if (state === 'closed') done()
      })
      channel.close()
    })
  }

  /** Close everything once: the hub session, the timers, the connection (its socket and werift's timers). */
  async teardown(): Promise<void> {
    if (this.state === 'closed') return this.closed
    this.state = 'closed'
    this.ctx.clock.clearTimeout(this.connectTimer)
    clearTimeout(this.graceTimer)
    this.stopGathering?.()
    this.session?.end()
    this.ctx.gone(this)
    // Tell the terminal before the connection goes: werift's close() sends no DTLS close_notify,
    // and stops DTLS before SCTP so its SCTP ABORT never leaves. So: reset the channel (ordered
    // after the data already sent, so `session.closing` arrives first), then abort the association
    // ourselves, which closes the terminal's channel at once (Chromium and werift alike) instead
    // of when its ICE consent expires (~30 s).
    const channel = this.channel
    if (channel !== null) {
      if (channel.readyState === 'open') await this.closeChannel(channel)
      await this.pc.sctpTransport?.stop().catch(ignore)
      // The ABORT is written to the socket a turn later: let it leave before the socket closes.
      await new Promise((resolve) => setImmediate(resolve))
    }
    try {
      await this.pc.close()
    } catch (error) {
      this.ctx.log.warn({ err: error, peerId: this.peerId }, 'closing a webrtc peer connection failed')
    }
    this.ctx.log.debug(
      { peerId: this.peerId, clientId: this.clientId, packetsSent: this.outbound.packets, talkSpurts: this.outbound.spurts },
      'webrtc peer closed',
    )
    this.resolveClosed()
    return this.closed
  }
}
