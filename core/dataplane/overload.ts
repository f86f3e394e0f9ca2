/**
 * Graceful overload of the data plane (issue 39): when the engine cannot keep up with its
 * terminals' audio, frames it reads have waited in the kernel for as long as the event loop was
 * busy, and delivering all of them makes every frame later still. The guard watches how late the
 * event loop is (a 20 ms timer's lateness) while audio flows, and sheds a share of the uplink
 * frames before they reach a room (the fan-out is most of a frame's cost), so the frames it does
 * deliver stay fresh:
 *
 *   - `shed` rises while the loop is later than `targetLagMs` and at least `minTalkers` terminals
 *     send audio (a few terminals cannot overload the data plane: their lateness is the process's,
 *     a pause or other work, and shedding their audio would not help), and falls back to 0 once
 *     the loop keeps up;
 *   - every terminal loses the same share of its frames (its TerminalInput keeps its own
 *     remainder), counted `overload` in hark_audio_frames_dropped_total;
 *   - under the same load, a frame read while the loop is more than `staleMs` behind its timer
 *     has waited about that long already: it is dropped (`stale`), so a backlog drains at the
 *     cost of reading it, and what is delivered stays within the bound;
 *   - `lagCreditMs` is what the uplink rate limit forgives: frames a terminal sent on time that
 *     arrive bunched because the engine was late are not the terminal's fault (no `rate` drops);
 *   - `degraded` flips on after shedding has lasted `degradeAfterMs` and off after `recoverAfterMs`
 *     without any: listeners (the hub: a `room.degraded` event) hear each flip, with the terminals
 *     whose frames were shed (their rooms are the ones told, not every open room: telling 10k idle
 *     rooms would be work at the worst moment), and, while it lasts, the terminals shed from since.
 *
 * The per-frame part is plain fields read by TerminalInput. The timer runs only while audio flows:
 * it stops itself after a second without frames, and the next frame starts it again.
 */
import { createRequire } from 'node:module'
import type { Registry } from 'prom-client'
import { audioDrops, type DropCell } from './drops.js'

export interface OverloadOptions {
  /** Loop lateness (ms) above which the engine counts as behind. */
  readonly targetLagMs: number
  /** Terminals sending audio (in the last ~200 ms) below which nothing is shed, however late the loop is. */
  readonly minTalkers: number
  /** Largest share of frames shed. */
  readonly maxShed: number
  /** Under load, frames read when the loop is this much later than its timer (ms) are dropped (`stale`). */
  readonly staleMs: number
  /** Shedding must last this long before rooms are told they are degraded. */
  readonly degradeAfterMs: number
  /** No shedding for this long before rooms are told it is over. */
  readonly recoverAfterMs: number
}

export const DEFAULT_OVERLOAD: OverloadOptions = {
  targetLagMs: 25,
  minTalkers: 20,
  maxShed: 0.9,
  staleMs: 100,
  degradeAfterMs: 500,
  recoverAfterMs: 1000,
}

/** A terminal whose frames were shed: where its room is told (a TerminalSession is one). */
export interface ShedSource {
  readonly workspaceId: string
  readonly room: string | null
}

export interface OverloadState {
  readonly degraded: boolean
  /** Share of uplink frames shed now, 0–1. */
  readonly shed: number
  /** How late the event loop was at the last tick (ms). */
  readonly lagMs: number
}

/** What a listener hears: the state, and the terminals shed from since it last heard (none on the flip back). */
export type OverloadListener = (state: OverloadState, shedFrom: ReadonlyArray<ShedSource>) => void

const TICK_MS = 20
/** The timer stops after this long without an uplink frame. */
const IDLE_STOP_MS = 1000
/** The rate limit forgives at most this much lateness. */
const MAX_CREDIT_MS = 2000
/** Talkers are counted over windows of this many ticks (a 60 ms frame comes every third tick). */
const WINDOW_TICKS = 10
/** How fast `shed` moves: up by at least a step per late tick, down by a step per 20 ms on time. */
const SHED_UP = 0.04
const SHED_DOWN = 0.1

