/**
 * Domain errors of Hark and the single table that maps each of them onto every wire:
 * an HTTP status, an MQTT reason code (v5 DISCONNECT/CONNACK, and the v3.1.1 CONNACK
 * return code where a refusal at CONNECT makes sense) and a WebSocket close code.
 * Adapters never invent their own codes: they look the error up here.
 */
import * as Data from 'effect/Data'

/** One row of the wire table. `code` is the stable, machine-readable string in every error envelope. */
export interface WireCodes {
  readonly code: string
  readonly http: number
  /** MQTT 5 reason code (CONNACK refusal or DISCONNECT). */
  readonly mqtt5: number
  /** MQTT 3.1.1 CONNACK return code (1..5). */
  readonly mqtt311: number
  /** WebSocket close code (RFC 6455 standard codes where one fits, 4000–4999 otherwise). */
  readonly ws: number
}

export class ValidationFailed extends Data.TaggedError('ValidationFailed')<{
  readonly field: string
  readonly message: string
}> {}

export class MalformedJson extends Data.TaggedError('MalformedJson')<{ readonly message: string }> {}

export class UnsupportedMediaType extends Data.TaggedError('UnsupportedMediaType')<{ readonly message: string }> {}

export class PayloadTooLarge extends Data.TaggedError('PayloadTooLarge')<{ readonly message: string }> {}

/** An HTTP request line and headers larger than the listener reads (a URL of 100 KB). */
export class HeadersTooLarge extends Data.TaggedError('HeadersTooLarge')<{ readonly message: string }> {}

/** An HTTP request whose head or body did not arrive in time. */
export class RequestTimeout extends Data.TaggedError('RequestTimeout')<{ readonly message: string }> {}

/** An HTTP method the listener never serves (CONNECT: it is not a proxy). */
export class MethodNotAllowed extends Data.TaggedError('MethodNotAllowed')<{ readonly message: string }> {}

export class ApiKeyInvalid extends Data.TaggedError('ApiKeyInvalid')<{ readonly message: string }> {}

export class TokenInvalid extends Data.TaggedError('TokenInvalid')<{ readonly message: string }> {}

export class TokenExpired extends Data.TaggedError('TokenExpired')<{ readonly message: string }> {}

export class TokenRevoked extends Data.TaggedError('TokenRevoked')<{ readonly message: string }> {}

export class DevicePasswordInvalid extends Data.TaggedError('DevicePasswordInvalid')<{ readonly message: string }> {}

export class DevicePasswordReset extends Data.TaggedError('DevicePasswordReset')<{ readonly message: string }> {}

export class WorkspaceNotFound extends Data.TaggedError('WorkspaceNotFound')<{ readonly message: string }> {}

export class ApiKeyNotFound extends Data.TaggedError('ApiKeyNotFound')<{ readonly message: string }> {}

export class ClientNotFound extends Data.TaggedError('ClientNotFound')<{ readonly message: string }> {}

export class ClientExists extends Data.TaggedError('ClientExists')<{ readonly message: string }> {}

export class ClientDeleted extends Data.TaggedError('ClientDeleted')<{ readonly message: string }> {}

export class NotFound extends Data.TaggedError('NotFound')<{ readonly message: string }> {}

export class Conflict extends Data.TaggedError('Conflict')<{ readonly message: string }> {}

export class SessionReplaced extends Data.TaggedError('SessionReplaced')<{ readonly message: string }> {}

export class ProtocolError extends Data.TaggedError('ProtocolError')<{ readonly message: string }> {}

export class FrameTooLarge extends Data.TaggedError('FrameTooLarge')<{ readonly message: string }> {}

/** A receiver that cannot even take control events any more (its socket buffer is full). */
export class ReceiverTooSlow extends Data.TaggedError('ReceiverTooSlow')<{ readonly message: string }> {}

/** A documented per-workspace limit (e.g. 10 webhook endpoints) would be exceeded. */
export class LimitExceeded extends Data.TaggedError('LimitExceeded')<{ readonly message: string }> {}

export class RateLimited extends Data.TaggedError('RateLimited')<{
  readonly message: string
  readonly retryAfterSeconds: number
}> {}

