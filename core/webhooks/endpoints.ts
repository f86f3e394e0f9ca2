/**
 * Webhook endpoints as the REST API and the CLI manage them: checked input (the URL through the
 * SSRF guard, event types against the catalog, at most MAX_WEBHOOKS_PER_WORKSPACE), the
 * Standard Webhooks signing secret (`whsec_` + base64 of 32 random bytes, sealed under the master
 * key, shown on create and rotate only; the previous one keeps signing for 24 h after a rotation),
 * the test event, the delivery history and redelivery. Every write records a `webhook.*` change,
 * so a running engine (the delivery worker, the outbox's subscriptions) follows the CLI's edits.
 */
import { randomBytes } from 'node:crypto'
import type { ClockShape } from '../clock.js'
import { Conflict, LimitExceeded, NotFound, ValidationFailed } from '../errors.js'
import { newDeliveryId, newWebhookId } from '../ids.js'
import type { SecretBox } from '../security/security.js'
import type { StorageShape } from '../storage/storage.js'
import type { WebhookEndpointRecord } from '../storage/webhookEndpoints.js'
import type { WebhookDeliveryRecord } from '../storage/webhookOutbox.js'
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from './events.js'
import type { WebhookOutbox } from './outbox.js'
import { checkWebhookUrl, urlRule, type HostResolver, type UrlPolicy } from './urlGuard.js'

/** Endpoints per workspace; one more is refused with 400 limit_exceeded. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 10
/** After a rotation the previous secret signs alongside the new one this long. */
export const SECRET_OVERLAP_MS = 24 * 3600_000
export const SECRET_PREFIX = 'whsec_'
export const DESCRIPTION_MAX = 500
export const DELIVERIES_LIMIT_DEFAULT = 20
export const DELIVERIES_LIMIT_MAX = 100

export interface WebhookInput {
  readonly url: string
  readonly events?: ReadonlyArray<string> | null
  readonly description?: string | null
}

export interface WebhookPatch {
  readonly url?: string
  readonly events?: ReadonlyArray<string> | null
  readonly description?: string | null
  readonly enabled?: boolean
}

export interface WebhookView {
  readonly webhookId: string
  readonly url: string
  /** null = every event type. */
  readonly events: ReadonlyArray<string> | null
  readonly description: string | null
  readonly enabled: boolean
  /** Why it was disabled (by the engine after days of failures, or by request); null when enabled. */
  readonly disabledReason: string | null
  /** When the previous secret stops signing (after a rotation); null when there is none. */
  readonly previousSecretExpiresAt: string | null
  readonly createdAt: string
  readonly updatedAt: string
}

export interface DeliveryView {
  readonly deliveryId: string
  readonly eventId: string
  readonly type: string
  readonly resource: string
  readonly sequence: number
  /** pending (waiting for its turn or its next retry), delivered (a 2xx), dead (given up: redeliver it). */
  readonly status: 'pending' | 'delivered' | 'dead'
  readonly attempts: number
  readonly createdAt: string
  readonly lastAttemptAt: string | null
  /** HTTP status of the last attempt; null when it got no answer. */
  readonly responseStatus: number | null
  readonly latencyMs: number | null
  /** Why the last attempt failed (timeout, connection refused, redirect not followed, address_not_allowed …). */
  readonly error: string | null
  readonly nextAttemptAt: string | null
  readonly completedAt: string | null
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export const webhookView = (r: WebhookEndpointRecord, now: number): WebhookView => ({
  webhookId: r.webhookId,
  url: r.url,
  events: r.events,
  description: r.description,
  enabled: r.enabled,
  disabledReason: r.enabled ? null : r.disabledReason,
  previousSecretExpiresAt:
    r.previousSecretEnc !== null && r.previousSecretExpiresAt !== null && r.previousSecretExpiresAt > now ? iso(r.previousSecretExpiresAt) : null,
  createdAt: iso(r.createdAt)!,
  updatedAt: iso(r.updatedAt)!,
})

export const deliveryView = (d: WebhookDeliveryRecord): DeliveryView => ({
  deliveryId: d.deliveryId,
  eventId: d.eventId,
  type: d.type,
  resource: d.resource,
  sequence: d.seq,
  status: d.state,
  attempts: d.attempts,
  createdAt: iso(d.createdAt)!,
  lastAttemptAt: iso(d.lastAttemptAt),
  responseStatus: d.lastStatus,
  latencyMs: d.lastLatencyMs,
  error: d.lastError,
  nextAttemptAt: d.state === 'pending' ? iso(d.nextAttemptAt) : null,
  completedAt: iso(d.completedAt),
})

const newSecret = () => SECRET_PREFIX + randomBytes(32).toString('base64')

const checkEvents = (events: ReadonlyArray<string> | null | undefined): ReadonlyArray<string> | null => {
  if (events === undefined || events === null) return null
  if (events.length === 0) throw new ValidationFailed({ field: 'events', message: 'events: at least one type (omit it for every type)' })
  for (const t of events) {
    if (!isWebhookEventType(t)) {
      throw new ValidationFailed({ field: 'events', message: `events: unknown event type ${JSON.stringify(t)} (known: ${WEBHOOK_EVENT_TYPES.join(', ')})` })
    }
  }
  return [...new Set(events)]
}

const checkDescription = (d: string | null | undefined): string | null => {
  if (d === undefined || d === null) return null
  if (d.length > DESCRIPTION_MAX) throw new ValidationFailed({ field: 'description', message: `description: at most ${DESCRIPTION_MAX} characters` })
  return d
}

export interface WebhookEndpointsDeps {
  readonly storage: StorageShape
  /** Seals the signing secrets under the master key (SecurityShape.webhookSecrets). */
  readonly secrets: SecretBox
  readonly clock: ClockShape
  readonly policy: UrlPolicy
  readonly resolve: HostResolver
  readonly outbox: WebhookOutbox
}

export class WebhookEndpoints {
  constructor(private readonly deps: WebhookEndpointsDeps) {}