export class OverloadGuard {
  /** Share of uplink frames to drop now (TerminalInput reads it per frame). */
  shed = 0
  /**
   * A frame read after this instant (performance.now()) is stale: the loop has not reached the
   * timer for `staleMs` past its tick, so what it reads now waited in the kernel about as long.
   * Infinity unless enough terminals talk (minTalkers): a pause of a lightly loaded engine drops nothing.
   */
  staleAfter = Number.POSITIVE_INFINITY
  /** Uplink frames seen since the last tick (TerminalInput counts them). */
  frames = 0
  /** The talker-counting window now: a TerminalInput that has not sent in it yet counts itself in `talkersNow`. */
  window = 0
  talkersNow = 0
  /** Terminals that sent audio in the last whole window. */
  private talkers = 0
  private ticksInWindow = 0
  private lagMs = 0
  /** The largest lateness of the last second or so, decaying: the rate limit's credit. */
  private recentLagMs = 0
  private lastTickAt = 0
  private lastFrameAt = 0
  private timer: ReturnType<typeof setTimeout> | null = null
  private degraded = false
  /** When `shed` last went from 0 to more (for degradeAfterMs), or last was > 0 (for recoverAfterMs). */
  private shedSince = 0
  private shedLastAt = 0
  private readonly listeners = new Set<OverloadListener>()
  /** Terminals shed from since the listeners last heard. */
  private shedFrom = new Set<ShedSource>()

