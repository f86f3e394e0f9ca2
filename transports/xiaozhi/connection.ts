/**
 * One xiaozhi-esp32 device on a WebSocket (spec/xiaozhi.md): the handler of its socket, the
 * TerminalLink the hub talks to, and the translation between the firmware's protocol and Hark's
 * terminal session.
 *
 *   upgraded --hello--> (hub.open) --session event--> open: server hello sent
 *   open: binary = Opus into the room (V bit from the listen state); listen stop / abort = turn.end
 *         / turn.abort to the room; mcp = JSON-RPC to the room's agents and back
 *   room audio --> `tts start`, Opus packets of the announced frame duration, `tts stop` after
 *                  TTS_STOP_AFTER_MS without audio; agent transcripts --> `stt`, `tts sentence_start`
 *   while the device listens (manual, auto): room audio held (heldAudio.ts) until its turn ends —
 *                  `listen stop`, a switch to realtime, or in auto mode an agent's answer
 *
 * Bad input closes this socket only, with the close code of core/errors.ts; a refused message of
 * a known shape, or one of an unknown type, is answered with an `error` message and the session
 * goes on. What the device sends passes the checks every transport makes (TerminalInput: Opus
 * size, frame rate, control-message rate). The hello timeout runs on the engine's clock; the tts
 * pause on real time, as it follows the room's audio. Everything the server writes is queued and
 * written once per event-loop turn.
 */
import {
  DOWNLINK_HEADER_BYTES,
  LEVEL_SILENT,
  ProtocolError,
  ReceiverTooSlow,
  TerminalInput,
  wireCodesOf,
  type ClockShape,
  type DropCell,
  type Flushable,
  type GatewaySocket,
  type GatewaySocketHandler,
  type HarkError,
  type InputLimits,
  type Logger,
  type ParticipantInfo,
  type ServerEvent,
  type TerminalHub,
  type TerminalIdentity,
  type TerminalInputOptions,
  type TerminalLink,
  type TerminalSession,
  type Timer,
  type WriteBatch,
} from '../../core/extension.js'
import { DownlinkShaper } from './downlinkShaper.js'
import { HeldAudio } from './heldAudio.js'
import {
  downlinkHeaderBytes,
  errorMessage,
  llmMessage,
  mcpMessage,
  opusOffset,
  readBinary,
  readDeviceMessage,
  sentenceMessage,
  serverHello,
  sttMessage,
  ttsMessage,
  writeBinary,
  type DeviceMessage,
  type ListenMode,
  type ProtocolVersion,
} from './protocol.js'

export const TRANSPORT_NAME = 'xiaozhi'

/** The firmware waits 10 s for the server's hello; we wait as long for the device's. */
export const HELLO_TIMEOUT_MS = 10_000
/** Room audio that pauses this long ends the device's `tts` (its speaking state). */
export const TTS_STOP_AFTER_MS = 400
/** The V|level byte of a device's frames while it listens: voice, a talker's level (the firmware sends no level). */
export const LISTENING_LEVEL_BYTE = 0x80 | 30
/** Longest text (transcript, sentence) forwarded to a device's display. */
const MAX_TEXT_CHARS = 1024

/** The uplink limits every transport has (TerminalInput), and the device's own. */
export interface ConnectionLimits extends InputLimits {
  /** Audio waiting for the device (queued + socket buffer) beyond which packets are dropped. */
  readonly audioBacklogBytes: number
  /** A device that sent no hello this long (engine clock) after the upgrade is closed. */
  readonly helloTimeoutMs: number
}

export interface ConnectionContext {
  readonly hub: TerminalHub
  readonly batch: WriteBatch
  /** The engine's clock: the hello timeout runs on it (and the control-message rate, in `input`). */
  readonly clock: ClockShape
  readonly log: Logger
  readonly limits: ConnectionLimits
  /** What every connection's TerminalInput shares (the input limits of `limits`, the clock, the rate drop cell). */
  readonly input: TerminalInputOptions
  readonly drops: { readonly backpressure: DropCell; readonly rate: DropCell; readonly closed: DropCell }
  /** Told once when the connection is gone. */
  readonly gone: (connection: XiaozhiConnection) => void
}

/** What the upgrade request established. */
export interface DeviceHandshake {
  readonly identity: TerminalIdentity
  readonly version: ProtocolVersion
  readonly deviceId: string | null
  readonly clientUuid: string | null
}

