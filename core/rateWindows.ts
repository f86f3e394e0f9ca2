/**
 * Fixed rate-limit windows on the engine's clock, as the `store` @fastify/rate-limit constructs:
 * the library's own store reads Date.now(), so a plugin (or an extension's routes on the REST port)
 * that limits requests hands it this one instead, and a test drives the windows with a ManualClock.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { ClockShape } from './clock.js'

/** Distinct keys remembered at once by default; the least recent starts afresh. */
export const RATE_WINDOW_KEYS = 10_000

/** A fixed window per key on `clock`; at most `maxKeys` keys, the least recently used forgotten first. */
export const clockedRateLimitStore = (clock: ClockShape, maxKeys = RATE_WINDOW_KEYS): FastifyRateLimitStoreCtor =>
  class ClockedWindows implements FastifyRateLimitStore {
    // Map order is recency order: a key used again moves to the end, the first is the oldest.
    private readonly windows = new Map<string, { current: number; startedAt: number }>()
    /** The key used last, already at the end of the map: a workspace calling again is not moved. */
    private lastKey: string | null = null

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const now = clock.monotonic()
      let w = this.windows.get(key)
      if (key !== this.lastKey) {
        this.windows.delete(key)
        this.lastKey = key
      }
      if (w === undefined || w.startedAt + timeWindow <= now) w = { current: 0, startedAt: now }
      w.current++
      this.windows.set(key, w)
      if (this.windows.size > maxKeys) this.windows.delete(this.windows.keys().next().value!)
      callback(null, { current: w.current, ttl: w.startedAt + timeWindow - now })
    }

    /** Routes with their own limits would get their own windows; a scope's all share these. */
    child(): FastifyRateLimitStore {
      return this
    }
  }
