/**
 * Per-workspace rate limiting with @fastify/rate-limit: every /api/v1 call of one workspace
 * counts against `rest.rateLimitMax` per `rest.rateLimitWindowSeconds` (a fixed window per key);
 * calls without a valid key count per client IP. Over the limit: 429 `rate_limited` with
 * Retry-After, and every response carries the IETF draft RateLimit-Limit/-Remaining/-Reset headers.
 */
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { RateLimited } from '../../core/errors.js'
import { workspaceOf } from './auth.js'
import type { RestSettings } from './services.js'

export const installRateLimit = async (app: FastifyInstance, settings: RestSettings): Promise<void> => {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: settings.rateLimitMax,
    timeWindow: settings.rateLimitWindowSeconds * 1000,
    enableDraftSpec: true,
    // Distinct keys remembered at once (workspaces plus unauthenticated IPs); older ones start afresh.
    cache: 10_000,
    keyGenerator: (request) => {
      const workspaceId = workspaceOf(request)
      return workspaceId === null ? `ip:${request.ip}` : `ws:${workspaceId}`
    },
    errorResponseBuilder: (_request, context) => {
      const retryAfterSeconds = Math.max(1, Math.ceil(context.ttl / 1000))
      return new RateLimited({ message: `rate limit exceeded, retry in ${retryAfterSeconds} s`, retryAfterSeconds })
    },
  })
}

