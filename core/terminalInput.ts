/**
 * What a terminal sends, checked the same way on every transport: one `TerminalInput` per
 * connection takes its uplink audio frames and its control messages, applies the protocol's
 * size and rate limits (spec/terminal-protocol.md, Limits), and hands what passes to the session.
 * The transport only frames and unframes; what is fatal comes back as the error to close the
 * connection with (the transport says `session.closing` with it), everything else is handled here:
 *
 *   - audio: empty or oversized → fatal; over the frame rate → dropped and counted (`rate`).
 *   - control: over the message rate → fatal (rate_limited); oversized, not UTF-8, not a JSON
 *     object with a string `type` → fatal; a known message with a bad field, or one the transport
 *     refuses → an `error` event, the session goes on; a good one is answered (core/clientMessages.ts).
 *
 * The audio path is the per-frame path: plain numbers, no allocation unless the frame is refused.
 */
import { answerClientMessage, parseClientMessage } from './clientMessages.js'
import type { ClockShape } from './clock.js'
import type { DropCell } from './dataplane/drops.js'
import { MAX_OPUS_BYTES, MAX_UPLINK_BYTES, UPLINK_HEADER_BYTES } from './dataplane/frame.js'
import { FrameTooLarge, ProtocolError, RateLimited, wireCodesOf, type HarkError } from './errors.js'
import {
  AUDIO_FRAME_BURST,
  AUDIO_FRAMES_PER_SECOND,
  CONTROL_MESSAGE_BURST,
  CONTROL_MESSAGES_PER_SECOND,
  MAX_CONTROL_MESSAGE_BYTES,
  type ClientMessage,
  type ServerEvent,
} from './events.js'
import type { TerminalSession } from './session.js'
import { TokenBucket } from './tokenBucket.js'

/** Per-connection input limits; the protocol's are PROTOCOL_LIMITS (tests and the bench may change them). */
export interface InputLimits {
  readonly audioFramesPerSecond: number
  readonly audioFrameBurst: number
  readonly controlMessagesPerSecond: number
  readonly controlMessageBurst: number
}

export const PROTOCOL_LIMITS: InputLimits = {
  audioFramesPerSecond: AUDIO_FRAMES_PER_SECOND,
  audioFrameBurst: AUDIO_FRAME_BURST,
  controlMessagesPerSecond: CONTROL_MESSAGES_PER_SECOND,
  controlMessageBurst: CONTROL_MESSAGE_BURST,
}

/**
 * What every connection of one transport shares: made once per transport and kept by reference.
 */
export interface TerminalInputOptions {
  /** The engine's clock: the control-message rate window and the server time of answers run on it. */
  readonly clock: ClockShape
  readonly limits?: InputLimits
  /** Counts uplink frames dropped over the rate (audioDrops(metrics).cell(transport, 'rate')). */
  readonly rateDrops: DropCell
  /** A transport's own refusal of a well-formed message (e.g. an audio mode it cannot carry): an `error` event. */
  readonly refuse?: (message: ClientMessage) => HarkError | null
}

/** Where answers to a control message go: the terminal's own link (TerminalLink has sendEvent). */
export interface EventSink {
  sendEvent(event: ServerEvent): void
}

/** Why a control message was not taken: `fatal` closes the connection; otherwise an `error` event was sent. */
export interface ControlRefusal {
  readonly fatal: boolean
  readonly error: HarkError
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The frame audioFromOpus builds, one for every connection: the router copies a frame before
 * pushAudio returns, and nothing runs in between, so it is free again at once.
 */
const scratch = new Uint8Array(MAX_UPLINK_BYTES)

export class TerminalInput {
  private readonly audioRate: TokenBucket
  private readonly controlRate: TokenBucket

