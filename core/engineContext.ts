/**
 * The Effect services (layers' tags) every engine provides, as one union: what an Effect run in the
 * engine's runtime may use. Not the services extensions receive (services.ts).
 */
import type { Clock } from './clock.js'
import type { Log } from './log.js'
import type { Metrics } from './metrics.js'
import type { MasterKey } from './security/masterKey.js'
import type { Security } from './security/security.js'
import type { Storage } from './storage/storage.js'
import type { Tls } from './tls.js'
import type { EngineSettings } from './config.js'
import type { PresenceService } from './presence.js'
import type { Terminals } from './terminals.js'
import type { Usage } from './usage/meter.js'
import type { WebhookOutboxService } from './webhooks/outboxLayer.js'

export type EngineContext =
  | Clock | Log | Metrics | Storage | MasterKey | Security | Tls | EngineSettings | PresenceService | Terminals | Usage | WebhookOutboxService