type State = 'hello' | 'opening' | 'open' | 'closed'

export class XiaozhiConnection implements GatewaySocketHandler, TerminalLink, Flushable {
  readonly transport = TRANSPORT_NAME
  queued = false
  session: TerminalSession | null = null
  private state: State = 'hello'
  /** The socket is closed (its close callback ran). */
  private gone = false
  private sessionId: string | null = null
  private frameDuration = 60
  private shaper: DownlinkShaper | null = null
  private features: Readonly<Record<string, unknown>> = {}
  /** Between `listen start` (or `detect`) and `listen stop`: the device's frames carry the voice bit. */
  private listening = false
  /** The mode of the device's last `listen start` (a wake word's `detect` keeps it; the firmware's default is auto). */
  private listenMode: ListenMode = 'auto'
  /** Listening with its microphone off while it plays (manual, auto): room audio is held, not sent. */
  private holding = false
  private held: HeldAudio | null = null
  /** Source ids of the agents in the device's room: in auto mode their audio is the answer that ends its turn. */
  private readonly agentSources = new Set<number>()
  /** Milliseconds the device plays behind the room after held audio was released: `tts stop` waits as much longer. */
  private lagMs = 0
  /** Between `tts start` and `tts stop` as sent to the device. */
  private speaking = false
  /** After an abort, room audio is dropped until it pauses or the device ends its next turn (the reply it cut off). */
  private muted = false
  private lastRoomAudioAt = 0
  /** When room audio was last held for the listening device (its talk spurt goes on while newer than TTS_STOP_AFTER_MS). */
  private lastHeldAt = -Infinity
  /** Real time: it follows the room audio's own pauses (the data plane), not the engine's clock. */
  private ttsTimer: NodeJS.Timeout | undefined
  private helloTimer: Timer | undefined
  private readonly pending: Array<Uint8Array | string> = []
  private pendingAudioBytes = 0
  private readonly packets: Uint8Array[] = []
  private downlink = new Uint8Array(0)
  /** The uplink checks every transport makes: Opus size, frame rate, control-message rate. */
  private readonly input: TerminalInput
  private readonly startedAt = performance.now()

  constructor(
    private readonly socket: GatewaySocket,
    private readonly handshake: DeviceHandshake,
    private readonly ctx: ConnectionContext,
  ) {
    this.input = new TerminalInput(ctx.input, this.startedAt)
    const helloMs = ctx.limits.helloTimeoutMs
    this.helloTimer = ctx.clock.setTimeout(() => this.fail(new ProtocolError({ message: `no hello within ${helloMs} ms` })), helloMs)
  }

  get clientId(): string {
    return this.handshake.identity.clientId
  }

  get workspaceId(): string {
    return this.handshake.identity.workspaceId
  }

  // ---- GatewaySocketHandler (what the device sends) ----

  message(data: ArrayBuffer, binary: boolean): void {
    if (this.state === 'closed') return
    const bytes = new Uint8Array(data)
    if (binary) this.onBinary(bytes)
    else this.onText(bytes)
  }

  closed(): void {
    if (this.gone) return
    this.gone = true
    this.state = 'closed'
    this.stopTimers()
    this.pending.length = 0
    this.pendingAudioBytes = 0
    const session = this.session
    this.session = null
    session?.end()
    this.ctx.gone(this)
  }

  private onBinary(bytes: Uint8Array): void {
    const version = this.handshake.version
    const at = opusOffset(version, bytes)
    if (at < 0) {
      // Not plain audio: JSON in a v2 message, or something to refuse (readBinary says what).
      const payload = readBinary(version, bytes)
      if (payload.kind === 'json') return this.onText(payload.text)
      return this.fail(payload.kind === 'error' ? payload.error : new ProtocolError({ message: 'malformed binary message' }))
    }
    if (this.state === 'hello') return this.fail(new ProtocolError({ message: 'audio sent before the hello exchange' }))
    // The firmware sends no level: its listen state says whether it is talking. A session not yet
    // open (hello sent, `session` not yet told) is refused by the input check as well.
    const levelByte = this.listening ? LISTENING_LEVEL_BYTE : LEVEL_SILENT
    const opus = at === 0 ? bytes : bytes.subarray(at)
    const error = this.input.audioFromOpus(this.state === 'open' ? this.session : null, levelByte, opus, performance.now())
    if (error !== null) this.fail(error)
  }