  /**
   * `options`: the transport's, shared by its connections (a connection's own state is its two
   * token buckets). `now`: performance.now() when the connection was admitted. Audio is timed by the data plane's receive times (per frame, real
   * time); control messages by the engine's clock.
   */
  constructor(
    private readonly options: TerminalInputOptions,
    now: number,
  ) {
    const limits = options.limits ?? PROTOCOL_LIMITS
    this.audioRate = new TokenBucket(limits.audioFramesPerSecond, limits.audioFrameBurst, now)
    this.controlRate = new TokenBucket(limits.controlMessagesPerSecond, limits.controlMessageBurst, options.clock.monotonic())
  }

  /**
   * One uplink frame (V|level byte + one Opus packet) received at `now` (performance.now()).
   * Null when it went into the room or was dropped over the rate; the error to close with otherwise.
   * `session` null means the `session` event has not been sent yet: that is a protocol error.
   */
  audio(session: TerminalSession | null, frame: Uint8Array, now: number): HarkError | null {
    if (session === null) return new ProtocolError({ message: 'audio sent before the session event' })
    const n = frame.length
    if (n <= UPLINK_HEADER_BYTES) return new ProtocolError({ message: 'audio frame needs the V|level byte and a non-empty Opus packet' })
    if (n > MAX_UPLINK_BYTES) return new FrameTooLarge({ message: `audio frame of ${n} bytes exceeds ${MAX_UPLINK_BYTES}` })
    if (this.audioRate.take(now)) session.pushAudio(frame, now)
    else this.options.rateDrops.count++
    return null
  }

  /**
   * One Opus packet that arrived without the protocol's framing (RTP), with the V|level byte the
   * transport derived for it. An empty packet (padding) is ignored.
   */
  audioFromOpus(session: TerminalSession | null, levelByte: number, opus: Uint8Array, now: number): HarkError | null {
    const n = opus.length
    if (n === 0) return null
    if (n > MAX_OPUS_BYTES) return new FrameTooLarge({ message: `Opus packet of ${n} bytes exceeds ${MAX_OPUS_BYTES}` })
    const frame = scratch
    frame[0] = levelByte
    frame.set(opus, UPLINK_HEADER_BYTES)
    return this.audio(session, frame.subarray(0, n + UPLINK_HEADER_BYTES), now)
  }

  /**
   * One control message: its bytes as received (UTF-8 is checked here), or text already decoded
   * by the transport. Answers go to this terminal only, through `to` (its link). Null when it was taken.
   */
  control(session: TerminalSession | null, message: Uint8Array | string, to: EventSink): ControlRefusal | null {
    if (session === null) return fatal(new ProtocolError({ message: 'control message sent before the session event' }))
    const { clock, refuse } = this.options
    if (!this.controlRate.take(clock.monotonic())) {
      const rate = this.controlRate.ratePerSecond
      return fatal(new RateLimited({ message: `more than ${rate} control messages per second`, retryAfterSeconds: 1 }))
    }
    let text: string
    let bytes: number
    if (typeof message === 'string') {
      text = message
      bytes = Buffer.byteLength(message)
    } else {
      bytes = message.byteLength
      if (bytes > MAX_CONTROL_MESSAGE_BYTES) text = ''
      else {
        try {
          text = utf8.decode(message)
        } catch {
          return fatal(new ProtocolError({ message: 'control message is not valid UTF-8' }))
        }
      }
    }
    const result = parseClientMessage(text, bytes)
    if (!result.ok) {
      if (result.fatal) return fatal(result.error)
      to.sendEvent(result.event)
      return { fatal: false, error: result.error }
    }
    const refused = refuse?.(result.message) ?? null
    if (refused !== null) {
      to.sendEvent({ type: 'error', code: wireCodesOf(refused).code, message: refused.message, id: result.message.id })
      return { fatal: false, error: refused }
    }
    answerClientMessage(result.message, session, (event) => to.sendEvent(event), clock.now())
    return null
  }
}

const fatal = (error: HarkError): ControlRefusal => ({ fatal: true, error })
