/**
 * The binary layout of audio between nodes (spec/cluster.md, Frames between nodes). One NATS
 * message per remote node per event-loop turn carries every frame this node's sources produced in
 * that turn for rooms that node shares, each as
 *
 *   u32 room tag (the sender's number for the room) | u16 source id (the sender's) | u16 length |
 *   length bytes: the uplink frame as the terminal sent it (V|level byte, then Opus, untouched)
 *
 * big-endian. No JSON, no per-frame object: a frame is appended into the outbox's buffer, and the
 * receiver walks the message with one DataView. The outbox writes the message's length (u32) in
 * front of it, as the direct relay link carries it (relayLink.ts); NATS gets the message without it.
 */
import type { Flushable, WriteBatch } from '../../core/dataplane/writeBatch.js'

export const RELAY_HEADER_BYTES = 8
/** An outbox is published when it would grow past this (and at the end of every turn). */
export const RELAY_MESSAGE_BYTES = 60 * 1024
/** The length of a message (u32, big-endian) in front of it, on the relay link. */
export const RELAY_LENGTH_BYTES = 4

/**
 * The frames of one turn for one remote node. Paced under load: the batch flushes it at the end of
 * every turn that queued frames, and it leaves then, unless such turns come fast (on average less
 * than half of `spacingMs` apart) and the previous message to that node left less than `spacingMs`
 * ago; then it waits for the first turn's end at least `spacingMs` after the previous message (with
 * turns that frequent, within a fraction of `spacingMs`; a timer in case the turns stop). So a busy
 * node sends a peer at most about one message per `spacingMs` and frames wait at most about that
 * long for it, while a node at light load (turns further apart, where a wait would be a timer's
 * whole milliseconds and save little) sends each turn's frames at its end as without pacing.
 */
export class RelayOutbox implements Flushable {
  queued = false
  private readonly buffer = new Uint8Array(RELAY_LENGTH_BYTES + RELAY_MESSAGE_BYTES)
  private readonly view = new DataView(this.buffer.buffer)
  /** Bytes of the message queued (after the length in front of it). */
  private length = 0
  /** Messages and frames sent, for the bench and /metrics. */
  messages = 0
  frames = 0
  /** Frames of messages whose publish threw (the NATS connection closed or draining): lost. */
  dropped = 0
  /** Frames in the buffer now. */
  private pending = 0
  /** When the previous message left (performance.now()). */
  private sentAt = -Infinity
  /** Turns that ended too soon after the previous message and held their frames (tests). */
  held = 0
  /** When a turn last ended with frames here, and the mean time between such turns (an EWMA, ms). */
  private turnAt = -Infinity
  private turnGapMs = Infinity
  /** Sends what a held outbox has when no turn came to do it (null: none armed). */
  private timer: NodeJS.Timeout | null = null

  /**
   * @param publish sends `framed`: the message's length (RELAY_LENGTH_BYTES), then the message.
   * @param spacingMs the least time between two messages (0: one per turn with frames).
   * @param onError told when the timer's send throws (the batch reports the turns' own).
   */
  constructor(
    private readonly publish: (framed: Uint8Array) => void,
    private readonly batch: WriteBatch,
    private readonly spacingMs = 0,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Hot path: queue one frame of `sourceId` in the room the sender numbers `tag`. */
  append(tag: number, sourceId: number, uplink: Uint8Array): void {
    const need = RELAY_HEADER_BYTES + uplink.length
    if (this.length + need > RELAY_MESSAGE_BYTES) this.send()
    const at = RELAY_LENGTH_BYTES + this.length
    this.view.setUint32(at, tag)
    this.view.setUint16(at + 4, sourceId)
    this.view.setUint16(at + 6, uplink.length)
    this.buffer.set(uplink, at + RELAY_HEADER_BYTES)
    this.length += need
    this.frames++
    this.pending++
    this.batch.add(this)
  }

  /** The end of a turn that queued frames (the batch): send them, unless too soon after the previous message. */
  flush(): void {
    if (this.length === 0) return
    if (this.spacingMs > 0) {
      const now = performance.now()
      const gap = now - this.turnAt
      this.turnAt = now
      // A mean over about the last 8 turns; the first gap (from -Infinity) starts it at Infinity.
      this.turnGapMs = this.turnGapMs === Infinity ? gap : this.turnGapMs + (Math.min(gap, 100) - this.turnGapMs) / 8
      return this.pace(now)
    }
    this.send()
  }

  /** Send now, or hold while turns come fast and the previous message is younger than the spacing. */
  private pace(now: number): void {
    const wait = this.sentAt + this.spacingMs - now
    if (wait > 0 && this.turnGapMs < this.spacingMs / 2) return this.hold(wait)
    this.send(now)
  }

  /** Hold the frames: a later turn's end sends them once the spacing is over, else the timer (whole ms, so up to 1 ms later). */
  private hold(wait: number): void {
    this.held++
    if (this.timer === null) this.timer = setTimeout(this.onTimer, Math.ceil(wait)).unref()
  }

  private readonly onTimer = (): void => {
    this.timer = null
    if (this.length === 0) return
    try {
      this.pace(performance.now())
    } catch (e) {
      this.onError(e)
    }
  }

  /** Stop the pacing timer (the node stops; `send` first to keep what is queued). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }

  /** Send the queued frames now as one message (a turn's end, full, timer, stop); `now` when the caller has read the clock. */
  send(now = performance.now()): void {
    if (this.length === 0) return
    // The NATS client and the link's socket keep the payload until written: hand them a copy, keep the buffer.
    this.view.setUint32(0, this.length)
    const message = this.buffer.slice(0, RELAY_LENGTH_BYTES + this.length)
    const frames = this.pending
    this.length = 0
    this.pending = 0
    this.messages++
    this.sentAt = now
    try {
      this.publish(message)
    } catch (e) {
      this.dropped += frames
      throw e
    }
  }
}

/** The key a receiver files a relayed source under: the sender's room tag and source id. */
export const relayKey = (tag: number, sourceId: number): number => tag * 65536 + sourceId

/**
 * Walk one relay message: `deliver(key, uplink)` for each well-formed frame. A truncated or empty
 * frame ends the walk (the rest of that message is dropped and counted by the caller).
 * Returns the number of frames read.
 */
export const readRelayMessage = (message: Uint8Array, deliver: (key: number, uplink: Uint8Array) => void): number => {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
  let at = 0
  let frames = 0
  while (at + RELAY_HEADER_BYTES <= message.length) {
    const length = view.getUint16(at + 6)
    const end = at + RELAY_HEADER_BYTES + length
    if (length < 2 || end > message.length) return -1 - frames
    deliver(relayKey(view.getUint32(at), view.getUint16(at + 4)), message.subarray(at + RELAY_HEADER_BYTES, end))
    frames++
    at = end
  }
  return at === message.length ? frames : -1 - frames
}
