/**
 * The transactional outbox of webhook events. Two ways in:
 *   - a change that is a database write (a client created, a token revoked …) gets its event from
 *     the change itself (it carries the client as written), inside the transaction that records
 *     it: both commit or neither;
 *   - a live event (a terminal connected, a room started, an agent failed) is `publish`ed and
 *     written with the other live events of the next LIVE_BATCH_MS (or LIVE_BATCH_MAX of them)
 *     in one transaction (storage.batch), never with a request or an HTTP call on the path that
 *     produced it. One write per event would cost a connect storm about a tenth of its
 *     throughput (each write is a few statements); grouped, the statements are shared.
 * Each event gets its resource's next sequence number in the transaction that writes it, and one
 * pending delivery per enabled endpoint that subscribes to its type; a workspace without such an
 * endpoint writes nothing. Live events still queued when a database change is written go first, in
 * the same transaction, so a resource's numbers follow the order things happened.
 */
import type { ClockShape } from '../clock.js'
import { newDeliveryId, newWebhookEventId } from '../ids.js'
import type { Logger } from '../log.js'
import type { Change, ChangeOf } from '../storage/changes.js'
import type { StorageShape } from '../storage/storage.js'
import type { NewDelivery, PendingDelivery } from '../storage/webhookOutbox.js'
import { eventBody, resourceOf, type ClientData, type WebhookEventInput } from './events.js'
import { CachedSequences, FOLD_EVERY_MS, sequenceKey, TableSequences, type SequenceNumbers } from './sequences.js'

interface Subscription {
  readonly webhookId: string
  /** null = every type. */
  readonly events: ReadonlySet<string> | null
}

/** Events written in a transaction that has not reported its commit yet. */
interface Unconfirmed {
  readonly change: Change
  readonly events: WebhookEventInput[]
}

const RETRY_FLUSH_MS = 1000
/**
 * Live events wait at most this long (real time: it bounds I/O batching) for others to share their
 * write. At a connect storm's ~800 events/s, 25 ms holds ~20 events a commit: the outbox's cost on
 * the engine's thread is ~41 µs an event there against ~56 at 10 ms (~8 a commit), and no lower at
 * 40 a commit (`node dist/bench/webhookOutboxCost.js --batch 10|20|40`).
 */
export const LIVE_BATCH_MS = 25
/** …or until this many are queued. */
export const LIVE_BATCH_MAX = 64

/** The database changes that are webhook events. */
const EVENT_CHANGES = ['client.created', 'client.updated', 'client.deleted', 'token.revoked', 'client.tokensRevoked', 'devicePassword.reset'] as const
type EventChangeKind = (typeof EVENT_CHANGES)[number]

export class WebhookOutbox {
  /** Enabled endpoints per workspace (loaded on first use, dropped on every webhook.* change). */
  private readonly subscriptions = new Map<string, ReadonlyArray<Subscription>>()
  private queue: WebhookEventInput[] = []
  private unconfirmed: Unconfirmed[] = []
  private flushing = false
  private batchTimer: NodeJS.Timeout | undefined
  private readonly committed = new Set<(deliveries: ReadonlyArray<PendingDelivery>) => void>()
  private stops: Array<() => void> = []

  /** How this outbox numbers events (sequences.ts). */
  readonly sequences: SequenceNumbers

  /**
   * `numbering: 'memory'` is the engine's on its own file (sequences.ts, CachedSequences: the
   * table is written by a fold every FOLD_EVERY_MS and when `install`'s removal runs); `'table'`
   * every other writer's.
   */
  constructor(
    private readonly storage: StorageShape,
    private readonly clock: ClockShape,
    private readonly log: Logger | null = null,
    options: { numbering?: 'memory' | 'table' } = {},
  ) {
    if (options.numbering === 'memory' && storage.remote !== null) throw new Error('numbering from memory needs a database of its own (a local file)')
    this.sequences = options.numbering === 'memory' ? new CachedSequences(storage) : new TableSequences(storage)
  }