/** The server is at a configured capacity (e.g. webrtc.maxPeers); try again later. */
export class CapacityExceeded extends Data.TaggedError('CapacityExceeded')<{
  readonly message: string
  readonly retryAfterSeconds: number
}> {}
/** An agent's provider failed to start (or timed out starting); the reason is public and secret-free. */
export class AgentStartFailed extends Data.TaggedError('AgentStartFailed')<{ readonly message: string }> {}
/** A running agent's provider cannot do what live control asked (say, interrupt, update); the message says which. */
export class AgentControlUnsupported extends Data.TaggedError('AgentControlUnsupported')<{ readonly message: string }> {}
/** Live control of an agent that runs on another node of the cluster (not forwarded). */
export class AgentElsewhere extends Data.TaggedError('AgentElsewhere')<{ readonly message: string }> {}

export class ServerShuttingDown extends Data.TaggedError('ServerShuttingDown')<{ readonly message: string }> {}

/** A terminal connected without any credential (MQTT CONNECT without a password). */
export class CredentialMissing extends Data.TaggedError('CredentialMissing')<{ readonly message: string }> {}

/** The MQTT user name names someone else than the credential does. */
export class UsernameInvalid extends Data.TaggedError('UsernameInvalid')<{ readonly message: string }> {}

/** The MQTT client identifier is neither empty nor the credential's clientId. */
export class ClientIdentifierInvalid extends Data.TaggedError('ClientIdentifierInvalid')<{ readonly message: string }> {}

/** A protocol version the transport does not speak (MQTT 3.1, or an unknown level). */
export class UnsupportedProtocolVersion extends Data.TaggedError('UnsupportedProtocolVersion')<{ readonly message: string }> {}

/** Bytes that do not form a valid packet of the protocol (MQTT "malformed packet"). */
export class MalformedPacket extends Data.TaggedError('MalformedPacket')<{ readonly message: string }> {}

/** A publish or subscription outside the terminal's own topic namespace. */
export class TopicNotAuthorized extends Data.TaggedError('TopicNotAuthorized')<{ readonly message: string }> {}

/** A syntactically invalid MQTT topic filter. */
export class TopicFilterInvalid extends Data.TaggedError('TopicFilterInvalid')<{ readonly message: string }> {}

/** An MQTT 5 topic alias of 0, above the announced maximum, or never set. */
export class TopicAliasInvalid extends Data.TaggedError('TopicAliasInvalid')<{ readonly message: string }> {}

/** Nothing heard from the terminal within 1.5 times its keepalive. */
export class KeepAliveTimeout extends Data.TaggedError('KeepAliveTimeout')<{ readonly message: string }> {}

/** An MQTT 5 publish or will with RETAIN set, though the server announced Retain Available = 0. */
export class RetainNotSupported extends Data.TaggedError('RetainNotSupported')<{ readonly message: string }> {}

/** More unacknowledged QoS 2 publishes from the terminal than the announced Receive Maximum. */
export class ReceiveMaximumExceeded extends Data.TaggedError('ReceiveMaximumExceeded')<{ readonly message: string }> {}

/** MQTT 5 enhanced authentication (an Authentication Method) is not offered. */
export class AuthenticationMethodUnsupported extends Data.TaggedError('AuthenticationMethodUnsupported')<{
  readonly message: string
}> {}

/** An MQTT 5 SUBSCRIBE with a Subscription Identifier, which the server announced it does not support. */
export class SubscriptionIdentifiersUnsupported extends Data.TaggedError('SubscriptionIdentifiersUnsupported')<{
  readonly message: string
}> {}

/** An MQTT 5 SUBSCRIBE to a shared subscription (`$share/…`), which the server announced it does not support. */
export class SharedSubscriptionsUnsupported extends Data.TaggedError('SharedSubscriptionsUnsupported')<{
  readonly message: string
}> {}

/** A cluster node could not reach the node that owns a room (or NATS) in time; the request may be retried. */
export class ClusterUnavailable extends Data.TaggedError('ClusterUnavailable')<{ readonly message: string }> {}

/** The database primary (a libSQL server) cannot be reached: a write is refused; reads go on from the replica. */
export class StorageUnavailable extends Data.TaggedError('StorageUnavailable')<{
  readonly message: string
  readonly cause?: unknown
}> {}
/** A console request without a valid sign-in session (none, unknown, expired, or its user disabled). */
export class Unauthenticated extends Data.TaggedError('Unauthenticated')<{ readonly message: string }> {}

/** A signed-in user whose role in the workspace does not allow the action. */
export class Forbidden extends Data.TaggedError('Forbidden')<{ readonly message: string }> {}

/** A state-changing console request without the session's CSRF token, or from another origin. */
export class CsrfRejected extends Data.TaggedError('CsrfRejected')<{ readonly message: string }> {}

