/**
 * What a terminal sends, checked the same way on every transport: one `TerminalInput` per
 * connection takes its uplink audio frames and its control messages, applies the protocol's
 * size and rate limits (spec/terminal-protocol.md, Limits), and hands what passes to the session.
 * The transport only frames and unframes; what is fatal comes back as the error to close the
 * connection with (the transport says `session.closing` with it), everything else is handled here:
 *
 *   - audio: empty or oversized → fatal; over the frame rate → dropped and counted (`rate`); shed
 *     while the engine is behind → dropped and counted (`overload`, `stale`: core/dataplane/overload.ts).
 *   - control: over the message rate → fatal (rate_limited); oversized, not UTF-8, not a JSON
 *     object with a string `type` → fatal; a known message with a bad field, or one the transport
 *     refuses → an `error` event, the session goes on; a good one is answered (core/clientMessages.ts).
 *
 * The audio path is the per-frame path: plain numbers, no allocation unless the frame is refused.
 */
import { answerClientMessage, parseClientMessage } from './clientMessages.js'
import type { ClockShape } from './clock.js'
import type { DropCell } from './dataplane/drops.js'
import type { OverloadGuard } from './dataplane/overload.js'
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
  /**
   * The engine's overload guard (core/dataplane/overload.ts): uplink frames it says to shed are
   * dropped and counted in `drops` (those read too late, in `stale`), and the rate limit forgives
   * the lateness it measures.
   */
  readonly overload?: { readonly guard: OverloadGuard; readonly drops: DropCell; readonly stale: DropCell }
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
  /**
   * The two token buckets, made on first use: a bucket starts full and only refills up to its
   * burst, so one made at the first frame or message holds what one made at admission would — and
   * an idle terminal (most of them) carries neither.
   */
  private audioRate: TokenBucket | null = null
  private controlRate: TokenBucket | null = null
  /** The share of a frame owed to the overload guard's shedding: each terminal loses the same share. */
  private shedOwed = 0
  /** The guard's talker-counting window this terminal last counted itself in. */
  private talkerWindow = -1

  /**
   * `options`: the transport's, shared by its connections (a connection's own state is its two
   * token buckets). Audio is timed by the data plane's receive times (per frame, real time);
   * control messages by the engine's clock. `_admittedAt` is not needed any more (the buckets are
   * made on first use); it is accepted so that callers written for the first contract compile.
   */
  constructor(
    private readonly options: TerminalInputOptions,
    _admittedAt?: number,
  ) {}

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
    const limits = this.options.limits ?? PROTOCOL_LIMITS
    const rate = (this.audioRate ??= new TokenBucket(limits.audioFramesPerSecond, limits.audioFrameBurst, now))
    const overload = this.options.overload
    if (overload === undefined) {
      if (rate.take(now)) session.pushAudio(frame, now)
      else this.options.rateDrops.count++
      return null
    }
    const guard = overload.guard
    guard.frames++
    if (guard.idle) guard.wake(now)
    if (this.talkerWindow !== guard.window) {
      this.talkerWindow = guard.window
      guard.talkersNow++
    }
    // Frames the engine read late arrive bunched: forgive as many as its lateness explains.
    if (!rate.take(now) && !rate.take(now, (guard.lagCreditMs(now) * rate.ratePerSecond) / 1000)) {
      this.options.rateDrops.count++
      return null
    }
    if (now > guard.staleAfter) {
      overload.stale.count++
      guard.noteShed(session)
      return null
    }
    if (guard.shed > 0) {
      this.shedOwed += guard.shed
      if (this.shedOwed >= 1) {
        this.shedOwed -= 1
        overload.drops.count++
        guard.noteShed(session)
        return null
      }
    }
    session.pushAudio(frame, now)
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
    const overRate = this.countControl()
    if (overRate !== null) return fatal(overRate)
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

  /**
   * Count one control message against the control-message rate, as `control` does first: for a
   * transport whose terminals speak a control protocol of their own (a device firmware's JSON),
   * which it parses itself. Null when the message may be handled; the error to close with when
   * the terminal is over the rate.
   */
  countControl(): HarkError | null {
    const limits = this.options.limits ?? PROTOCOL_LIMITS
    const now = this.options.clock.monotonic()
    const bucket = (this.controlRate ??= new TokenBucket(limits.controlMessagesPerSecond, limits.controlMessageBurst, now))
    if (bucket.take(now)) return null
    return new RateLimited({ message: `more than ${bucket.ratePerSecond} control messages per second`, retryAfterSeconds: 1 })
  }
}

const fatal = (error: HarkError): ControlRefusal => ({ fatal: true, error })