  private onText(bytes: Uint8Array): void {
    const overRate = this.input.countControl()
    if (overRate !== null) return this.fail(overRate)
    const result = readDeviceMessage(bytes, this.handshake.version)
    if (!result.ok) {
      if (result.fatal || this.state === 'hello') return this.fail(result.error)
      const { code } = wireCodesOf(result.error)
      return this.queue(errorMessage(this.sessionId, code, result.error.message))
    }
    const message = result.message
    if (this.state === 'hello') {
      if (message.type !== 'hello') return this.fail(new ProtocolError({ message: `expected hello first, got ${message.type}` }))
      return this.hello(message)
    }
    if (message.type === 'hello') {
      return this.queue(errorMessage(this.sessionId, 'protocol_error', 'hello was already exchanged'))
    }
    if (this.state !== 'open') return
    this.apply(message)
  }

  private hello(message: Extract<DeviceMessage, { type: 'hello' }>): void {
    this.ctx.clock.clearTimeout(this.helloTimer)
    this.helloTimer = undefined
    this.frameDuration = message.audio_params.frame_duration
    this.shaper = new DownlinkShaper(this.frameDuration)
    this.held = new HeldAudio(this.frameDuration * 10)
    this.features = message.features
    this.state = 'opening'
    try {
      // Mixed: the firmware plays one stream; one talker reaches it untouched, several are mixed.
      this.session = this.ctx.hub.open(this.handshake.identity, this, { audioMode: 'mixed' })
    } catch (error) {
      this.ctx.log.error({ err: error, clientId: this.clientId }, 'could not open a xiaozhi session')
      this.fail(new ProtocolError({ message: 'could not open a session' }))
      return
    }
    // Told once the session is ours (the hub said `session` inside open): its room's agents may call the device's tools.
    if (this.features.mcp === true) this.tellRoom({ kind: 'mcp.ready' })
  }

  private apply(message: DeviceMessage): void {
    switch (message.type) {
      case 'listen':
        if (message.state === 'stop') {
          this.listening = false
          // Whatever the room says after the device's next turn is an answer to it, not the cut reply.
          this.muted = false
          this.updateHold()
          this.tellRoom({ kind: 'turn.end' })
        } else {
          if (message.state === 'start') this.listenMode = message.mode
          this.listening = true
          this.updateHold()
        }
        return
      case 'abort':
        // What was held for the device is dropped with what is queued: it stopped playing.
        this.dropHeld()
        this.abortPlayback()
        this.tellRoom({ kind: 'turn.abort', reason: message.reason })
        return
      case 'mcp':
        this.tellRoom({ kind: 'mcp', payload: message.payload })
        return
      case 'goodbye':
        this.closeWith(1000, 'goodbye')
        return
      case 'iot':
      case 'hello':
        return
    }
  }

  /** A participant.event from this device to its room (agents hear it through onEvent). */
  private tellRoom(event: Readonly<Record<string, unknown>>): void {
    // The room the device is in now, read from the room's own membership (no copy kept here).
    const room = this.session?.room ?? null
    if (room === null) return
    this.ctx.hub.broadcast(this.workspaceId, room, { type: 'participant.event', room, participantId: this.clientId, event })
  }

  // ---- TerminalLink (what the hub sends) ----

  deliverAudio(frame: Uint8Array): void {
    if (this.state !== 'open') {
      this.ctx.drops.closed.count++
      return
    }
    const now = performance.now()
    this.lastRoomAudioAt = now
    if (this.muted) return
    if (this.holding) {
      if (!this.answers(frame)) return this.hold(frame, now)
      // Auto mode: an agent answers. `tts start` ends the device's turn (its microphone stops), as
      // the firmware expects from its server.
      this.listening = false
      this.updateHold()
    }
    this.startSpeaking()
    const packets = this.packets
    this.shaper!.push(frame.subarray(DOWNLINK_HEADER_BYTES), packets)
    for (let i = 0; i < packets.length; i++) this.queueAudio(packets[i]!)
    packets.length = 0
  }

  /** In auto mode, an agent's audio answers the device (a room without agents: anyone's). Per frame: no allocation. */
  private answers(frame: Uint8Array): boolean {
    if (this.listenMode !== 'auto') return false
    return this.agentSources.size === 0 || this.agentSources.has((frame[2]! << 8) | frame[3]!)
  }

