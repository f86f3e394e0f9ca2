/**
 * What a session fails with: every refusal and close reason of the terminal protocol as a class a
 * caller can match with `instanceof`, carrying the server's `code` and `message`, the HTTP status
 * of a refused connection or the WebSocket close code of an ended one, and whether reconnecting
 * can help (`retriable`). The close reasons and their codes are spec/terminal-protocol.md's table;
 * the refusals are spec/websocket.md's and spec/webrtc.md's.
 */

/** The close reasons of spec/terminal-protocol.md, "Closing a session", with their WebSocket close codes. */
export const CLOSE_CODES = {
  token_revoked: 4003,
  client_deleted: 4004,
  session_replaced: 4005,
  device_password_reset: 4006,
  token_expired: 4002,
  protocol_error: 1002,
  frame_too_large: 1009,
  rate_limited: 4029,
  receiver_too_slow: 1008,
  server_shutting_down: 1001,
  internal: 1011,
} as const

export type CloseReason = keyof typeof CLOSE_CODES

interface ErrorDetails {
  readonly status?: number | null
  readonly closeCode?: number | null
  readonly retryAfterMs?: number | null
  readonly cause?: unknown
}

/** Every error of this SDK. `code` is the server's (or, for a connection that got no answer, the system's). */
export class HarkClientError extends Error {
  override name = 'HarkClientError'
  /** The HTTP status of a refused connection (401, 429 …), or null. */
  readonly status: number | null
  /** The WebSocket close code of an ended session (4003 …), or null. */
  readonly closeCode: number | null
  /** How long the server asked to wait (Retry-After), or null. */
  readonly retryAfterMs: number | null

  constructor(
    message: string,
    readonly code: string,
    details: ErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.status = details.status ?? null
    this.closeCode = details.closeCode ?? null
    this.retryAfterMs = details.retryAfterMs ?? null
  }

  /** Whether connecting again (with the same token) may succeed: reconnection retries only these. */
  get retriable(): boolean {
    return false
  }
}

/** The credential was refused or withdrawn. */
export class CredentialError extends HarkClientError {
  override name = 'CredentialError'
}
/** `token_revoked`: the token was revoked (by jti or revoke-all). Never retried. */
export class TokenRevokedError extends CredentialError {
  override name = 'TokenRevokedError'
}
/** `client_deleted` (a live session) or `client_not_found` (at connect): the client no longer exists. Never retried. */
export class ClientDeletedError extends CredentialError {
  override name = 'ClientDeletedError'
}
/** `token_expired`: retried only with a fresh token from `refreshToken`. */
export class TokenExpiredError extends CredentialError {
  override name = 'TokenExpiredError'
}
/** `invalid_token`: malformed, badly signed, of an unknown workspace … Retried only with a fresh token from `refreshToken`. */
export class InvalidTokenError extends CredentialError {
  override name = 'InvalidTokenError'
}
/** `device_password_reset` (MQTT sessions only). Never retried. */
export class DevicePasswordResetError extends CredentialError {
  override name = 'DevicePasswordResetError'
}

/** `session_replaced`: the same client connected again elsewhere; reconnecting would replace that one. Never retried. */
export class SessionReplacedError extends HarkClientError {
  override name = 'SessionReplacedError'
}

/** `rate_limited`: HTTP 429 at connect, or close 4029 (too many control messages). Retried after `retryAfterMs` or a backoff. */
export class RateLimitedError extends HarkClientError {
  override name = 'RateLimitedError'
  override get retriable(): boolean {
    return true
  }
}

/** The server cannot serve now: `server_shutting_down`, `internal`, `capacity_exceeded`, `receiver_too_slow`, any 5xx. Retried. */
export class ServerUnavailableError extends HarkClientError {
  override name = 'ServerUnavailableError'
  override get retriable(): boolean {
    return true
  }
}

/** The server refused what this client sent (`protocol_error`, `frame_too_large`, `validation_failed` …): a bug, not retried. */
export class ProtocolViolationError extends HarkClientError {
  override name = 'ProtocolViolationError'
}

/** Any other HTTP refusal of the connection (a wrong path: 404 `not_found`, 415 …). Not retried. */
export class RequestRefusedError extends HarkClientError {
  override name = 'RequestRefusedError'
}

/** No answer at all: refused connection, unknown host, network down. `code` is the system's (ECONNREFUSED …). Retried. */
export class ConnectionError extends HarkClientError {
  override name = 'ConnectionError'
  override get retriable(): boolean {
    return true
  }
}

/** The server's certificate was not accepted (self-signed, expired, wrong name). Not retried. */
export class TlsError extends ConnectionError {
  override name = 'TlsError'
  override get retriable(): boolean {
    return false
  }
}