  constructor(
    readonly options: OverloadOptions = DEFAULT_OVERLOAD,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The timer is stopped: the next frame must call `wake`. */
  get idle(): boolean {
    return this.timer === null
  }

  /** Start watching the loop (the first frame after a quiet spell). */
  wake(now: number): void {
    if (this.timer !== null) return
    this.lastTickAt = now
    this.lastFrameAt = now
    this.staleAfter = Number.POSITIVE_INFINITY
    this.schedule()
  }

  /**
   * How much lateness (ms) the uplink rate limit forgives at `now`: the largest recent lateness,
   * or how long the loop has not reached the timer now, when that is more (frames read in a long
   * turn of the loop come before the timer can tell).
   */
  lagCreditMs(now: number): number {
    if (this.timer === null) return 0
    const late = now - this.lastTickAt - TICK_MS
    const credit = late > this.recentLagMs ? late : this.recentLagMs
    return credit > MAX_CREDIT_MS ? MAX_CREDIT_MS : credit
  }

  state(): OverloadState {
    return { degraded: this.degraded, shed: this.shed, lagMs: this.lagMs }
  }

  /** A frame of `source` was shed (TerminalInput, only while shedding). */
  noteShed(source: ShedSource): void {
    this.shedFrom.add(source)
  }

  /**
   * Hear each flip of `degraded`, and while degraded each tick that shed frames of terminals not
   * heard of yet; returns the unsubscribe.
   */
  onChange(listener: OverloadListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Stop the timer (an engine that stops; a frame after this starts it again). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.shed = 0
    this.lagMs = 0
    this.recentLagMs = 0
    this.staleAfter = Number.POSITIVE_INFINITY
    if (this.degraded) this.flip(false)
    this.shedFrom.clear()
  }

  private schedule(): void {
    this.timer = setTimeout(this.tick, TICK_MS)
    this.timer.unref()
  }

  /** One look at the loop: how late this timer fired, how many frames came in, and what to shed next. */
  readonly tick = (): void => {
    const now = this.now()
    const elapsed = now - this.lastTickAt
    const lag = elapsed - TICK_MS
    this.lagMs = lag > 0 ? lag : 0
    this.lastTickAt = now
    // The credit decays by a tenth a tick (about a second to fade from 2 s), never below this tick's lateness.
    this.recentLagMs = Math.max(this.lagMs, this.recentLagMs * 0.9)
    if (this.frames > 0) this.lastFrameAt = now
    this.frames = 0
    if (++this.ticksInWindow === WINDOW_TICKS) {
      this.talkers = this.talkersNow
      this.talkersNow = 0
      this.ticksInWindow = 0
      this.window++
    }
    const loaded = this.steer(now, elapsed)
    this.staleAfter = loaded ? now + TICK_MS + this.options.staleMs : Number.POSITIVE_INFINITY
    if (this.shed === 0 && !this.degraded && now - this.lastFrameAt >= IDLE_STOP_MS) {
      this.timer = null
      this.recentLagMs = 0
      this.staleAfter = Number.POSITIVE_INFINITY
      return
    }
    this.schedule()
  }

  /** Adjust `shed` after a tick `elapsed` ms after the last; true when enough terminals talk to shed at all. */
  private steer(now: number, elapsed: number): boolean {
    const { targetLagMs, minTalkers, maxShed, degradeAfterMs, recoverAfterMs } = this.options
    // Both windows: the last whole one, and the one filling now (the load may have just begun).
    const loaded = Math.max(this.talkers, this.talkersNow) >= Math.max(1, minTalkers)
    const before = this.shed
    if (loaded && this.lagMs > targetLagMs) {
      // At once to the share that would have kept this tick on time (the loop needed lag more ms
      // per tick than it had, if shed frames cost nothing), and up by a step at least.
      const wanted = (this.lagMs - targetLagMs) / (this.lagMs + TICK_MS)
      this.shed = Math.min(maxShed, Math.max(this.shed + SHED_UP, wanted))
    } else if (!loaded || this.lagMs < targetLagMs / 2) {
      // Down by a step per 20 ms that passed (ticks come late while the loop is busy).
      this.shed = Math.max(0, this.shed - (SHED_DOWN * Math.max(elapsed, TICK_MS)) / TICK_MS)
    }
    if (this.shed > 0) {
      if (before === 0) this.shedSince = now
      this.shedLastAt = now
    }
    if (!this.degraded && this.shed > 0 && now - this.shedSince >= degradeAfterMs) this.flip(true)
    else if (this.degraded && this.shed === 0 && now - this.shedLastAt >= recoverAfterMs) this.flip(false)
    else if (this.degraded && this.shedFrom.size > 0) this.tell()
    else if (!this.degraded && this.shed === 0) this.shedFrom.clear()
    return loaded
  }

  private flip(degraded: boolean): void {
    this.degraded = degraded
    if (!degraded) this.shedFrom.clear()
    this.tell()
  }

  private tell(): void {
    const state = this.state()
    const sources = [...this.shedFrom]
    this.shedFrom.clear()
    for (const listener of this.listeners) {
      try {
        listener(state, sources)
      } catch {
        // a listener's failure is its own; the guard goes on
      }
    }
  }
}

const promClient = (): typeof import('prom-client') => createRequire(import.meta.url)('prom-client') as typeof import('prom-client')
const byRegistry = new WeakMap<Registry, OverloadGuard>()

/**
 * The overload guard of an engine (one per metrics registry, as the drop counters: every
 * transport of the engine shares it), with its gauges `hark_audio_overload_shed_ratio` and
 * `hark_audio_overload_degraded` (the loop's lateness itself is `hark_process_nodejs_eventloop_lag_seconds`).
 */
export const overloadGuard = (registry: Registry, options?: Partial<OverloadOptions>): OverloadGuard => {
  const known = byRegistry.get(registry)
  if (known) return known
  const guard = new OverloadGuard({ ...DEFAULT_OVERLOAD, ...options })
  byRegistry.set(registry, guard)
  const { Gauge } = promClient()
  new Gauge({
    name: 'hark_audio_overload_shed_ratio',
    help: 'Share of uplink audio frames the engine sheds now because it is behind (0 when it keeps up)',
    registers: [registry],
    collect() {
      this.set(guard.state().shed)
    },
  })
  new Gauge({
    name: 'hark_audio_overload_degraded',
    help: '1 while rooms are told they are degraded (room.degraded) because the engine sheds audio',
    registers: [registry],
    collect() {
      this.set(guard.state().degraded ? 1 : 0)
    },
  })
  return guard
}

/** What a transport puts in its TerminalInputOptions: the engine's guard and its own `overload` drop cell. */
export const overloadInput = (
  registry: Registry,
  transport: string,
): { readonly guard: OverloadGuard; readonly drops: DropCell; readonly stale: DropCell } => ({
  guard: overloadGuard(registry),
  drops: audioDrops(registry).cell(transport, 'overload'),
  stale: audioDrops(registry).cell(transport, 'stale'),
})
