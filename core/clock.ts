/**
 * The engine's notion of now. Everything time-dependent (token expiry, usage buckets, grace
 * periods) reads this service, so tests can drive days and midnights without waiting.
 */
import { Context, Layer } from 'effect'

export interface ClockShape {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

export class Clock extends Context.Service<Clock, ClockShape>()('hark/Clock') {}

export const systemClock: ClockShape = { now: () => Date.now() }

/** A clock that only moves when told to; for tests and simulations. */
export class ManualClock implements ClockShape {
  constructor(private current: number) {}
  now() {
    return this.current
  }
  set(ms: number) {
    this.current = ms
  }
  advance(ms: number) {
    this.current += ms
  }
}

export const clockLayer = (clock: ClockShape = systemClock) => Layer.succeed(Clock, clock)
