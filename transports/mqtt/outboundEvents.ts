/**
 * QoS 1 delivery of events to one terminal: packet identifiers, the inflight window (at most
 * `limit` unacknowledged PUBLISH packets) and the bounded queue behind it. A non-clean session
 * keeps this state across connections; on resumption every unacknowledged packet is sent again
 * with its original identifier and DUP set [MQTT-4.4.0-1].
 */

/** Builds the QoS 1 PUBLISH for an event payload under a packet identifier. */
export type EncodeQos1 = (messageId: number, payload: Buffer) => Buffer

export class OutboundEvents {
  /** messageId → the encoded PUBLISH as first sent (DUP clear). */
  private readonly inflight = new Map<number, Buffer>()
  private readonly queue: Buffer[] = []
  private nextId = 1

  constructor(
    private limit: number,
    private readonly queueLimit: number,
  ) {}

  get inflightCount(): number {
    return this.inflight.size
  }

  get queued(): number {
    return this.queue.length
  }

  /** The window may change when a session resumes under a new CONNECT (Receive Maximum). */
  setLimit(limit: number): void {
    this.limit = limit
  }

  /**
   * Offer an event payload: the packet to send now, null when it waits in the queue, or
   * 'overflow' when the queue is full (the terminal stopped acknowledging).
   */
  offer(payload: Buffer, encode: EncodeQos1): Buffer | null | 'overflow' {
    if (this.inflight.size < this.limit) return this.send(payload, encode)
    if (this.queue.length >= this.queueLimit) return 'overflow'
    this.queue.push(payload)
    return null
  }

  /** A PUBACK arrived: free its slot; returns the packets that may go out now. */
  acknowledge(messageId: number, encode: EncodeQos1): Buffer[] {
    if (!this.inflight.delete(messageId)) return []
    return this.fill(encode)
  }

  /** On session resumption: the unacknowledged packets again, DUP set, then whatever fits the window. */
  resume(encode: EncodeQos1): Buffer[] {
    const again: Buffer[] = []
    for (const packet of this.inflight.values()) {
      const dup = Buffer.from(packet)
      dup[0] = dup[0]! | 0x08
      again.push(dup)
    }
    return again.concat(this.fill(encode))
  }

  private fill(encode: EncodeQos1): Buffer[] {
    const out: Buffer[] = []
    while (this.queue.length > 0 && this.inflight.size < this.limit) out.push(this.send(this.queue.shift()!, encode))
    return out
  }

  private send(payload: Buffer, encode: EncodeQos1): Buffer {
    let id = this.nextId
    while (this.inflight.has(id)) id = (id % 0xffff) + 1
    this.nextId = (id % 0xffff) + 1
    const packet = encode(id, payload)
    this.inflight.set(id, packet)
    return packet
  }
}
