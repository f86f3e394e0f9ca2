/**
 * One terminal on the WebSocket gateway: the TerminalLink the hub talks to, and the reader of
 * what the terminal sends (binary = uplink audio, text = JSON control messages). Everything the
 * hub sends is queued in order and written once per event-loop turn (writeBatch.ts); audio is
 * dropped, never queued without bound, when the receiver is backed up; a control event that no
 * longer fits closes the connection (receiver_too_slow). Bad input closes this socket only, with
 * `session.closing` first and the close code of core/errors.ts.
 *
 * It is also a FanoutReceiver (core/dataplane/fanout.ts): while its room's router has it
 * subscribed to the room's uWS topic, audio reaches it through one `publish` per frame, which uWS
 * queues per subscriber and writes at the end of the loop iteration, or before any later `send`
 * to the socket. So that nothing of ours overtakes or is overtaken by those frames, it writes
 * what is queued before subscribing and, while subscribed, writes each event at once.
 */
import type { WebSocket } from 'uWebSockets.js'
import {
  PROTOCOL_LIMITS,
  ReceiverTooSlow,
  TerminalInput,
  type TerminalInputOptions,
  wireCodesOf,
  type ClockShape,
  type DropCell,
  type FanoutHub,
  type FanoutReceiver,
  type Flushable,
  type HarkError,
  type InputLimits,
  type Logger,
  type ServerEvent,
  type TerminalLink,
  type TerminalSession,
  type WriteBatch,
} from '../../core/extension.js'

export const TRANSPORT_NAME = 'websocket'

/** Audio waiting for one receiver (queued this turn + uWS's buffer) beyond which frames are dropped. */
export const AUDIO_BACKLOG_BYTES = 64 * 1024

/** uWS send() result: the message was not queued because maxBackpressure is reached. */
const SEND_DROPPED = 2

/**
 * A topic every socket that ever joined a room's topic stays subscribed to, and nothing is published
 * on. uWS frees a socket's subscriber state when it leaves its last topic, and with it the frames
 * published to it but not yet written; held by this topic, they are written as usual.
 */
const ANCHOR_TOPIC = 'hark-anchor'

/** Per-connection limits (defaults above; tests and the bench may tighten or loosen them). */
export interface ConnectionLimits extends InputLimits {
  readonly audioBacklogBytes: number
}

export const DEFAULT_LIMITS: ConnectionLimits = { ...PROTOCOL_LIMITS, audioBacklogBytes: AUDIO_BACKLOG_BYTES }

export interface ConnectionContext {
  readonly limits: ConnectionLimits
  /** What every connection's TerminalInput shares (the input limits of `limits`, the clock, the rate drop cell). */
  readonly input: TerminalInputOptions
  readonly batch: WriteBatch
  readonly clock: ClockShape
  readonly log: Logger
  readonly drops: { readonly backpressure: DropCell; readonly rate: DropCell; readonly closed: DropCell }
  /** Told once when the socket is gone (for the gateway's bookkeeping). */
  readonly gone: (terminal: WsTerminal) => void
  /** The gateway's uWS pub/sub for room audio (core/dataplane/fanout.ts); null when `gateway.pubsub` is off. */
  readonly fanout: FanoutHub | null
}

/** What the gateway stores on each uWS socket. */
export interface SocketData {
  terminal: WsTerminal | null
}

/** The terminal whose `flush` is inside `ws.cork` right now (cork calls back synchronously). */
let corking: WsTerminal | null = null
const writeCorking = (): void => corking!.writePending()

export class WsTerminal implements TerminalLink, Flushable, FanoutReceiver {
  session: TerminalSession | null = null
  queued = false
  /** False while its backlog is over the audio limit (its router then sends it frame by frame). */
  ready = true
  /** True once the `session` event is queued: control messages are accepted from then on. */
  private introduced = false
  private open = true
  /** The socket is closed and its handle invalid (uWS called close). */
  private gone = false
  /** True once uWS closed the socket: its handle must not be used. */
  get isGone(): boolean {
    return this.gone
  }
  /** The room topic it is subscribed to, if any; `anchored` once it holds ANCHOR_TOPIC. */
  private topic: string | null = null
  private anchored = false
  /** Its room's router, told when it is ready again. */
  private watcher: (() => void) | null = null
  private readonly pending: Array<Uint8Array | string> = []
  private pendingAudioBytes = 0
  /** Its checks of what the terminal sends, made with the first message (an idle terminal sends none). */
  private inputOnce: TerminalInput | null = null
  private readonly backlogLimit: number

