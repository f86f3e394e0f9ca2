/**
 * Per-workspace rate limiting with @fastify/rate-limit: every request under /api/v1 — any route,
 * an unknown path or method (OPTIONS too), with or without a key — counts against
 * `rest.rateLimitMax` per `rest.rateLimitWindowSeconds` (a fixed window per key); calls without a
 * valid key count per client IP. Over the limit: 429 `rate_limited` with Retry-After, and every
 * response carries the IETF draft RateLimit-Limit/-Remaining/-Reset headers. The limiter is a
 * scope hook rather than the plugin's per-route one, so the not-found handler is counted as well.
 * The windows run on the engine's clock (core/rateWindows.ts; the library's own store reads Date.now()).
 */
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { clockedRateLimitStore, RateLimited, type ClockShape } from '../../core/extension.js'
import { workspaceOf } from './auth.js'
import type { RestSettings } from './services.js'

export const installRateLimit = async (app: FastifyInstance, settings: RestSettings, clock: ClockShape): Promise<void> => {
  await app.register(rateLimit, {
    global: false,
    max: settings.rateLimitMax,
    timeWindow: settings.rateLimitWindowSeconds * 1000,
    enableDraftSpec: true,
    store: clockedRateLimitStore(clock),
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