/** A sign-in with an unknown email, a wrong password or a disabled account: one answer for all three. */
export class InvalidCredentials extends Data.TaggedError('InvalidCredentials')<{ readonly message: string }> {}

export class UserExists extends Data.TaggedError('UserExists')<{ readonly message: string }> {}

export class UserNotFound extends Data.TaggedError('UserNotFound')<{ readonly message: string }> {}

/** The change would leave a workspace without an admin (the last admin leaving or being demoted). */
export class LastAdmin extends Data.TaggedError('LastAdmin')<{ readonly message: string }> {}

/** An invitation link that is unknown, expired, already used or revoked: one answer for all four. */
export class InvitationInvalid extends Data.TaggedError('InvitationInvalid')<{ readonly message: string }> {}

export class StorageFailure extends Data.TaggedError('StorageFailure')<{
  readonly message: string
  readonly cause?: unknown
}> {}

export class Internal extends Data.TaggedError('Internal')<{
  readonly message: string
  readonly cause?: unknown
}> {}

export type HarkError =
  | ValidationFailed
  | MalformedJson
  | UnsupportedMediaType
  | PayloadTooLarge
  | HeadersTooLarge
  | RequestTimeout
  | MethodNotAllowed
  | ApiKeyInvalid
  | TokenInvalid
  | TokenExpired
  | TokenRevoked
  | DevicePasswordInvalid
  | DevicePasswordReset
  | WorkspaceNotFound
  | ApiKeyNotFound
  | ClientNotFound
  | ClientExists
  | ClientDeleted
  | NotFound
  | Conflict
  | SessionReplaced
  | ProtocolError
  | FrameTooLarge
  | ReceiverTooSlow
  | LimitExceeded
  | RateLimited
  | CapacityExceeded
  | AgentStartFailed
  | AgentControlUnsupported
  | AgentElsewhere
  | ClusterUnavailable
  | ServerShuttingDown
  | CredentialMissing
  | UsernameInvalid
  | ClientIdentifierInvalid
  | UnsupportedProtocolVersion
  | MalformedPacket
  | TopicNotAuthorized
  | TopicFilterInvalid
  | TopicAliasInvalid
  | KeepAliveTimeout
  | RetainNotSupported
  | ReceiveMaximumExceeded
  | AuthenticationMethodUnsupported
  | SubscriptionIdentifiersUnsupported
  | SharedSubscriptionsUnsupported
  | StorageUnavailable
  | Unauthenticated
  | Forbidden
  | CsrfRejected
  | InvalidCredentials
  | UserExists
  | UserNotFound
  | LastAdmin
  | InvitationInvalid
  | StorageFailure
  | Internal

export type HarkErrorTag = HarkError['_tag']

/**
 * The one table. MQTT 3.1.1 has only five CONNACK refusals, so several rows share one;
 * after CONNECT a 3.1.1 client can only be disconnected, which carries no code at all.
 */