  /** The URL rule this engine applies, in words (what a form tells before it is refused). */
  urlRule(): string {
    return urlRule(this.deps.policy)
  }

  private require(workspaceId: string, webhookId: string): WebhookEndpointRecord {
    const r = this.deps.storage.webhookEndpoints.get(workspaceId, webhookId)
    if (!r) throw new NotFound({ message: `no webhook ${webhookId} in this workspace` })
    return r
  }

  private seal(secret: string): string {
    return this.deps.secrets.seal(secret)
  }

  /** Secrets that sign a message sent at `now`: the current one, and the previous during its overlap. */
  signingSecrets(r: WebhookEndpointRecord, now: number): string[] {
    const open = (sealed: string) => this.deps.secrets.open(sealed)
    const secrets = [open(r.secretEnc)]
    if (r.previousSecretEnc !== null && r.previousSecretExpiresAt !== null && r.previousSecretExpiresAt > now) {
      secrets.push(open(r.previousSecretEnc))
    }
    return secrets
  }

  async create(workspaceId: string, input: WebhookInput): Promise<{ webhook: WebhookView; secret: string }> {
    const { storage, clock } = this.deps
    const events = checkEvents(input.events)
    const description = checkDescription(input.description)
    const url = await checkWebhookUrl(input.url, this.deps.policy, this.deps.resolve)
    const secret = newSecret()
    const now = clock.now()
    const record: WebhookEndpointRecord = {
      webhookId: newWebhookId(), workspaceId, url: url.href, events, description, secretEnc: this.seal(secret),
      previousSecretEnc: null, previousSecretExpiresAt: null, enabled: true, disabledReason: null, failingSince: null,
      createdAt: now, updatedAt: now,
    }
    storage.transaction(() => {
      // Counted in the transaction, so two creates at once cannot both take the last place.
      if (storage.webhookEndpoints.count(workspaceId) >= MAX_WEBHOOKS_PER_WORKSPACE) {
        throw new LimitExceeded({ message: `a workspace has at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhook endpoints` })
      }
      storage.webhookEndpoints.insert(record)
      storage.feed.record({ kind: 'webhook.created', workspaceId, subject: record.webhookId, at: now, endpoint: record })
    })
    return { webhook: webhookView(record, now), secret }
  }

  list(workspaceId: string): WebhookView[] {
    const now = this.deps.clock.now()
    return this.deps.storage.webhookEndpoints.list(workspaceId).map((r) => webhookView(r, now))
  }

  get(workspaceId: string, webhookId: string): WebhookView {
    return webhookView(this.require(workspaceId, webhookId), this.deps.clock.now())
  }

  async update(workspaceId: string, webhookId: string, patch: WebhookPatch): Promise<WebhookView> {
    const { storage, clock } = this.deps
    this.require(workspaceId, webhookId)
    const events = patch.events === undefined ? undefined : checkEvents(patch.events)
    const description = patch.description === undefined ? undefined : checkDescription(patch.description)
    const url = patch.url === undefined ? undefined : (await checkWebhookUrl(patch.url, this.deps.policy, this.deps.resolve)).href
    const now = clock.now()
    const updated = storage.transaction(() => {
      const r = storage.webhookEndpoints.update(workspaceId, webhookId, {
        url,
        events,
        description,
        ...(patch.enabled === undefined
          ? {}
          : patch.enabled
            ? { enabled: true, disabledReason: null, failingSince: null }
            : { enabled: false, disabledReason: 'disabled by request' }),
      }, now)
      if (!r) throw new NotFound({ message: `no webhook ${webhookId} in this workspace` })
      storage.feed.record({ kind: 'webhook.updated', workspaceId, subject: webhookId, at: now, endpoint: r })
      return r
    })
    return webhookView(updated, now)
  }

  delete(workspaceId: string, webhookId: string): void {
    const { storage, clock } = this.deps
    storage.transaction(() => {
      // The cascade takes the endpoint's deliveries: those past the fold may be the only record of
      // their resources' numbers (sequences.ts), so fold them into the table first.
      storage.webhookOutbox.foldSequences()
      if (!storage.webhookEndpoints.delete(workspaceId, webhookId)) throw new NotFound({ message: `no webhook ${webhookId} in this workspace` })
      storage.feed.record({ kind: 'webhook.deleted', workspaceId, subject: webhookId, at: clock.now() })
    })
  }

