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

/** The frames of one turn for one remote node. */
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

  /** @param publish sends `framed`: the message's length (RELAY_LENGTH_BYTES), then the message. */
  constructor(
    private readonly publish: (framed: Uint8Array) => void,
    private readonly batch: WriteBatch,
  ) {}

  /** Hot path: queue one frame of `sourceId` in the room the sender numbers `tag`. */
  append(tag: number, sourceId: number, uplink: Uint8Array): void {
    const need = RELAY_HEADER_BYTES + uplink.length
    if (this.length + need > RELAY_MESSAGE_BYTES) this.flush()
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

  flush(): void {
    if (this.length === 0) return
    // The NATS client and the link's socket keep the payload until written: hand them a copy, keep the buffer.
    this.view.setUint32(0, this.length)
    const message = this.buffer.slice(0, RELAY_LENGTH_BYTES + this.length)
    const frames = this.pending
    this.length = 0
    this.pending = 0
    this.messages++
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