export const wireCodes: { readonly [T in HarkErrorTag]: WireCodes } = {
  ValidationFailed: { code: 'validation_failed', http: 400, mqtt5: 0x99, mqtt311: 0x02, ws: 4400 },
  MalformedJson: { code: 'malformed_json', http: 400, mqtt5: 0x99, mqtt311: 0x02, ws: 4400 },
  UnsupportedMediaType: { code: 'unsupported_media_type', http: 415, mqtt5: 0x99, mqtt311: 0x02, ws: 1003 },
  PayloadTooLarge: { code: 'payload_too_large', http: 413, mqtt5: 0x95, mqtt311: 0x02, ws: 1009 },
  HeadersTooLarge: { code: 'headers_too_large', http: 431, mqtt5: 0x95, mqtt311: 0x02, ws: 1009 },
  RequestTimeout: { code: 'request_timeout', http: 408, mqtt5: 0x8d, mqtt311: 0x03, ws: 1008 },
  MethodNotAllowed: { code: 'method_not_allowed', http: 405, mqtt5: 0x82, mqtt311: 0x01, ws: 1002 },
  ApiKeyInvalid: { code: 'invalid_api_key', http: 401, mqtt5: 0x86, mqtt311: 0x04, ws: 4001 },
  TokenInvalid: { code: 'invalid_token', http: 401, mqtt5: 0x86, mqtt311: 0x04, ws: 4001 },
  TokenExpired: { code: 'token_expired', http: 401, mqtt5: 0x86, mqtt311: 0x04, ws: 4002 },
  TokenRevoked: { code: 'token_revoked', http: 401, mqtt5: 0x87, mqtt311: 0x05, ws: 4003 },
  DevicePasswordInvalid: { code: 'invalid_device_password', http: 401, mqtt5: 0x86, mqtt311: 0x04, ws: 4001 },
  DevicePasswordReset: { code: 'device_password_reset', http: 401, mqtt5: 0x87, mqtt311: 0x05, ws: 4006 },
  WorkspaceNotFound: { code: 'workspace_not_found', http: 404, mqtt5: 0x87, mqtt311: 0x05, ws: 4004 },
  ApiKeyNotFound: { code: 'api_key_not_found', http: 404, mqtt5: 0x87, mqtt311: 0x05, ws: 4004 },
  ClientNotFound: { code: 'client_not_found', http: 404, mqtt5: 0x87, mqtt311: 0x05, ws: 4004 },
  ClientExists: { code: 'client_exists', http: 409, mqtt5: 0x85, mqtt311: 0x02, ws: 4009 },
  ClientDeleted: { code: 'client_deleted', http: 404, mqtt5: 0x87, mqtt311: 0x05, ws: 4004 },
  NotFound: { code: 'not_found', http: 404, mqtt5: 0x87, mqtt311: 0x05, ws: 4004 },
  Conflict: { code: 'conflict', http: 409, mqtt5: 0x80, mqtt311: 0x03, ws: 4009 },
  SessionReplaced: { code: 'session_replaced', http: 409, mqtt5: 0x8e, mqtt311: 0x02, ws: 4005 },
  ProtocolError: { code: 'protocol_error', http: 400, mqtt5: 0x82, mqtt311: 0x01, ws: 1002 },
  FrameTooLarge: { code: 'frame_too_large', http: 413, mqtt5: 0x95, mqtt311: 0x02, ws: 1009 },
  ReceiverTooSlow: { code: 'receiver_too_slow', http: 503, mqtt5: 0x97, mqtt311: 0x03, ws: 1008 },
  LimitExceeded: { code: 'limit_exceeded', http: 400, mqtt5: 0x97, mqtt311: 0x03, ws: 4400 },
  RateLimited: { code: 'rate_limited', http: 429, mqtt5: 0x96, mqtt311: 0x03, ws: 4029 },
  CapacityExceeded: { code: 'capacity_exceeded', http: 503, mqtt5: 0x97, mqtt311: 0x03, ws: 1013 },
  AgentStartFailed: { code: 'agent_start_failed', http: 502, mqtt5: 0x80, mqtt311: 0x03, ws: 1011 },
  AgentControlUnsupported: { code: 'not_supported', http: 409, mqtt5: 0x80, mqtt311: 0x03, ws: 4009 },
  AgentElsewhere: { code: 'agent_elsewhere', http: 409, mqtt5: 0x80, mqtt311: 0x03, ws: 4009 },
  ClusterUnavailable: { code: 'cluster_unavailable', http: 503, mqtt5: 0x88, mqtt311: 0x03, ws: 1013 },
  ServerShuttingDown: { code: 'server_shutting_down', http: 503, mqtt5: 0x8b, mqtt311: 0x03, ws: 1001 },
  CredentialMissing: { code: 'credential_missing', http: 401, mqtt5: 0x86, mqtt311: 0x04, ws: 4001 },
  UsernameInvalid: { code: 'invalid_username', http: 401, mqtt5: 0x86, mqtt311: 0x04, ws: 4001 },
  ClientIdentifierInvalid: { code: 'invalid_client_identifier', http: 400, mqtt5: 0x85, mqtt311: 0x02, ws: 4400 },
  UnsupportedProtocolVersion: { code: 'unsupported_protocol_version', http: 400, mqtt5: 0x84, mqtt311: 0x01, ws: 1002 },
  MalformedPacket: { code: 'malformed_packet', http: 400, mqtt5: 0x81, mqtt311: 0x01, ws: 1002 },
  TopicNotAuthorized: { code: 'topic_not_authorized', http: 403, mqtt5: 0x87, mqtt311: 0x05, ws: 4403 },
  TopicFilterInvalid: { code: 'invalid_topic_filter', http: 400, mqtt5: 0x8f, mqtt311: 0x01, ws: 1002 },
  TopicAliasInvalid: { code: 'invalid_topic_alias', http: 400, mqtt5: 0x94, mqtt311: 0x01, ws: 1002 },
  KeepAliveTimeout: { code: 'keepalive_timeout', http: 408, mqtt5: 0x8d, mqtt311: 0x03, ws: 4008 },
  RetainNotSupported: { code: 'retain_not_supported', http: 400, mqtt5: 0x9a, mqtt311: 0x01, ws: 1002 },
  ReceiveMaximumExceeded: { code: 'receive_maximum_exceeded', http: 400, mqtt5: 0x93, mqtt311: 0x01, ws: 1002 },
  AuthenticationMethodUnsupported: { code: 'bad_authentication_method', http: 400, mqtt5: 0x8c, mqtt311: 0x04, ws: 1002 },
  SubscriptionIdentifiersUnsupported: { code: 'subscription_identifiers_unsupported', http: 400, mqtt5: 0xa1, mqtt311: 0x01, ws: 1002 },
  SharedSubscriptionsUnsupported: { code: 'shared_subscriptions_unsupported', http: 400, mqtt5: 0x9e, mqtt311: 0x01, ws: 1002 },
  StorageUnavailable: { code: 'storage_unavailable', http: 503, mqtt5: 0x89, mqtt311: 0x03, ws: 1013 },
  Unauthenticated: { code: 'unauthenticated', http: 401, mqtt5: 0x87, mqtt311: 0x05, ws: 4001 },
  Forbidden: { code: 'forbidden', http: 403, mqtt5: 0x87, mqtt311: 0x05, ws: 4403 },
  CsrfRejected: { code: 'csrf_rejected', http: 403, mqtt5: 0x87, mqtt311: 0x05, ws: 4403 },
  InvalidCredentials: { code: 'invalid_credentials', http: 401, mqtt5: 0x86, mqtt311: 0x04, ws: 4001 },
  UserExists: { code: 'user_exists', http: 409, mqtt5: 0x80, mqtt311: 0x03, ws: 4009 },
  UserNotFound: { code: 'user_not_found', http: 404, mqtt5: 0x87, mqtt311: 0x05, ws: 4004 },
  LastAdmin: { code: 'last_admin', http: 409, mqtt5: 0x80, mqtt311: 0x03, ws: 4009 },
  InvitationInvalid: { code: 'invitation_invalid', http: 410, mqtt5: 0x87, mqtt311: 0x05, ws: 4004 },
  StorageFailure: { code: 'internal', http: 500, mqtt5: 0x80, mqtt311: 0x03, ws: 1011 },
  Internal: { code: 'internal', http: 500, mqtt5: 0x80, mqtt311: 0x03, ws: 1011 },
}

