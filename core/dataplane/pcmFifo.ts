/**
 * A bounded first-in first-out buffer of 16-bit PCM samples (a ring), the mixer's per-source
 * jitter buffer: decoded frames go in as they arrive, the mixer's clock takes fixed slices out.
 * When full, the oldest samples are dropped, so latency stays bounded whatever the sender does.
 */
export class PcmFifo {
  private readonly ring: Int16Array
  private start = 0
  private size = 0
  /** Samples discarded because the buffer was full. */
  overflowed = 0

  constructor(readonly capacity: number) {
    this.ring = new Int16Array(capacity)
  }

  get length(): number {
    return this.size
  }

  push(samples: Int16Array): void {
    let from = 0
    let n = samples.length
    if (n > this.capacity) {
      // Only the newest `capacity` samples can ever be played.
      from = n - this.capacity
      this.overflowed += from
      n = this.capacity
    }
    const excess = this.size + n - this.capacity
    if (excess > 0) {
      this.start = (this.start + excess) % this.capacity
      this.size -= excess
      this.overflowed += excess
    }
    let end = (this.start + this.size) % this.capacity
    const first = Math.min(n, this.capacity - end)
    this.ring.set(samples.subarray(from, from + first), end)
    if (first < n) this.ring.set(samples.subarray(from + first, from + n), 0)
    end = (end + n) % this.capacity
    this.size += n
  }

  /** Fill `out` with the oldest samples, zero-filling what is missing; returns how many were real. */
  take(out: Int16Array): number {
    const n = Math.min(out.length, this.size)
    const first = Math.min(n, this.capacity - this.start)
    out.set(this.ring.subarray(this.start, this.start + first), 0)
    if (first < n) out.set(this.ring.subarray(0, n - first), first)
    if (n < out.length) out.fill(0, n)
    this.start = (this.start + n) % this.capacity
    this.size -= n
    return n
  }

  clear(): void {
    this.start = 0
    this.size = 0
  }
}
