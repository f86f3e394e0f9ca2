/**
 * What the SDK throws: the server's error envelope `{error: {message, code}}` as one class per
 * family of HTTP status, a connection that never got an answer, and a forged or stale webhook.
 * Every class extends HarkError, so one `instanceof` catches them all.
 */

/** The codes of spec/rest.md's error table; the server may add codes, so any string is accepted too. */
export type RestErrorCode =
  | 'validation_failed'
  | 'malformed_json'
  | 'limit_exceeded'
  | 'protocol_error'
  | 'invalid_api_key'
  | 'client_not_found'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'client_exists'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'headers_too_large'
  | 'agent_start_failed'
  | 'not_supported'
  | 'agent_elsewhere'
  | 'internal'
  | 'server_shutting_down'
  | 'storage_unavailable'
  | 'cluster_unavailable'

/** Every error of this SDK. */
export class HarkError extends Error {
  override name = 'HarkError'
}

/** The server answered with an error status; `message` and `code` are the envelope's. */
export class HarkApiError extends HarkError {
  override name = 'HarkApiError'
  constructor(
    message: string,
    readonly status: number,
    readonly code: RestErrorCode | (string & {}),
    /** The response's headers (rate-limit headers among them). */
    readonly headers: Headers,
  ) {
    super(message)
  }
}

/** 400, 413, 415, 431: the request itself was refused (validation_failed, malformed_json, limit_exceeded …). */
export class BadRequestError extends HarkApiError {
  override name = 'BadRequestError'
}

/** 401 invalid_api_key: the key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends HarkApiError {
  override name = 'AuthenticationError'
}

/** 404: no such resource in this workspace (client_not_found, not_found). */
export class NotFoundError extends HarkApiError {
  override name = 'NotFoundError'
}

/** 409: client_exists, conflict, not_supported (an agent's provider cannot do that) or agent_elsewhere. */
export class ConflictError extends HarkApiError {
  override name = 'ConflictError'
}

/** 429 rate_limited, after the retries the client allows; `retryAfterSeconds` is the server's Retry-After. */
export class RateLimitError extends HarkApiError {
  override name = 'RateLimitError'
  get retryAfterSeconds(): number | null {
    const ms = parseRetryAfterMs(this.headers.get('retry-after'), Date.now())
    return ms === null ? null : Math.ceil(ms / 1000)
  }
}

/** 5xx: internal, agent_start_failed (502), server_shutting_down / storage_unavailable / cluster_unavailable (503). */
export class ServerError extends HarkApiError {
  override name = 'ServerError'
}

/** No answer at all: refused connection, unknown host, TLS failure, timeout. `code` is the system's (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT, ETIMEDOUT …). */
export class HarkConnectionError extends HarkError {
  override name = 'HarkConnectionError'
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** A webhook request whose signature, headers or timestamp do not verify, or whose body is not an event. */
export class WebhookVerificationError extends HarkError {
  override name = 'WebhookVerificationError'
}

/** Retry-After as a delay: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export const parseRetryAfterMs = (value: string | null, now: number): number | null => {
  if (value === null || value.trim() === '') return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

const classFor = (status: number): typeof HarkApiError => {
  if (status === 401) return AuthenticationError
  if (status === 404) return NotFoundError
  if (status === 409) return ConflictError
  if (status === 429) return RateLimitError
  if (status >= 500) return ServerError
  if (status === 400 || status === 413 || status === 415 || status === 431) return BadRequestError
  return HarkApiError
}

const isEnvelope = (body: unknown): body is { error: { message: string; code: string } } => {
  const error = (body as { error?: unknown } | null)?.error as { message?: unknown; code?: unknown } | undefined
  return typeof error === 'object' && error !== null && typeof error.message === 'string' && typeof error.code === 'string'
}

/** The typed error of a failed response, from its parsed body (openapi-fetch's `error`). */
export const apiError = (response: Response, body: unknown): HarkApiError => {
  const Class = classFor(response.status)
  if (isEnvelope(body)) return new Class(body.error.message, response.status, body.error.code, response.headers)
  // Not Hark's envelope (a proxy in front, say): keep what it said, cut short.
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? '')
  return new Class(`HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, response.status, 'http_error', response.headers)
}

/** A fetch failure as a HarkConnectionError naming the URL and the system's reason. */
export const connectionError = (url: string, error: unknown): HarkConnectionError => {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } }
  if (e?.name === 'TimeoutError') return new HarkConnectionError(`no answer from ${url}: ${e.message}`, 'ETIMEDOUT', { cause: error })
  const cause = e?.cause
  const reason = cause?.message ?? e?.message ?? String(error)
  return new HarkConnectionError(`cannot reach ${url}: ${reason}`, cause?.code ?? 'ECONNECTION', { cause: error })
}
