/**
 * QoS 1 delivery of events to one terminal: packet identifiers, the inflight window (at most
 * `limit` unacknowledged PUBLISH packets) and the bounded queue behind it. A non-clean session
 * keeps this state across connections; on resumption every unacknowledged packet is sent again
 * with its original identifier and DUP set [MQTT-4.4.0-1].
 */

/** Builds the QoS 1 PUBLISH for an event payload under a packet identifier (the connection). */
export interface EventEncoder {
  encodeEvent(messageId: number, payload: Buffer): Buffer
}

/** Shared by every idle window: nothing in flight. */
const NONE: ReadonlyMap<number, Buffer> = new Map()

export class OutboundEvents {
  /**
   * messageId → the encoded PUBLISH as first sent (DUP clear); made when a packet goes out and
   * let go when the last is acknowledged, so an idle terminal keeps no map (events are rare).
   */
  private inflight: Map<number, Buffer> | null = null
  /** Payloads waiting for the window; made when one has to wait. */
  private queue: Buffer[] | null = null
  private nextId = 1

  constructor(
    private limit: number,
    private readonly queueLimit: number,
  ) {}

  get inflightCount(): number {
    return this.inflight?.size ?? 0
  }

  get queued(): number {
    return this.queue?.length ?? 0
  }

  /** The window may change when a session resumes under a new CONNECT (Receive Maximum). */
  setLimit(limit: number): void {
    this.limit = limit
  }

  /**
   * Offer an event payload: the packet to send now, null when it waits in the queue, or
   * 'overflow' when the queue is full (the terminal stopped acknowledging).
   */
  offer(payload: Buffer, encode: EventEncoder): Buffer | null | 'overflow' {
    if (this.inflightCount < this.limit) return this.send(payload, encode)
    if (this.queued >= this.queueLimit) return 'overflow'
    ;(this.queue ??= []).push(payload)
    return null
  }

  /** A PUBACK arrived: free its slot; returns the packets that may go out now. */
  acknowledge(messageId: number, encode: EventEncoder): Buffer[] {
    const inflight = this.inflight
    if (inflight === null || !inflight.delete(messageId)) return []
    const out = this.fill(encode)
    if (inflight.size === 0) this.inflight = null
    return out
  }

  /** On session resumption: the unacknowledged packets again, DUP set, then whatever fits the window. */
  resume(encode: EventEncoder): Buffer[] {
    const again: Buffer[] = []
    for (const packet of (this.inflight ?? NONE).values()) {
      const dup = Buffer.from(packet)
      dup[0] = dup[0]! | 0x08
      again.push(dup)
    }
    return again.concat(this.fill(encode))
  }

  private fill(encode: EventEncoder): Buffer[] {
    const out: Buffer[] = []
    const queue = this.queue
    if (queue === null) return out
    while (queue.length > 0 && this.inflightCount < this.limit) out.push(this.send(queue.shift()!, encode))
    if (queue.length === 0) this.queue = null
    return out
  }

  private send(payload: Buffer, encode: EventEncoder): Buffer {
    const inflight = (this.inflight ??= new Map())
    let id = this.nextId
    while (inflight.has(id)) id = (id % 0xffff) + 1
    this.nextId = (id % 0xffff) + 1
    const packet = encode.encodeEvent(id, payload)
    inflight.set(id, packet)
    return packet
  }
}
