/**
 * Delivery yields to terminals. Webhook delivery is background work: an attempt costs the event
 * loop about as much as a terminal's connect (signing, an HTTP exchange, recording the outcome),
 * so a connect storm with an endpoint registered would lose about half its throughput if
 * deliveries kept going at full speed beside it. Instead, while something else keeps the event
 * loop saturated, the worker starts at most THROTTLED_PER_WINDOW attempts per window (a floor, so
 * delivery always progresses), and goes back to full speed once the loop has room again; the
 * deliveries held back meanwhile go out then, in order (their lag grows, nothing is lost).
 *
 * "Something else": the worker's own work saturates the loop too when it catches up, so it
 * judges the loop only while it holds itself back — throttled, or during a short probe (one
 * window in PROBE_EVERY_WINDOWS while it runs at full speed, in which it starts nothing). Work
 * that comes after a window without any (a connect storm's first events) starts with a probe:
 * at most one window's wait, instead of the first windows of a storm at full speed. A window at
 * full speed in which the loop was saturated is followed by a probe at once: a probe that straddled
 * a storm's start (measured 0.8 on a loop saturated from then on) let PROBE_EVERY_WINDOWS windows of
 * attempts run beside the storm; now one does. (Were the worker's own catch-up to saturate the loop,
 * every other window would be a probe; on this engine the loop's share of an attempt is small —
 * 15–30% utilization while catching up at full speed — so it does not.)
 *
 * Held back for MAX_THROTTLED_WINDOWS in a row, it runs at full speed for FULL_SPEED_WINDOWS, so
 * a loop that stays saturated (a node at capacity) does not starve deliveries.
 *
 * Real time on purpose, like the attempt timeout: this measures the process's real CPU use
 * (`performance.eventLoopUtilization`), which the engine clock knows nothing of.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks'

export const WINDOW_MS = 100
/** Event-loop utilization at or above which the loop counts as saturated. */
export const SATURATED = 0.9
/**
 * Attempts started per window while throttled (10 a second): enough to keep lanes moving (the
 * forced stretch below guarantees the rest). Held back, an attempt costs a storm far more than
 * its share: the delivery thread is cold and woken for it, and it takes the core from the loop.
 * A storm of 2000 connects (`webhooks` bench, 9 rounds a side, builds alternating): at 5 a window
 * the delivery thread used 140–180 ms of CPU (70–80 at 1), and the engine's thread ~170 ms more.
 */
export const THROTTLED_PER_WINDOW = 1
/** At full speed with work to do, one window in this many is a probe. */
export const PROBE_EVERY_WINDOWS = 5
/**
 * Throttled this many windows in a row (5 s), the worker runs at full speed for FULL_SPEED_WINDOWS
 * (1 s) whatever the loop says: a node whose loop stays saturated still delivers (the lag a storm
 * adds is bounded; terminals lose at most a sixth of the loop to deliveries then).
 */
export const MAX_THROTTLED_WINDOWS = 50
export const FULL_SPEED_WINDOWS = 10

/** The loop a pace watches: its utilization since `last`, and whether windows end on a timer. */
export interface PaceLoop {
  readonly utilization: (last: EventLoopUtilization | null) => { now: EventLoopUtilization; used: number }
  readonly timed: boolean
}

export class DeliveryPace {
  /** Holding back: only THROTTLED_PER_WINDOW attempts per window start. */
  throttled = false
  /** This window is a probe: nothing starts. */
  private probing = false
  private left = THROTTLED_PER_WINDOW
  /** No work in the last window (or none since the start): the next attempt waits for a probe first. */
  private rested = true
  private windows = 0
  /** Windows left at full speed whatever the loop says (after MAX_THROTTLED_WINDOWS held back). */
  private forced = 0
  private throttledFor = 0
  private last: EventLoopUtilization | null = null
  private timer: NodeJS.Timeout | undefined

  /**
   * `busy`: whether the worker has attempts to start or in flight (probes only then);
   * `wake`: called after each window while busy (more attempts may start now);
   * `loop`: how the loop's utilization is measured, and whether windows end on a real-time timer
   * (`timed`, the default) or when the caller calls `tick` (tests).
   */
  constructor(
    private readonly busy: () => boolean,
    private readonly wake: () => void,
    private readonly loop: PaceLoop = { utilization: measure, timed: true },
  ) {}

  private get utilization(): PaceLoop['utilization'] {
    return this.loop.utilization
  }

  start(): void {
    if (this.timer || !this.loop.timed) return
    this.last = this.utilization(null).now
    this.timer = setInterval(() => this.tick(), WINDOW_MS)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  /** May another attempt start now? (Takes one of the window's places when throttled.) */
  allow(): boolean {
    if (this.probing) return false
    if (this.rested) {
      // Work after an idle spell (a storm's first events): judge the loop before going full speed.
      this.rested = false
      if (!this.throttled) {
        this.probing = true
        this.windows = 0
        return false
      }
    }
    if (!this.throttled) return true
    if (this.left <= 0) return false
    this.left--
    return true
  }

  /** True when attempts are being held back now (tests, the idle check). */
  get holding(): boolean {
    return this.probing || (this.throttled && this.left <= 0)
  }

  /** One window ended: judge the loop if the worker held back during it, then set the next window. */
  tick(): void {
    const { now, used } = this.utilization(this.last)
    this.last = now
    const busy = this.busy()
    this.rested = !busy
    if (this.probing) {
      this.probing = false
      this.throttled = used >= SATURATED
      this.throttledFor = 0
      // A probe after an idle spell ends what was left of a forced stretch.
      this.forced = 0
    } else if (this.throttled) {
      if (used < SATURATED || !busy) this.throttled = false
      else if (++this.throttledFor >= MAX_THROTTLED_WINDOWS) {
        this.throttled = false
        this.forced = FULL_SPEED_WINDOWS
      }
    } else if (busy) {
      if (this.forced > 0) this.probing = --this.forced === 0
      else this.probing = used >= SATURATED || ++this.windows >= PROBE_EVERY_WINDOWS
      if (this.probing) this.windows = 0
    }
    this.left = THROTTLED_PER_WINDOW
    if (busy && !this.probing) this.wake()
  }
}

const measure = (last: EventLoopUtilization | null) => {
  const now = performance.eventLoopUtilization()
  return { now, used: last ? performance.eventLoopUtilization(now, last).utilization : 0 }
}