  /** The device listens: keep the latest HOLD_MS of this talk spurt, shaped, for the end of its turn. */
  private hold(frame: Uint8Array, now: number): void {
    // What was held is of a talk spurt that is over: it would reach the device late.
    if (now - this.lastHeldAt >= TTS_STOP_AFTER_MS) this.dropHeld()
    this.lastHeldAt = now
    const packets = this.packets
    this.shaper!.push(frame.subarray(DOWNLINK_HEADER_BYTES), packets)
    for (let i = 0; i < packets.length; i++) this.held!.push(packets[i]!, now)
    packets.length = 0
  }

  /** Hold room audio while the device listens with its microphone off during playback; release it when the turn ends. */
  private updateHold(): void {
    const holding = this.listening && this.listenMode !== 'realtime'
    if (holding === this.holding) return
    this.holding = holding
    if (holding) {
      // The device listens (it said so): it left its speaking state, and plays nothing more.
      if (this.speaking) {
        this.speaking = false
        this.lagMs = 0
        this.shaper!.reset()
      }
      return
    }
    const now = performance.now()
    // A spurt that ended during the turn is over for the device too.
    if (now - this.lastHeldAt >= TTS_STOP_AFTER_MS) return this.dropHeld()
    const held = this.held!
    if (held.size === 0) return
    this.startSpeaking()
    this.lagMs = held.release(now, this.sendHeld)
  }

  /** Forget the held audio and the frames the shaper still joins from it. */
  private dropHeld(): void {
    this.held!.clear()
    this.shaper!.reset()
  }

  private readonly sendHeld = (packet: Uint8Array): void => this.queueAudio(packet)

  private startSpeaking(): void {
    if (this.speaking) return
    this.speaking = true
    this.queue(ttsMessage(this.sessionId!, 'start'))
    if (this.ttsTimer === undefined) this.armTtsTimer(TTS_STOP_AFTER_MS)
  }

  sendEvent(event: ServerEvent): void {
    if (this.state === 'closed') return
    switch (event.type) {
      case 'session':
        this.sessionId = event.sessionId
        this.state = 'open'
        this.setAgents(event.participants)
        this.queue(serverHello(event.sessionId, this.frameDuration))
        return
      case 'room.changed':
        this.setAgents(event.participants)
        this.endSpeaking()
        this.dropHeld()
        // The agents of the room it moved to learn that they can call this device's tools.
        if (this.features.mcp === true) this.tellRoom({ kind: 'mcp.ready' })
        return
      case 'participant.joined':
        if (event.participant.kind !== 'agent') return
        this.agentSources.add(event.participant.sourceId)
        // An agent that comes later learns too that it can call this device's tools.
        if (this.features.mcp === true) this.tellRoom({ kind: 'mcp.ready' })
        return
      case 'participant.left':
        if (event.participant.kind === 'agent') this.agentSources.delete(event.participant.sourceId)
        return
      case 'agent.event':
        this.fromAgent(event.event)
        return
      default:
        return
    }
  }

  close(reason: HarkError): void {
    const { ws, code } = wireCodesOf(reason)
    this.closeWith(ws, code)
  }

  private setAgents(participants: ReadonlyArray<ParticipantInfo>): void {
    this.agentSources.clear()
    for (const p of participants) if (p.kind === 'agent') this.agentSources.add(p.sourceId)
  }

