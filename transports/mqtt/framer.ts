/**
 * Splits an MQTT byte stream into whole packets before anything is parsed. Each packet's first
 * byte is judged first, by a table lookup (fixedHeader.ts): a type the client may not send now,
 * or reserved flags, is refused on that byte alone. Then it reads the remaining length itself,
 * so an invalid length (more than 4 bytes, or not minimally encoded) or a packet over the size
 * limit is refused from its header, before its body is buffered. Whole packets are handed on as
 * views of the received chunk whenever possible.
 */

export type FramingProblem = 'first-byte' | 'bad-remaining-length' | 'too-large'

export interface PacketSink {
  /**
   * A whole packet (fixed header included); its variable header starts at `bodyStart`. Return
   * false to stop framing (the connection closes).
   */
  packet(bytes: Buffer, bodyStart: number): boolean
  /** `detail`: the refused first byte, or the declared size of a packet too large. */
  problem(problem: FramingProblem, detail: number): void
}

export class PacketFramer {
  /**
   * Bytes of an incomplete packet, kept as received (made when a packet is split across reads, so
   * an idle connection keeps no array); `needed` is its full size once the header is known.
   */
  private pending: Buffer[] | null = null
  private pendingBytes = 0
  private needed = 0
  private stopped = false

  constructor(
    private maxPacketBytes: number,
    /** Verdict per first byte: 0 = go on, anything else = refuse (fixedHeader.ts). */
    private firstByte: Uint8Array,
    private readonly sink: PacketSink,
  ) {}

  /** Accept one received chunk. */
  push(chunk: Buffer): void {
    if (this.stopped) return
    let buf = chunk
    if (this.pending !== null) {
      this.pending.push(chunk)
      this.pendingBytes += chunk.length
      // A big packet arriving in many chunks is joined once, when it is complete.
      if (this.pendingBytes < this.needed) return
      buf = Buffer.concat(this.pending, this.pendingBytes)
      this.pending = null
      this.pendingBytes = 0
      this.needed = 0
    }
    let offset = 0
    const end = buf.length
    while (offset < end) {
      if (this.firstByte[buf[offset]!] !== 0) return this.fail('first-byte', buf[offset]!)
      // Remaining length: 1 to 4 bytes of 7 bits, least significant first (MQTT 2.2.3 / 1.5.5).
      let remaining = 0
      let multiplier = 1
      let i = offset + 1
      let complete = false
      for (let n = 0; n < 4 && i < end; n++, i++) {
        const byte = buf[i]!
        remaining += (byte & 0x7f) * multiplier
        multiplier *= 128
        if ((byte & 0x80) === 0) {
          // A non-minimal encoding ends in a zero byte after at least one continuation byte.
          if (byte === 0 && n > 0) return this.fail('bad-remaining-length', 0)
          complete = true
          i++
          break
        }
      }
      if (!complete) {
        if (i - offset - 1 >= 4) return this.fail('bad-remaining-length', 0)
        this.needed = 0
        break // header not all here yet
      }
      const total = i - offset + remaining
      if (total > this.maxPacketBytes) return this.fail('too-large', total)
      if (end - offset < total) {
        this.needed = total
        break
      }
      if (!this.sink.packet(buf.subarray(offset, offset + total), i - offset)) {
        this.stopped = true
        return
      }
      if (this.stopped) return
      offset += total
    }
    if (offset < end) {
      const rest = offset === 0 ? buf : buf.subarray(offset)
      this.pending = [rest]
      this.pendingBytes = rest.length
    }
  }

  /** Lower or raise the limit (MQTT 5 clients are told the limit in CONNACK). */
  setMaxPacketBytes(bytes: number): void {
    this.maxPacketBytes = bytes
  }

  /** The table the next packets are judged by (the connection's state changed). */
  setFirstByteTable(table: Uint8Array): void {
    this.firstByte = table
  }

  /** Stop handing on packets (the connection is closing). */
  stop(): void {
    this.stopped = true
    this.pending = null
    this.pendingBytes = 0
  }

  private fail(problem: FramingProblem, detail: number): void {
    this.stop()
    this.sink.problem(problem, detail)
  }
}