  /** Write events of database changes with their changes, and follow endpoint changes. Idempotent. */
  install(): () => void {
    if (this.stops.length > 0) return () => this.uninstall()
    this.stops.push(
      this.storage.feed.onRecord(EVENT_CHANGES, (change) => this.onRecord(change)),
      this.storage.feed.onAny((change) => this.changed(change)),
    )
    const sequences = this.sequences
    if (sequences instanceof CachedSequences) {
      // A fold goes a slice a transaction, one a turn (sequences.ts); one that fails starts over at the next tick.
      let stepping = false
      const step = (): void => {
        stepping = true
        this.storage.batch(() => sequences.foldStep()).then(
          (more) => (more ? step() : (stepping = false)),
          (e: unknown) => {
            stepping = false
            sequences.abortFold()
            this.log?.error({ err: e }, 'folding webhook sequence numbers failed')
          },
        )
      }
      const timer = setInterval(() => {
        if (!stepping && sequences.due) step()
      }, FOLD_EVERY_MS)
      timer.unref()
      this.stops.push(() => {
        clearInterval(timer)
        try {
          sequences.fold()
        } catch (e) {
          // The deliveries past the fold keep the numbers: the next start reads them back.
          this.log?.error({ err: e }, 'folding webhook sequence numbers failed')
        }
      })
    }
    return () => this.uninstall()
  }

  /** Fold the numbers handed out from memory into webhook_sequences now (tests). */
  foldSequences(): void {
    this.sequences.fold()
  }

  private uninstall(): void {
    for (const stop of this.stops.splice(0)) stop()
  }

  /**
   * Hear the deliveries of live events once committed, as their rows read (the delivery worker
   * takes them from here instead of reading them back). Deliveries written otherwise — with a
   * database change, a test event, by another process — are announced by their change record.
   */
  onCommitted(listener: (deliveries: ReadonlyArray<PendingDelivery>) => void): () => void {
    this.committed.add(listener)
    return () => this.committed.delete(listener)
  }

  /** A committed change: endpoint changes reload the subscriptions; a commit confirms drained live events. */
  private changed(change: Change): void {
    if (change.kind.startsWith('webhook.') && change.kind !== 'webhook.queued') {
      if (change.workspaceId) this.subscriptions.delete(change.workspaceId)
      else this.subscriptions.clear()
    }
    if (this.unconfirmed.length > 0) this.unconfirmed = this.unconfirmed.filter((u) => u.change !== change)
  }

  /** Endpoint ids of a workspace that receive `type` now (enabled, subscribed). */
  subscribers(workspaceId: string, type: string): string[] {
    let subs = this.subscriptions.get(workspaceId)
    if (!subs) {
      subs = this.storage.webhookEndpoints
        .list(workspaceId)
        .filter((e) => e.enabled)
        .map((e) => ({ webhookId: e.webhookId, events: e.events === null ? null : new Set(e.events) }))
      this.subscriptions.set(workspaceId, subs)
    }
    const out: string[] = []
    for (const s of subs) if (s.events === null || s.events.has(type)) out.push(s.webhookId)
    return out
  }

  /** True when some endpoint of the workspace takes `type` (the live path asks before building an event). */
  wants(workspaceId: string, type: string): boolean {
    return this.subscribers(workspaceId, type).length > 0
  }

  /**
   * Write events and their deliveries in the caller's transaction (or a new one). With `only`,
   * each event goes to that endpoint alone, whatever its subscriptions (the test event). Returns
   * the deliveries written, as their rows now read (internal id, body and all).
   */
  write(events: ReadonlyArray<WebhookEventInput>, only?: string): PendingDelivery[] {
    if (events.length === 0) return []
    return this.storage.transaction(() => {
      // On a shared database another node may have just added or removed an endpoint (its change
      // reaches this node's cache only at the next change poll): read them afresh, on the primary.
      if (this.storage.remote !== null) for (const e of events) this.subscriptions.delete(e.workspaceId)
      const planned: Array<{ e: WebhookEventInput; resource: string; to: string[] }> = []
      const counts = new Map<string, number>()
      for (const e of events) {
        const to = only !== undefined ? [only] : this.subscribers(e.workspaceId, e.type)
        if (to.length === 0) continue
        const resource = resourceOf(e)
        const key = sequenceKey(e.workspaceId, resource)
        counts.set(key, (counts.get(key) ?? 0) + 1)
        planned.push({ e, resource, to })
      }
      if (planned.length === 0) return []
      // One reservation per resource for the whole batch, then numbers handed out in order.
      const next = this.sequences.reserve(
        [...counts].map(([key, n]) => {
          const [workspaceId, resource] = key.split('\u0000') as [string, string]
          return { workspaceId, resource, n }
        }),
      )
      const deliveries: NewDelivery[] = []
      const now = this.clock.now()
      for (const { e, resource, to } of planned) {
        const key = sequenceKey(e.workspaceId, resource)
        const seq = next.get(key)!
        next.set(key, seq + 1)
        const eventId = newWebhookEventId(e.at)
        const body = eventBody(e, { id: eventId, resource, sequence: seq })
        for (const webhookId of to) {
          deliveries.push({ deliveryId: newDeliveryId(now), webhookId, eventId, workspaceId: e.workspaceId, resource, seq, type: e.type, body, createdAt: now })
        }
      }
      const ids = this.storage.webhookOutbox.insertDeliveries(deliveries)
      this.sequences.written(ids[ids.length - 1]!, deliveries[deliveries.length - 1]!.deliveryId)
      // The rows as the table now has them (what pendingAfter would read back).
      return deliveries.map((d, i): PendingDelivery => ({
        id: ids[i]!, ...d, state: 'pending', attempts: 0, nextAttemptAt: d.createdAt, lastAttemptAt: null, lastStatus: null,
        lastError: null, lastLatencyMs: null, completedAt: null,
      }))
    })
  }

