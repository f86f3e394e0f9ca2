/**
 * One terminal on the WebSocket gateway: the TerminalLink the hub talks to, and the reader of
 * what the terminal sends (binary = uplink audio, text = JSON control messages). Everything the
 * hub sends is queued in order and written once per event-loop turn (writeBatch.ts); audio is
 * dropped, never queued without bound, when the receiver is backed up; a control event that no
 * longer fits closes the connection (receiver_too_slow). Bad input closes this socket only, with
 * `session.closing` first and the close code of core/errors.ts.
 */
import type { WebSocket } from 'uWebSockets.js'
import { answerClientMessage, parseClientMessage } from '../../core/clientMessages.js'
import type { DropCell } from '../../core/dataplane/drops.js'
import { MAX_UPLINK_BYTES, UPLINK_HEADER_BYTES } from '../../core/dataplane/frame.js'
import {
  FrameTooLarge,
  ProtocolError,
  RateLimited,
  ReceiverTooSlow,
  wireCodesOf,
  type HarkError,
} from '../../core/errors.js'
import type { ServerEvent } from '../../core/events.js'
import type { Logger } from '../../core/log.js'
import type { TerminalLink, TerminalSession } from '../../core/session.js'
import { TokenBucket } from '../../core/tokenBucket.js'
import type { Flushable, WriteBatch } from '../../core/dataplane/writeBatch.js'
import type { ClockShape } from '../../core/clock.js'
import {
  AUDIO_FRAME_BURST,
  AUDIO_FRAMES_PER_SECOND,
  CONTROL_MESSAGE_BURST,
  CONTROL_MESSAGES_PER_SECOND,
} from '../../core/events.js'

export const TRANSPORT_NAME = 'websocket'

/** Audio waiting for one receiver (queued this turn + uWS's buffer) beyond which frames are dropped. */
export const AUDIO_BACKLOG_BYTES = 64 * 1024

/** uWS send() result: the message was not queued because maxBackpressure is reached. */
const SEND_DROPPED = 2

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Per-connection limits (defaults above; tests and the bench may tighten or loosen them). */
export interface ConnectionLimits {
  readonly audioBacklogBytes: number
  readonly audioFramesPerSecond: number
  readonly audioFrameBurst: number
  readonly controlMessagesPerSecond: number
  readonly controlMessageBurst: number
}

export const DEFAULT_LIMITS: ConnectionLimits = {
  audioBacklogBytes: AUDIO_BACKLOG_BYTES,
  audioFramesPerSecond: AUDIO_FRAMES_PER_SECOND,
  audioFrameBurst: AUDIO_FRAME_BURST,
  controlMessagesPerSecond: CONTROL_MESSAGES_PER_SECOND,
  controlMessageBurst: CONTROL_MESSAGE_BURST,
}

export interface ConnectionContext {
  readonly limits: ConnectionLimits
  readonly batch: WriteBatch
  readonly clock: ClockShape
  readonly log: Logger
  readonly drops: { readonly backpressure: DropCell; readonly rate: DropCell; readonly closed: DropCell }
  /** Told once when the socket is gone (for the gateway's bookkeeping). */
  readonly gone: (terminal: WsTerminal) => void
}

/** What the gateway stores on each uWS socket. */
export interface SocketData {
  terminal: WsTerminal | null
}

export class WsTerminal implements TerminalLink, Flushable {
  readonly transport = TRANSPORT_NAME
  session: TerminalSession | null = null
  queued = false
  /** True once the `session` event is queued: audio and messages are accepted from then on. */
  private introduced = false
  private open = true
  private readonly pending: Array<Uint8Array | string> = []
  private pendingAudioBytes = 0
  private readonly audioRate: TokenBucket
  private readonly controlRate: TokenBucket
  private readonly backlogLimit: number

  constructor(
    private readonly ws: WebSocket<SocketData>,
    private readonly ctx: ConnectionContext,
  ) {
    const now = performance.now()
    const limits = ctx.limits
    this.audioRate = new TokenBucket(limits.audioFramesPerSecond, limits.audioFrameBurst, now)
    this.controlRate = new TokenBucket(limits.controlMessagesPerSecond, limits.controlMessageBurst, now)
    this.backlogLimit = limits.audioBacklogBytes
  }

  // ---- TerminalLink (what the hub calls) ----

  deliverAudio(frame: Uint8Array): void {
    if (!this.open) {
      this.ctx.drops.closed.count++
      return
    }
    if (this.pendingAudioBytes + frame.length > this.backlogLimit) {
      this.ctx.drops.backpressure.count++
      return
    }
    this.pending.push(frame)
    this.pendingAudioBytes += frame.length
    if (!this.queued) this.ctx.batch.add(this)
  }

