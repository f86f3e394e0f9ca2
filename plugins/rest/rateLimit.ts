/**
 * Per-workspace rate limiting with @fastify/rate-limit: every request under /api/v1 — any route,
 * an unknown path or method (OPTIONS too), with or without a key — counts against
 * `rest.rateLimitMax` per `rest.rateLimitWindowSeconds` (a fixed window per key); calls without a
 * valid key count per client IP. Over the limit: 429 `rate_limited` with Retry-After, and every
 * response carries the IETF draft RateLimit-Limit/-Remaining/-Reset headers. The limiter is a
 * scope hook rather than the plugin's per-route one, so the not-found handler is counted as well.
 * The windows run on the engine's clock (our store below; the library's own reads Date.now()).
 */
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import type { ClockShape } from '../../core/clock.js'
import { RateLimited } from '../../core/errors.js'
import { workspaceOf } from './auth.js'
import type { RestSettings } from './services.js'

/** Distinct keys remembered at once (workspaces plus unauthenticated IPs); the least recent starts afresh. */
const MAX_KEYS = 10_000

/** A fixed window per key on `clock`, as the `store` class @fastify/rate-limit constructs. */
export const clockedStore = (clock: ClockShape, maxKeys = MAX_KEYS): FastifyRateLimitStoreCtor =>
  class ClockedWindows implements FastifyRateLimitStore {
    // Map order is recency order: a key used again moves to the end, the first is the oldest.
    private readonly windows = new Map<string, { current: number; startedAt: number }>()

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const now = clock.monotonic()
      let w = this.windows.get(key)
      this.windows.delete(key)
      if (w === undefined || w.startedAt + timeWindow <= now) w = { current: 0, startedAt: now }
      w.current++
      this.windows.set(key, w)
      if (this.windows.size > maxKeys) this.windows.delete(this.windows.keys().next().value!)
      callback(null, { current: w.current, ttl: w.startedAt + timeWindow - now })
    }

    /** Routes with their own limits would get their own windows; ours all share the workspace's. */
    child(): FastifyRateLimitStore {
      return this
    }
  }

export const installRateLimit = async (app: FastifyInstance, settings: RestSettings, clock: ClockShape): Promise<void> => {
  await app.register(rateLimit, {
    global: false,
    max: settings.rateLimitMax,
    timeWindow: settings.rateLimitWindowSeconds * 1000,
    enableDraftSpec: true,
    store: clockedStore(clock),
    keyGenerator: (request) => {
      const workspaceId = workspaceOf(request)
      return workspaceId === null ? `ip:${request.ip}` : `ws:${workspaceId}`
    },
    errorResponseBuilder: (_request, context) => {
      const retryAfterSeconds = Math.max(1, Math.ceil(context.ttl / 1000))
      return new RateLimited({ message: `rate limit exceeded, retry in ${retryAfterSeconds} s`, retryAfterSeconds })
    },
  })
  // After auth's onRequest hook (it names the workspace), before anything can refuse the request.
  app.addHook('onRequest', app.rateLimit())
}