  /** A live event: queued and written with this turn's others. Costs a map lookup when nobody subscribes. */
  publish(event: WebhookEventInput): void {
    if (!this.wants(event.workspaceId, event.type)) return
    this.queue.push(event)
    if (this.queue.length >= LIVE_BATCH_MAX) this.scheduleFlush()
    else if (this.batchTimer === undefined && !this.flushing) {
      this.batchTimer = setTimeout(() => {
        this.batchTimer = undefined
        // A database change may have taken the queue into its own transaction meanwhile.
        if (this.queue.length > 0) this.scheduleFlush()
      }, LIVE_BATCH_MS)
    }
  }

  /** Live events queued and not yet handed to a transaction. */
  get queued(): number {
    return this.queue.length
  }

  /** Write whatever is queued now (tests; shutdown). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.unconfirmed.length > 0 || this.flushing) {
      if (!this.flushing) this.scheduleFlush()
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }

  private scheduleFlush(): void {
    clearTimeout(this.batchTimer)
    this.batchTimer = undefined
    if (this.flushing) return
    this.flushing = true
    this.storage
      .batch(() => {
        // Events a rolled-back transaction took from the queue go first again.
        const lost = this.unconfirmed.flatMap((u) => u.events)
        this.unconfirmed = []
        const events = lost.length > 0 ? [...lost, ...this.queue] : this.queue
        this.queue = []
        try {
          return this.write(events)
        } catch (e) {
          this.queue = [...events, ...this.queue]
          throw e
        }
      })
      .then(
        (written) => {
          this.flushing = false
          if (written.length > 0) {
            this.log?.debug({ deliveries: written.length }, 'live webhook events written')
            for (const listener of this.committed) listener(written)
          }
          if (this.queue.length > 0 || this.unconfirmed.length > 0) this.scheduleFlush()
        },
        (e: unknown) => {
          this.flushing = false
          this.log?.error({ err: e, queued: this.queue.length }, 'writing webhook events failed; retrying')
          this.clock.setTimeout(() => this.scheduleFlush(), RETRY_FLUSH_MS)
        },
      )
  }

  /** The event a database change stands for, if any: all it needs is in the change. */
  private eventOf(change: ChangeOf<EventChangeKind>): WebhookEventInput | null {
    const { workspaceId, subject, at } = change
    switch (change.kind) {
      case 'client.created':
      case 'client.updated': {
        const c = change.kind === 'client.created' ? change.client : change.after
        const data: ClientData = { clientId: c.clientId, name: c.name, kind: c.kind, room: c.room, ephemeral: c.ephemeral }
        return { workspaceId, type: change.kind, data, at }
      }
      case 'client.deleted':
        return { workspaceId, type: 'client.deleted', data: { clientId: subject }, at }
      case 'token.revoked':
        return change.clientId === null
          ? null
          : { workspaceId, type: 'token.revoked', data: { clientId: change.clientId, jti: subject, all: false }, at }
      case 'client.tokensRevoked':
        return { workspaceId, type: 'token.revoked', data: { clientId: subject, jti: null, all: true }, at }
      case 'devicePassword.reset':
        return { workspaceId, type: 'device_password.reset', data: { clientId: subject }, at }
    }
  }

  /** In the change's transaction: its event, after the live events still queued. */
  private onRecord(change: ChangeOf<EventChangeKind>): void {
    const event = this.eventOf(change)
    if (event === null) return
    // On a shared database: read the endpoints in this transaction (on the primary), not from a cache another node's change may not have reached.
    if (this.storage.remote !== null) this.subscriptions.delete(event.workspaceId)
    if (!this.wants(event.workspaceId, event.type)) return
    const live = this.queue
    this.queue = []
    if (live.length > 0) {
      this.unconfirmed.push({ change, events: live })
      // Should this transaction roll back, the next flush puts them back.
      this.scheduleFlush()
    }
    this.write([...live, event])
  }
}