  /** What an agent of the room tells the devices: transcripts, emotions, MCP requests. */
  private fromAgent(e: Readonly<Record<string, unknown>>): void {
    const sessionId = this.sessionId!
    if (e.kind === 'transcript' && typeof e.text === 'string' && e.text.length > 0) {
      const text = e.text.slice(0, MAX_TEXT_CHARS)
      if (e.role === 'user') this.queue(sttMessage(sessionId, text))
      else if (e.role === 'agent') this.queue(sentenceMessage(sessionId, text))
    } else if (e.kind === 'emotion' && typeof e.emotion === 'string') {
      this.queue(llmMessage(sessionId, e.emotion.slice(0, 32), typeof e.text === 'string' ? e.text.slice(0, 16) : ''))
    } else if (e.kind === 'mcp' && (e.to === undefined || e.to === this.clientId)) {
      const payload = e.payload
      if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
        this.queue(mcpMessage(sessionId, payload as Readonly<Record<string, unknown>>))
      }
    }
  }

  // ---- tts framing of room audio ----

  private armTtsTimer(ms: number): void {
    this.ttsTimer = setTimeout(this.checkPause, ms)
    this.ttsTimer.unref()
  }

  /** Room audio paused long enough: end the device's speaking state (or lift an abort's mute). */
  private readonly checkPause = (): void => {
    this.ttsTimer = undefined
    if (this.state !== 'open') return
    const idle = performance.now() - this.lastRoomAudioAt
    const wait = TTS_STOP_AFTER_MS + this.lagMs
    if (idle < wait) return this.armTtsTimer(wait - idle)
    this.muted = false
    this.endSpeaking()
  }

  private endSpeaking(): void {
    if (!this.speaking) return
    this.speaking = false
    this.lagMs = 0
    this.shaper!.flush(this.packets)
    for (const p of this.packets) this.queueAudio(p)
    this.packets.length = 0
    this.queue(ttsMessage(this.sessionId!, 'stop'))
  }

  /** The device stopped playing: drop what is queued for it and the rest of this talk spurt. */
  private abortPlayback(): void {
    if (!this.speaking) return
    this.speaking = false
    this.lagMs = 0
    this.shaper!.reset()
    for (let i = this.pending.length - 1; i >= 0; i--) if (typeof this.pending[i] !== 'string') this.pending.splice(i, 1)
    this.pendingAudioBytes = 0
    this.queue(ttsMessage(this.sessionId!, 'stop'))
    this.muted = true
    if (this.ttsTimer === undefined) this.armTtsTimer(TTS_STOP_AFTER_MS)
  }

  // ---- writing, once per event-loop turn ----

  private queue(text: string): void {
    if (this.state === 'closed') return
    this.pending.push(text)
    if (!this.queued) this.ctx.batch.add(this)
  }

  private queueAudio(packet: Uint8Array): void {
    if (this.pendingAudioBytes + packet.length > this.ctx.limits.audioBacklogBytes) {
      this.ctx.drops.backpressure.count++
      return
    }
    this.pending.push(packet)
    this.pendingAudioBytes += packet.length
    if (!this.queued) this.ctx.batch.add(this)
  }

  flush(): void {
    if (this.pending.length === 0) return
    if (this.state === 'closed') {
      this.pending.length = 0
      this.pendingAudioBytes = 0
      return
    }
    if (this.pending.length === 1) this.writePending()
    else this.socket.cork(this.writePending)
  }

  private readonly writePending = (): void => {
    const pending = this.pending
    const version = this.handshake.version
    const header = downlinkHeaderBytes(version)
    let buffered = this.socket.bufferedAmount
    let tooSlow = false
    for (let i = 0; i < pending.length; i++) {
      const item = pending[i]!
      if (typeof item === 'string') {
        if (!this.socket.send(item, false)) {
          tooSlow = true
          break
        }
        buffered += item.length
        continue
      }
      if (buffered + item.length > this.ctx.limits.audioBacklogBytes) {
        this.ctx.drops.backpressure.count++
        continue
      }
      if (header > 0 && this.downlink.length < header + item.length) this.downlink = new Uint8Array(header + item.length + 256)
      // The socket copies what it is given: one scratch buffer serves every packet.
      const timestamp = Math.round(performance.now() - this.startedAt)
      this.socket.send(writeBinary(version, item, this.downlink, timestamp), true)
      buffered += header + item.length
    }
    pending.length = 0
    this.pendingAudioBytes = 0
    if (tooSlow) this.fail(new ReceiverTooSlow({ message: 'receiver too slow: its connection stopped taking data' }))
  }

  // ---- ending ----

  /** Close for a problem the device caused (its session, if any, says session.closing first). */
  fail(error: HarkError): void {
    if (this.state === 'closed') return
    this.ctx.log.debug({ clientId: this.clientId, reason: error.message }, 'xiaozhi device refused')
    if (this.session) this.session.close(error)
    else this.close(error)
  }

  private closeWith(code: number, reason: string): void {
    if (this.state === 'closed') return
    // What is queued (a tts stop, the last packets) goes out before the close frame.
    this.flush()
    this.state = 'closed'
    this.stopTimers()
    this.socket.close(code, reason)
  }

  private stopTimers(): void {
    this.ctx.clock.clearTimeout(this.helloTimer)
    clearTimeout(this.ttsTimer)
    this.helloTimer = undefined
    this.ttsTimer = undefined
  }
}