  constructor(
    private readonly ws: WebSocket<SocketData>,
    private readonly ctx: ConnectionContext,
  ) {
    this.backlogLimit = ctx.limits.audioBacklogBytes
  }

  /** Read off the prototype: the same for every terminal, no field each. */
  get transport(): string {
    return TRANSPORT_NAME
  }

  private get input(): TerminalInput {
    return (this.inputOnce ??= new TerminalInput(this.ctx.input))
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
    // Subscribed: frames published later this turn must not overtake it (session.closing is
    // written by the close that always follows it).
    if (this.topic !== null && event.type !== 'session.closing') this.flush()
    else if (!this.queued) this.ctx.batch.add(this)
  }

  // ---- FanoutReceiver (what its room's router calls; core/dataplane/fanout.ts) ----

  get fanout(): FanoutReceiver | null {
    return this.ctx.fanout === null ? null : this
  }

  /** Read by routers only through `fanout`, which is null when there is no hub. */
  get hub(): FanoutHub {
    return this.ctx.fanout!
  }

  subscribe(topic: string): void {
    if (this.gone || this.topic === topic) return
    // What is queued goes first: uWS would write frames published from now on before it.
    this.flush()
    if (this.gone) return
    if (!this.anchored) {
      this.ws.subscribe(ANCHOR_TOPIC)
      this.anchored = true
    }
    if (this.topic !== null) this.ws.unsubscribe(this.topic)
    this.topic = topic
    this.ws.subscribe(topic)
  }

  unsubscribe(topic: string): void {
    if (this.topic !== topic) return
    this.topic = null
    if (!this.gone) this.ws.unsubscribe(topic)
  }

  publish(topic: string, frame: Uint8Array): void {
    // A closed socket is no subscriber any more: publishing for it skips nobody.
    if (this.gone) this.ctx.fanout?.publish(topic, frame)
    else this.ws.publish(topic, frame, true)
  }

  check(): boolean {
    if (this.gone || !this.ready) return true
    if (this.ws.getBufferedAmount() <= this.backlogLimit) return true
    this.ready = false
    return false
  }

  watch(changed: () => void): void {
    this.watcher = changed
  }

  unwatch(changed: () => void): void {
    if (this.watcher === changed) this.watcher = null
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
    else {
      // One function for every socket (no closure per terminal): cork runs it at once.
      const outer = corking
      corking = this
      try {
        this.ws.cork(writeCorking)
      } finally {
        corking = outer
      }
    }
  }

  /** @internal What `writeCorking` runs for the socket being corked. */
  writePending(): void {
    const pending = this.pending
    const ws = this.ws
    let buffered = ws.getBufferedAmount()
    const before = buffered
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
    } else if (!this.ready && before <= this.backlogLimit >>> 1) {
      // Caught up (half the limit, so it does not flap): back to its room's native fan-out.
      this.ready = true
      this.watcher?.()
    }
  }

  // ---- What the terminal sends ----

  /** A binary message: one uplink frame (V|level byte + one Opus packet). */
  onAudio(message: ArrayBuffer): void {
    // The view is only valid during this callback; the router copies it before returning. Frames
    // sent before `session` went out go to the session all the same: it drops them (`early`).
    const error = this.input.audio(this.session, new Uint8Array(message), performance.now())
    if (error !== null) this.fail(error)
  }

  /** A text message: one JSON control message. */
  onControl(message: ArrayBuffer): void {
    const session = this.introduced ? this.session : null
    const refusal = this.input.control(session, new Uint8Array(message), this)
    if (refusal?.fatal) this.fail(refusal.error)
  }

  /** The socket closed (either side); uWS calls this once per socket. */
  onClosed(): void {
    this.open = false
    this.gone = true
    this.topic = null
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