  /** A new secret; the current one keeps signing alongside for SECRET_OVERLAP_MS. */
  rotateSecret(workspaceId: string, webhookId: string): { webhook: WebhookView; secret: string } {
    const { storage, clock } = this.deps
    const current = this.require(workspaceId, webhookId)
    const secret = newSecret()
    const now = clock.now()
    const updated = storage.transaction(() => {
      const r = storage.webhookEndpoints.update(workspaceId, webhookId, {
        secretEnc: this.seal(secret),
        previousSecretEnc: current.secretEnc,
        previousSecretExpiresAt: now + SECRET_OVERLAP_MS,
      }, now)
      if (!r) throw new NotFound({ message: `no webhook ${webhookId} in this workspace` })
      storage.feed.record({ kind: 'webhook.updated', workspaceId, subject: webhookId, at: now, endpoint: r })
      return r
    })
    return { webhook: webhookView(updated, now), secret }
  }

  /** Queue a webhook.test event for this endpoint alone. */
  test(workspaceId: string, webhookId: string): { eventId: string; deliveryId: string } {
    const { storage, clock, outbox } = this.deps
    const r = this.require(workspaceId, webhookId)
    if (!r.enabled) throw new Conflict({ message: `webhook ${webhookId} is disabled; enable it first (PATCH enabled: true)` })
    const now = clock.now()
    const [delivery] = storage.transaction(() => {
      const written = outbox.write(
        [{ workspaceId, type: 'webhook.test', data: { webhookId, message: 'test event from Hark' }, at: now }],
        webhookId,
      )
      storage.feed.record({ kind: 'webhook.queued', workspaceId, subject: webhookId, at: now })
      return written
    })
    return { eventId: delivery!.eventId, deliveryId: delivery!.deliveryId }
  }

  /** Deliveries of an endpoint, newest first; `cursor` is the last deliveryId of the previous page. */
  deliveries(workspaceId: string, webhookId: string, q: { limit?: number; cursor?: string }): { deliveries: DeliveryView[]; nextCursor: string | null } {
    const { webhookOutbox } = this.deps.storage
    this.require(workspaceId, webhookId)
    const limit = q.limit ?? DELIVERIES_LIMIT_DEFAULT
    let beforeId: number | undefined
    if (q.cursor !== undefined) {
      const from = webhookOutbox.get(workspaceId, webhookId, q.cursor)
      if (!from) throw new ValidationFailed({ field: 'cursor', message: 'cursor: not a delivery of this webhook' })
      beforeId = from.id
    }
    const rows = webhookOutbox.list(workspaceId, webhookId, { beforeId, limit: limit + 1 })
    const more = rows.length > limit
    const page = (more ? rows.slice(0, limit) : rows).map(deliveryView)
    return { deliveries: page, nextCursor: more ? page[page.length - 1]!.deliveryId : null }
  }

  delivery(workspaceId: string, webhookId: string, deliveryId: string): DeliveryView {
    this.require(workspaceId, webhookId)
    const d = this.deps.storage.webhookOutbox.get(workspaceId, webhookId, deliveryId)
    if (!d) throw new NotFound({ message: `no delivery ${deliveryId} of webhook ${webhookId}` })
    return deliveryView(d)
  }

  /**
   * Send a delivered or dead-lettered event again, as a new delivery with a fresh retry budget and
   * the same `webhook-id` (receivers deduplicate on it). It takes its place by sequence number.
   */
  redeliver(workspaceId: string, webhookId: string, deliveryId: string): DeliveryView {
    const { storage, clock } = this.deps
    const r = this.require(workspaceId, webhookId)
    const d = storage.webhookOutbox.get(workspaceId, webhookId, deliveryId)
    if (!d) throw new NotFound({ message: `no delivery ${deliveryId} of webhook ${webhookId}` })
    if (d.state === 'pending') throw new Conflict({ message: `delivery ${deliveryId} is still pending` })
    if (!r.enabled) throw new Conflict({ message: `webhook ${webhookId} is disabled; enable it first (PATCH enabled: true)` })
    const now = clock.now()
    const fresh = newDeliveryId(now)
    storage.transaction(() => {
      // In the transaction: a prune between the read and the insert cannot take the body away.
      const body = storage.webhookOutbox.body(workspaceId, webhookId, deliveryId)
      if (body === null) throw new NotFound({ message: `no delivery ${deliveryId} of webhook ${webhookId}` })
      storage.webhookOutbox.insertDeliveries([{
        deliveryId: fresh, webhookId, eventId: d.eventId, workspaceId, resource: d.resource, seq: d.seq, type: d.type, body, createdAt: now,
      }])
      storage.feed.record({ kind: 'webhook.queued', workspaceId, subject: webhookId, at: now })
    })
    return this.delivery(workspaceId, webhookId, fresh)
  }
}
