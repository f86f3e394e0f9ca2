/**
 * When to connect again: exponential backoff with jitter, floored by the server's Retry-After,
 * and only for errors reconnecting can cure. A revoked token, a deleted client, a replaced
 * session, a protocol violation or a refused certificate are never retried; an expired or
 * refused token only with a fresh one from `refreshToken`.
 */
import { HarkClientError, InvalidTokenError, TokenExpiredError } from './errors.js'

export interface ReconnectOptions {
  /** Attempts after a drop before giving up (default 10). */
  readonly maxAttempts?: number
  /** The first wait (default 500 ms); each next one doubles, up to `maxDelayMs`. */
  readonly initialDelayMs?: number
  /** The longest wait between attempts (default 10 s). */
  readonly maxDelayMs?: number
}

export interface ReconnectPolicy {
  readonly maxAttempts: number
  readonly initialDelayMs: number
  readonly maxDelayMs: number
}

export const reconnectPolicy = (options: boolean | ReconnectOptions | undefined): ReconnectPolicy | null => {
  if (options === false) return null
  const o = typeof options === 'object' ? options : {}
  return { maxAttempts: o.maxAttempts ?? 10, initialDelayMs: o.initialDelayMs ?? 500, maxDelayMs: o.maxDelayMs ?? 10_000 }
}

/**
 * The wait before attempt `attempt` (1, 2, …): the exponential step with "equal jitter" — half
 * of it fixed, half random — so a room's terminals dropped at once do not come back at once, and
 * never less than the server's Retry-After.
 */
export const backoffMs = (policy: ReconnectPolicy, attempt: number, error: HarkClientError, random: () => number = Math.random): number => {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt - 1, 30))
  const jittered = step / 2 + random() * (step / 2)
  return Math.round(Math.max(jittered, error.retryAfterMs ?? 0))
}

/** Whether the token must be replaced before trying again. */
export const needsFreshToken = (error: HarkClientError): boolean => error instanceof TokenExpiredError || error instanceof InvalidTokenError

/** When a JWT's `exp` passes (ms since the epoch), or null when it has none or cannot be read. */
export const tokenExpiresAt = (token: string): number | null => {
  const payload = token.split('.')[1]
  if (!payload) return null
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '='))
    const exp = (JSON.parse(json) as { exp?: unknown }).exp
    return typeof exp === 'number' ? exp * 1000 : null
  } catch {
    return null
  }
}
