/**
 * The engine's one clock. Every "now" and every timer of the control plane goes through it: token
 * expiry, keepalive, connect timeouts, ephemeral sweeps, the default-agent stop delay, usage
 * checkpoints, agent start/stop timeouts, rate-limit windows, storage change polling. The same
 * source feeds the three ways code waits here: plain callers use `setTimeout`, xstate actors get
 * it as their `clock` (createActor options), and Effect programs get it as Effect's `Clock`
 * (`clockLayer`), so `Schedule`s and `Effect.sleep` move with it too. A test hands the engine a
 * `ManualClock` and drives all of them by advancing one clock; nothing waits in real time.
 *
 * Not control-plane time, and left on real time on purpose:
 *   - the data plane (per audio frame: uplink rate limits, receive stamps, speaking activity, the
 *     mixer's and the agents' 20 ms pacing, WebRTC RTP timestamps) reads `performance.now()` and
 *     keeps its own timers: frames arrive in real time, and pacing them from a clock a test can
 *     stop would only make the audio wrong (the room's speaking sweep, a control-plane timer, runs
 *     and measures on this clock: `monotonic()` is `performance.now()` for the system clock, so a
 *     test on a ManualClock stamps its frames with the clock's `monotonic()`);
 *   - grace periods that bound real I/O (a socket's or a data channel's last flush, ICE gathering):
 *     the network runs in real time whatever the engine's clock says.
 */
import type FakeTimers from '@sinonjs/fake-timers'
import { createRequire } from 'node:module'
// Effect's modules one by one, not the 'effect' barrel (which loads all of them): this module runs in provider workers too (core/provider.ts).
import * as Context from 'effect/Context'
import * as Duration from 'effect/Duration'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import * as EffectClock from 'effect/Clock'

/** A pending timer (opaque to callers). */
export interface Timer {
  /** The primitive timer currently armed; undefined once fired or cleared. */
  inner: unknown
}

export interface ClockShape {
  /** Milliseconds since the Unix epoch: wall time (expiry, stored times, usage days). */
  now(): number
  /** Milliseconds from an arbitrary origin, never going back: elapsed time (rate windows, keepalive). */
  monotonic(): number
  /**
   * Call `fn` once after `ms`. Any length works (Node's own timers stop at ~24.8 days); a
   * non-finite `ms` never fires. This and `clearTimeout` are the `Clock` xstate's createActor takes.
   */
  setTimeout(fn: () => void, ms: number): Timer
  clearTimeout(timer: Timer | undefined): void
}

export class Clock extends Context.Service<Clock, ClockShape>()('hark/Clock') {}

/** The longest delay a Node (or fake) timer holds; longer waits are chained. */
const TIMER_MAX_MS = 2 ** 31 - 1

/** Timers of any length on top of a primitive timer that holds at most TIMER_MAX_MS. */
const unboundedTimers = (
  set: (fn: () => void, ms: number) => unknown,
  clear: (inner: unknown) => void,
): Pick<ClockShape, 'setTimeout' | 'clearTimeout'> => ({
  setTimeout(fn, ms) {
    const timer: Timer = { inner: undefined }
    if (!(ms < Number.POSITIVE_INFINITY)) return timer
    let remaining = Math.max(0, ms)
    const arm = () => {
      const step = Math.min(remaining, TIMER_MAX_MS)
      remaining -= step
      timer.inner = set(remaining > 0 ? arm : () => ((timer.inner = undefined), fn()), step)
    }
    arm()
    return timer
  },
  clearTimeout(timer) {
    if (timer === undefined || timer.inner === undefined) return
    clear(timer.inner)
    timer.inner = undefined
  },
})

/** Real time. Its timers are unref'd: the engine's listeners, not its timers, keep a process alive. */
export const systemClock: ClockShape = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  ...unboundedTimers(
    (fn, ms) => setTimeout(fn, ms).unref(),
    (inner) => clearTimeout(inner as NodeJS.Timeout),
  ),
}

/**
 * @sinonjs/fake-timers, required when the first ManualClock is made: a started engine runs on the
 * system clock and never needs it (it and @sinonjs/commons are ~1 MB of heap).
 */
const fakeTimers = (): typeof FakeTimers => createRequire(import.meta.url)('@sinonjs/fake-timers') as typeof FakeTimers

/**
 * A clock that moves only when told to, timers included (on @sinonjs/fake-timers, not installed
 * globally: sockets and the data plane keep real time). For tests and simulations.
 */
export class ManualClock implements ClockShape {
  private readonly fake: FakeTimers.Clock
  private readonly timers: Pick<ClockShape, 'setTimeout' | 'clearTimeout'>

  constructor(start: number) {
    this.fake = fakeTimers().createClock(start)
    const fake = this.fake
    this.timers = unboundedTimers(
      (fn, ms) => fake.setTimeout(fn, ms),
      (inner) => fake.clearTimeout(inner as FakeTimers.TimerId),
    )
  }

  now(): number {
    return this.fake.now
  }

  monotonic(): number {
    return this.fake.performance.now() as number
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.timers.setTimeout(fn, ms)
  }

  clearTimeout(timer: Timer | undefined): void {
    this.timers.clearTimeout(timer)
  }

  /** Move forward `ms`, firing every timer that falls due on the way, in order, synchronously. */
  advance(ms: number): void {
    this.fake.tick(ms)
  }

  /**
   * Move forward `ms` like `advance`, letting promises and Effect fibers run after each timer, so
   * a chain of waits (an Effect `Schedule`, a promise that arms the next timer) goes all the way.
   */
  async advanceAsync(ms: number): Promise<void> {
    await this.fake.tickAsync(ms)
  }

  /**
   * Set the wall time, as a system clock adjustment would: `now()` jumps, forward or back; no
   * timer fires and monotonic time stays (timers count elapsed time: use `advance` for that).
   */
  set(ms: number): void {
    this.fake.setSystemTime(ms)
  }

  /** Timers armed and not yet fired (tests check that nothing is left behind). */
  get pendingTimers(): number {
    return this.fake.countTimers()
  }
}

/** Effect's Clock over a ClockShape, so Effect.sleep and Schedules wait on the engine's clock. */
export const effectClock = (clock: ClockShape): EffectClock.Clock => {
  const nanos = (ms: number) => BigInt(Math.round(ms * 1_000_000))
  return {
    currentTimeMillisUnsafe: () => clock.now(),
    currentTimeMillis: Effect.sync(() => clock.now()),
    currentTimeNanosUnsafe: () => nanos(clock.now()),
    currentTimeNanos: Effect.sync(() => nanos(clock.now())),
    monotonicTimeNanosUnsafe: () => nanos(clock.monotonic()),
    monotonicTimeNanos: Effect.sync(() => nanos(clock.monotonic())),
    sleep: (duration) =>
      Effect.callback<void>((resume) => {
        const timer = clock.setTimeout(() => resume(Effect.void), Duration.toMillis(duration))
        return Effect.sync(() => clock.clearTimeout(timer))
      }),
  }
}

/** The engine's clock service, and Effect's own Clock on the same source. */
export const clockLayer = (clock: ClockShape = systemClock) =>
  Layer.mergeAll(Layer.succeed(Clock, clock), Layer.succeed(EffectClock.Clock, effectClock(clock)))
