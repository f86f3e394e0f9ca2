/**
 * @hark/server: the typed REST client of a Hark workspace and webhook verification, for back ends
 * on Node 20+ and bundlers. Types come from spec/openapi.json (src/generated/openapi.ts).
 */
export { HarkServer, type HarkServerOptions } from './client.js'
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  HarkApiError,
  HarkConnectionError,
  HarkError,
  NotFoundError,
  RateLimitError,
  ServerError,
  WebhookVerificationError,
  type RestErrorCode,
} from './errors.js'
export type { components, operations, paths, webhooks } from './generated/openapi.js'
export { paginate } from './pagination.js'
export type { RetryInfo, TransportOptions } from './transport.js'
export type * from './types.js'
export {
  verifyWebhook,
  WebhookVerifier,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHeaders,
} from './webhooks.js'