/** The transport dropped without the server saying why (WebSocket 1006, a failed peer connection). Retried. */
export class ConnectionLostError extends ConnectionError {
  override name = 'ConnectionLostError'
}

/** The options cannot work here: a URL that is not ws(s)/http(s), WebRTC outside a browser. */
export class ConfigurationError extends HarkClientError {
  override name = 'ConfigurationError'
}

/** A control message the server answered with an `error` event (the session goes on). */
export class ControlMessageError extends HarkClientError {
  override name = 'ControlMessageError'
}

type ErrorClass = new (message: string, code: string, details?: ErrorDetails) => HarkClientError

const CLASS_OF_CODE: Readonly<Record<string, ErrorClass>> = {
  token_revoked: TokenRevokedError,
  client_deleted: ClientDeletedError,
  client_not_found: ClientDeletedError,
  token_expired: TokenExpiredError,
  invalid_token: InvalidTokenError,
  device_password_reset: DevicePasswordResetError,
  session_replaced: SessionReplacedError,
  rate_limited: RateLimitedError,
  server_shutting_down: ServerUnavailableError,
  internal: ServerUnavailableError,
  capacity_exceeded: ServerUnavailableError,
  receiver_too_slow: ServerUnavailableError,
  storage_unavailable: ServerUnavailableError,
  cluster_unavailable: ServerUnavailableError,
  protocol_error: ProtocolViolationError,
  frame_too_large: ProtocolViolationError,
  validation_failed: ProtocolViolationError,
  malformed_json: ProtocolViolationError,
  payload_too_large: ProtocolViolationError,
  unsupported_media_type: ProtocolViolationError,
}

/** The typed error of a server code (`session.closing`, an error envelope), with its message. */
export const errorFromCode = (code: string, message: string, details: ErrorDetails = {}): HarkClientError => {
  const Class = CLASS_OF_CODE[code]
  if (Class) return new Class(message, code, details)
  const status = details.status ?? 0
  if (status >= 500) return new ServerUnavailableError(message, code, details)
  if (status === 429) return new RateLimitedError(message, code, details)
  if (status === 401) return new InvalidTokenError(message, code, details)
  return new RequestRefusedError(message, code, details)
}

const REASON_OF_CLOSE_CODE = new Map<number, string>(Object.entries(CLOSE_CODES).map(([reason, code]) => [code, reason]))

/**
 * The typed error of a WebSocket close the client did not ask for. The server's reason text is
 * the stable code; without one, the close code says it; 1006 (no close frame) is a lost connection.
 */
export const errorFromClose = (closeCode: number, reason: string): HarkClientError => {
  const code = reason && CLASS_OF_CODE[reason] ? reason : REASON_OF_CLOSE_CODE.get(closeCode)
  if (code) return errorFromCode(code, reason && reason !== code ? reason : `the server closed the session: ${code}`, { closeCode })
  return new ConnectionLostError(`the connection closed (${closeCode}${reason ? ` ${reason}` : ''})`, 'connection_lost', { closeCode })
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export const parseRetryAfterMs = (value: string | null | undefined): number | null => {
  if (value == null || value.trim() === '') return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now())
}

/** The typed error of an HTTP refusal, from its status, body text (the envelope `{error: {message, code}}`) and Retry-After. */
export const errorFromHttp = (status: number, body: string, retryAfter: string | null | undefined): HarkClientError => {
  let envelope: unknown = null
  try {
    envelope = JSON.parse(body)
  } catch {
    envelope = null
  }
  const details = { status, retryAfterMs: parseRetryAfterMs(retryAfter) }
  const e = (envelope as { error?: { message?: unknown; code?: unknown } } | null)?.error
  if (e && typeof e.message === 'string' && typeof e.code === 'string') return errorFromCode(e.code, e.message, details)
  // Not Hark's envelope (a proxy in front, say): keep what it said, cut short.
  const text = body.trim().slice(0, 200)
  return errorFromCode('http_error', `HTTP ${status}${text ? `: ${text}` : ''}`, details)
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|EPROTO|SSL/

/** A failure to get any answer as a ConnectionError (or TlsError), naming the URL and the system's reason. */
export const connectionError = (url: string, error: unknown): ConnectionError => {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } } | null
  const code = e?.code ?? e?.cause?.code ?? 'ECONNECTION'
  const reason = e?.cause?.message ?? e?.message ?? String(error)
  const Class = TLS_CODES.test(code) ? TlsError : ConnectionError
  return new Class(`cannot reach ${url}: ${reason}`, code, { cause: error })
}
