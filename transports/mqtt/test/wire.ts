/**
 * A byte-exact MQTT test client: a plain TCP socket that keeps every byte the server sent, splits
 * them into packets only when asked (for the setup of a test), and tells when the server closed.
 * Conformance tests assert on these bytes, not on what a parser makes of them.
 */
import { connect as netConnect, type Socket } from 'node:net'

export class Wire {
  private readonly chunks: Buffer[] = []
  private length = 0
  /** Where the next `packet()` starts reading. */
  private cursor = 0
  private waiter: (() => void) | null = null
  readonly closed: Promise<void>
  ended = false

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.chunks.push(d)
      this.length += d.length
      this.wake()
    })
    socket.on('error', () => {})
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true
        this.wake()
        resolve()
      }),
    )
  }

  static open(port: number): Promise<Wire> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host: '127.0.0.1', port }, () => {
        socket.off('error', reject)
        resolve(new Wire(socket))
      })
      socket.once('error', reject)
    })
  }

  /** Everything received so far. */
  get bytes(): Buffer {
    if (this.chunks.length > 1) this.chunks.splice(0, this.chunks.length, Buffer.concat(this.chunks, this.length))
    return this.chunks[0] ?? Buffer.alloc(0)
  }

  /** Bytes received after `mark` (a `received` value taken earlier). */
  since(mark: number): Buffer {
    return Buffer.from(this.bytes.subarray(mark))
  }

  get received(): number {
    return this.length
  }

  write(bytes: Uint8Array | number[]): void {
    this.socket.write(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes))
  }

  /** The next whole packet after the previous one; rejects if the socket closes first or after `timeoutMs`. */
  async packet(timeoutMs = 5000): Promise<Buffer> {
    let timedOut = false
    const deadline = setTimeout(() => {
      timedOut = true
      this.wake()
    }, timeoutMs)
    try {
      for (;;) {
        const size = this.packetSizeAt(this.cursor)
        if (size > 0) {
          const packet = Buffer.from(this.bytes.subarray(this.cursor, this.cursor + size))
          this.cursor += size
          return packet
        }
        if (this.ended) throw new Error(`socket closed while waiting for a packet (received ${this.since(this.cursor).toString('hex')})`)
        if (timedOut) throw new Error(`timed out waiting for a packet (received ${this.since(this.cursor).toString('hex')})`)
        await new Promise<void>((resolve) => {
          this.waiter = resolve
        })
      }
    } finally {
      clearTimeout(deadline)
    }
  }

  /** Packets until one whose first byte is `first` (that one included). */
  async packetsUntil(first: number, timeoutMs = 5000): Promise<Buffer[]> {
    const packets: Buffer[] = []
    for (;;) {
      const packet = await this.packet(timeoutMs)
      packets.push(packet)
      if (packet[0] === first) return packets
    }
  }

  /** Skip everything received so far as read (setup traffic the test does not judge). */
  skipReceived(): void {
    this.cursor = this.length
  }

  /** Resolves when the server closed the socket; rejects after `timeoutMs` (the test then fails). */
  async closedWithin(timeoutMs = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      this.closed,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the server did not close the connection (received ${this.bytes.toString('hex')})`)), timeoutMs)
      }),
    ]).finally(() => clearTimeout(timer))
  }

  destroy(): Promise<void> {
    this.socket.destroy()
    return this.closed
  }

  private wake(): void {
    const waiter = this.waiter
    this.waiter = null
    waiter?.()
  }

  /** Size of the whole packet at `at`, or 0 when it has not all arrived. */
  private packetSizeAt(at: number): number {
    const bytes = this.bytes
    let remaining = 0
    let multiplier = 1
    let i = at + 1
    for (; i < bytes.length && i < at + 5; i++) {
      remaining += (bytes[i]! & 0x7f) * multiplier
      multiplier *= 128
      if ((bytes[i]! & 0x80) === 0) {
        const size = i + 1 - at + remaining
        return at + size <= bytes.length ? size : 0
      }
    }
    return 0
  }
}
