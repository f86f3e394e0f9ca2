/**
 * A token bucket: `ratePerSecond` sustained, `burst` at once. Transports use one per connection
 * for audio frames (excess dropped) and one for control messages (excess closes). Plain numbers
 * only, so it can sit on the per-frame path.
 */
export class TokenBucket {
  private tokens: number
  private last: number

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    now: number,
  ) {
    this.tokens = burst
    this.last = now
  }

  /**
   * Take one token at `now` (ms, monotonic); false when the bucket is empty. `credit`: tokens it
   * may owe beyond empty (it goes below zero and refills from there), for takes that arrive
   * bunched through no fault of the taker (the engine read them late: core/dataplane/overload.ts).
   */
  take(now: number, credit = 0): boolean {
    const elapsed = now - this.last
    if (elapsed > 0) {
      this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.ratePerSecond) / 1000)
      this.last = now
    }
    if (this.tokens < 1 - credit) return false
    this.tokens -= 1
    return true
  }
}