/** Reason codes an MQTT 5 DISCONNECT may carry (MQTT 5.0, 3.14.2.1); the CONNACK-only ones are not among them. */
const MQTT5_DISCONNECT_CODES = new Set([
  0x00, 0x04, 0x80, 0x81, 0x82, 0x83, 0x87, 0x89, 0x8b, 0x8d, 0x8e, 0x8f, 0x90, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99,
  0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f, 0xa0, 0xa1, 0xa2,
])

/**
 * The MQTT 5 DISCONNECT reason for an error: its row's code, unless that code only exists in
 * CONNACK (0x84-0x86, 0x88, 0x8A, 0x8C: e.g. an expired credential mid-session), which becomes
 * 0x87 Not authorized.
 */
export const mqtt5DisconnectReason = (error: unknown): number => {
  const code = wireCodesOf(error).mqtt5
  return MQTT5_DISCONNECT_CODES.has(code) ? code : 0x87
}

const tags = new Set<string>(Object.keys(wireCodes))

export const isHarkError = (u: unknown): u is HarkError =>
  typeof u === 'object' && u !== null && '_tag' in u && tags.has((u as { _tag: string })._tag)

/** Wire codes of an error; anything that is not a domain error is internal. */
export const wireCodesOf = (error: unknown): WireCodes =>
  isHarkError(error) ? wireCodes[error._tag] : wireCodes.Internal

/**
 * The public message of an error. Internal failures never reveal their cause.
 */
export const publicMessage = (error: unknown): string =>
  isHarkError(error) && error._tag !== 'Internal' && error._tag !== 'StorageFailure'
    ? error.message
    : 'internal error'

/** The JSON error envelope of the REST API and of the gateway's HTTP refusals. */
export const errorEnvelope = (error: unknown): { error: { message: string; code: string } } => ({
  error: { message: publicMessage(error), code: wireCodesOf(error).code },
})