  sendEvent(event: ServerEvent): void {
    if (!this.open) return
    if (event.type === 'session') this.introduced = true
    this.pending.push(JSON.stringify(event))
    if (!this.queued) this.ctx.batch.add(this)
  }

  close(reason: HarkError): void {
    if (!this.open) return
    // session.closing (queued by the hub just before) and anything else pending go out first.
    this.flush()
    if (!this.open) return
    this.open = false
    const { ws: code, code: text } = wireCodesOf(reason)
    this.ws.end(code, text)
  }

  // ---- Flushable (the per-turn write) ----

  flush(): void {
    const n = this.pending.length
    if (n === 0) return
    if (!this.open) {
      this.pending.length = 0
      this.pendingAudioBytes = 0
      return
    }
    // One message gains nothing from corking; skipping it saves two JS/C++ crossings.
    if (n === 1) this.writePending()
    else this.ws.cork(this.writePending)
  }

  private readonly writePending = (): void => {
    const pending = this.pending
    const ws = this.ws
    let buffered = ws.getBufferedAmount()
    let tooSlow = false
    for (let i = 0; i < pending.length; i++) {
      const item = pending[i]!
      if (typeof item === 'string') {
        if (ws.send(item, false) === SEND_DROPPED) {
          tooSlow = true
          break
        }
        buffered += item.length
      } else if (buffered + item.length > this.backlogLimit) {
        this.ctx.drops.backpressure.count++
      } else {
        ws.send(item, true)
        buffered += item.length
      }
    }
    pending.length = 0
    this.pendingAudioBytes = 0
    if (tooSlow) {
      this.ctx.log.debug({ clientId: this.session?.clientId }, 'receiver too slow for control events; closing')
      this.fail(new ReceiverTooSlow({ message: 'receiver too slow: its connection stopped taking data' }))
    }
  }

  // ---- What the terminal sends ----

  /** A binary message: one uplink frame (V|level byte + one Opus packet). */
  onAudio(message: ArrayBuffer): void {
    const session = this.session
    if (!this.introduced || session === null) {
      this.fail(new ProtocolError({ message: 'audio sent before the session event' }))
      return
    }
    const n = message.byteLength
    if (n <= UPLINK_HEADER_BYTES) {
      this.fail(new ProtocolError({ message: 'audio frame needs the V|level byte and a non-empty Opus packet' }))
      return
    }
    if (n > MAX_UPLINK_BYTES) {
      this.fail(new FrameTooLarge({ message: `audio frame of ${n} bytes exceeds ${MAX_UPLINK_BYTES}` }))
      return
    }
    if (!this.audioRate.take(performance.now())) {
      this.ctx.drops.rate.count++
      return
    }
    // The view is only valid during this callback; the router copies it before returning.
    session.pushAudio(new Uint8Array(message))
  }

  /** A text message: one JSON control message. */
  onControl(message: ArrayBuffer): void {
    const session = this.session
    if (!this.introduced || session === null) {
      this.fail(new ProtocolError({ message: 'control message sent before the session event' }))
      return
    }
    if (!this.controlRate.take(performance.now())) {
      const rate = this.ctx.limits.controlMessagesPerSecond
      this.fail(new RateLimited({ message: `more than ${rate} control messages per second`, retryAfterSeconds: 1 }))
      return
    }
    let text = ''
    if (message.byteLength <= 64 * 1024) {
      try {
        text = utf8.decode(message)
      } catch {
        this.fail(new ProtocolError({ message: 'control message is not valid UTF-8' }))
        return
      }
    }
    const result = parseClientMessage(text, message.byteLength)
    if (result.ok) answerClientMessage(result.message, session, (event) => this.sendEvent(event), this.ctx.clock.now())
    else if (result.fatal) this.fail(result.error)
    else this.sendEvent(result.event)
  }

  /**
   * Run `fn` inside this socket's cork (see WebSocketGateway.upgrade for why another socket's
   * upgrade borrows it). False when this socket can no longer cork.
   */
  lendCork(fn: () => void): boolean {
    if (!this.open) return false
    this.ws.cork(fn)
    return true
  }

  /** The socket closed (either side); uWS calls this once per socket. */
  onClosed(): void {
    this.open = false
    this.pending.length = 0
    this.pendingAudioBytes = 0
    this.session?.end()
    this.ctx.gone(this)
  }

  /** Close this connection for a problem it caused; the session says session.closing first. */
  fail(error: HarkError): void {
    if (!this.open) return
    if (this.session) this.session.close(error)
    else this.close(error)
  }
}
