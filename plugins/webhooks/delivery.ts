/**
 * The delivery worker: takes pending deliveries from the outbox and sends them, at least once,
 * in order per resource and endpoint (a lane). A lane's next delivery waits until the one before
 * it got a 2xx or was given up; lanes run in parallel, at most MAX_IN_FLIGHT requests per
 * endpoint. Failed attempts are retried on the schedule of schedule.ts, timed by the engine's
 * clock (a test advances it instead of waiting); after 24 h a delivery is dead-lettered, and an
 * endpoint that has failed for 3 days is disabled (health.ts).
 *
 * The database holds the truth; the worker mirrors the pending deliveries in memory (lanes). The
 * deliveries of live events this process commits are handed over by the outbox as committed (no
 * read back); the table is read past the cursor at start-up and whenever a change says other rows
 * were committed — here (a database change's events, a test, a redelivery) or by another process
 * sharing the data dir (the CLI). After a crash the pending rows are read again, so nothing is
 * lost; a delivery answered but not yet recorded is sent again (receivers deduplicate on
 * `webhook-id`).
 *
 * In a cluster each endpoint is delivered by the one node that holds its lease (endpointLeases.ts);
 * a node hears other nodes' new rows at every change poll.
 *
 * Its parts, one job each: the lanes in memory (lanes.ts), write batching of attempt outcomes
 * (attemptRecords.ts), endpoint health (health.ts), endpoint leases (endpointLeases.ts), the
 * retry schedule (schedule.ts), the pace that yields to a saturated event loop (pace.ts), and the
 * sender on its own thread (deliveryThread.ts).
 */
import { Counter, Gauge, type Registry } from 'prom-client'
import type { ClockShape, Timer } from '../../core/clock.js'
import { soleLeases, type Leases } from '../../core/leases.js'
import type { Logger } from '../../core/log.js'
import type { StorageShape } from '../../core/storage/storage.js'
import type { WebhookEndpointRecord } from '../../core/storage/webhookEndpoints.js'
import type { AttemptOutcome, DeliveryState, PendingDelivery } from '../../core/storage/webhookOutbox.js'
import type { WebhookEndpoints } from '../../core/webhooks/endpoints.js'
import type { WebhookOutbox } from '../../core/webhooks/outbox.js'
import { AttemptRecords } from './attemptRecords.js'
import { EndpointLeases } from './endpointLeases.js'
import { trackHealth } from './health.js'
import { Lanes, type EndpointState, type Lane } from './lanes.js'
import { DeliveryPace, type PaceLoop } from './pace.js'
import { GIVE_UP_AFTER_MS, nextAttemptAt } from './schedule.js'
import { MAX_IN_FLIGHT, type AttemptResult, type AttemptSender, type SendOutcome } from './sender.js'

/** Completed deliveries (each with its event's body) are kept this long for the history, then pruned. */
export const RETAIN_COMPLETED_MS = 7 * 24 * 3_600_000
const PRUNE_EVERY_MS = 3_600_000

/** One settled attempt (tests and tools listen). */
export interface AttemptRecord {
  readonly delivery: PendingDelivery
  readonly outcome: SendOutcome
  /** The delivery's state after it. */
  readonly state: DeliveryState
  readonly nextAttemptAt: number | null
}

export interface DeliveryWorkerDeps {
  readonly storage: StorageShape
  readonly clock: ClockShape
  readonly log: Logger
  readonly metrics: Registry
  /** Where attempts run: the delivery thread in the engine (deliveryThread.ts). */
  readonly sender: AttemptSender
  readonly endpoints: WebhookEndpoints
  readonly outbox: WebhookOutbox
  /** Jitter source in [0, 1). */
  readonly random?: () => number
  /** Who delivers which endpoint (default: this process, all of them). */
  readonly leases?: Leases
  /** The loop the pace (pace.ts: attempts yield to a saturated event loop) watches; default: this thread's, in real-time windows. */
  readonly paceLoop?: PaceLoop
}

export class DeliveryWorker {
  private readonly lanes: Lanes
  private readonly leases: EndpointLeases
  private readonly records: AttemptRecords
  /** Every delivery row up to this internal id has been read or handed over. */
  private cursor = 0
  /** The next load may move the cursor at least this far (rows handed over behind a gap). */
  private floor = 0
  private timer: Timer | undefined
  private timerAt = Number.POSITIVE_INFINITY
  private pruneTimer: Timer | undefined
  private loadScheduled = false
  private pumpScheduled = false
  private isRunning = false
  private readonly offs: Array<() => void> = []
  private readonly random: () => number
  /** How attempts yield to a saturated event loop. */
  readonly pace: DeliveryPace
  private readonly attempts: Counter
  private readonly deliveries: Counter
  private readonly attemptListeners = new Set<(a: AttemptRecord) => void>()
  private idleWaiters: Array<() => void> = []
  private quietWaiters: Array<() => void> = []

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.random = deps.random ?? Math.random
    this.lanes = new Lanes(deps.clock)
    this.records = new AttemptRecords(deps.storage, deps.log)
    const worker = this
    this.leases = new EndpointLeases(
      { leases: deps.leases ?? soleLeases, storage: deps.storage, clock: deps.clock, log: deps.log },
      {
        get running() {
          return worker.isRunning
        },
        gained: (rows) => {
          for (const d of rows) this.add(d)
          this.pump()
        },
        lost: (webhookId) => this.lost(webhookId),
      },
    )
    this.pace = new DeliveryPace(() => this.lanes.hasWork(), () => this.schedulePump(), deps.paceLoop)
    this.attempts = new Counter({
      name: 'hark_webhook_attempts_total',
      help: 'Webhook delivery attempts by result (success, http_error, timeout, network_error, address_not_allowed)',
      labelNames: ['result'],
      registers: [deps.metrics],
    })
    this.deliveries = new Counter({
      name: 'hark_webhook_deliveries_total',
      help: 'Webhook deliveries finished, by result (delivered: a 2xx; dead: given up after 24 h)',
      labelNames: ['result'],
      registers: [deps.metrics],
    })
    new Gauge({
      name: 'hark_webhook_queue_depth',
      help: 'Webhook deliveries pending (waiting for their turn, a retry, or a disabled endpoint), per workspace',
      labelNames: ['workspace'],
      registers: [deps.metrics],
      collect() {
        this.reset()
        for (const [workspace, { count }] of worker.lanes.byWorkspace()) this.set({ workspace }, count)
      },
    })
    new Gauge({
      name: 'hark_webhook_oldest_pending_seconds',
      help: 'Age of the oldest pending webhook delivery, per workspace',
      labelNames: ['workspace'],
      registers: [deps.metrics],
      collect() {
        this.reset()
        const now = deps.clock.now()
        for (const [workspace, { oldest }] of worker.lanes.byWorkspace()) this.set({ workspace }, Math.max(0, now - oldest) / 1000)
      },
    })
  }

  /** Read every pending delivery and start sending. */
  start(): void {
    if (this.isRunning) return
    this.isRunning = true
    const { storage, outbox } = this.deps
    this.offs.push(
      // An endpoint as its change carries it (here or in another process): nothing read back.
      storage.feed.on(['webhook.created', 'webhook.updated'], (change) => this.endpointChanged(change.subject, change.endpoint)),
      storage.feed.on('webhook.deleted', (change) => this.endpointChanged(change.subject, null)),
      // Deliveries commit with changes (their events, a test, a redelivery): read past the cursor.
      storage.feed.onAny(() => this.scheduleLoad()),
      outbox.onCommitted((deliveries) => this.take(deliveries)),
    )
    if (this.leases.shared) {
      this.offs.push(
        // Rows other nodes committed are readable after each change poll's sync.
        storage.feed.onPolled(() => this.scheduleLoad()),
        this.leases.listen(),
      )
    }
    this.pace.start()
    // Every row up to the last one now is read here: the first live deliveries handed over follow it.
    this.floor = storage.webhookOutbox.lastId()
    this.load()
    this.pump()
    this.schedulePrune()
  }

  /**
   * Stop sending; attempts in flight are abandoned (their deliveries stay pending and go again
   * after a restart, or on the node that takes the endpoint's lease). Resolves once the outcomes
   * already known are written (before a cluster node lets its leases go).
   */
  async stop(): Promise<void> {
    const written = this.records.flush()
    this.isRunning = false
    this.pace.stop()
    for (const off of this.offs.splice(0)) off()
    this.deps.clock.clearTimeout(this.timer)
    this.deps.clock.clearTimeout(this.pruneTimer)
    this.timer = undefined
    this.timerAt = Number.POSITIVE_INFINITY
    this.deps.sender.close()
    await written
  }

  /** Hear every settled attempt. Returns the unsubscribe function. */
  onAttempt(listener: (a: AttemptRecord) => void): () => void {
    this.attemptListeners.add(listener)
    return () => this.attemptListeners.delete(listener)
  }

  /** True when nothing is in flight or due now (what is left waits for a later retry or a disabled endpoint). */
  get idle(): boolean {
    return !this.loadScheduled && !this.pumpScheduled && this.lanes.idle()
  }

  /** True when nothing more can start now: whatever is due waits for a free place (MAX_IN_FLIGHT per endpoint). */
  get quiet(): boolean {
    return !this.loadScheduled && !this.pumpScheduled && this.lanes.quiet()
  }

  /** Resolves once nothing more can start (attempts may still be in flight). */
  whenQuiet(): Promise<void> {
    if (this.quiet || !this.isRunning) return Promise.resolve()
    return new Promise((resolve) => this.quietWaiters.push(resolve))
  }

  /** Requests in flight to an endpoint now. */
  inFlightOf(webhookId: string): number {
    return this.lanes.endpoints.get(webhookId)?.inFlight ?? 0
  }

  /** Resolves once the worker is idle (tests: advance the clock, then wait for the due attempts). */
  whenIdle(): Promise<void> {
    if (this.idle || !this.isRunning) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** When the next retry falls due (engine clock, ms), or null when none is waiting. */
  get nextDueAt(): number | null {
    return this.timerAt === Number.POSITIVE_INFINITY ? null : this.timerAt
  }

  /** Pending deliveries known to the worker (tests, metrics). */
  get pendingCount(): number {
    return this.lanes.size
  }

  private scheduleLoad(): void {
    if (this.loadScheduled || !this.isRunning) return
    this.loadScheduled = true
    setImmediate(() => {
      this.loadScheduled = false
      if (!this.isRunning) return
      this.load()
      this.pump()
    })
  }

  private schedulePump(): void {
    if (this.pumpScheduled || !this.isRunning) return
    this.pumpScheduled = true
    setImmediate(() => {
      this.pumpScheduled = false
      this.pump()
    })
  }

  /**
   * Read pending deliveries committed past the cursor; then the cursor stands at least at the
   * floor (every row up to it committed before this read began, so a pending one was read).
   */
  private load(): void {
    for (;;) {
      const rows = this.deps.storage.webhookOutbox.pendingAfter(this.cursor)
      if (rows.length === 0) break
      this.cursor = rows[rows.length - 1]!.id
      for (const d of rows) this.add(d)
    }
    if (this.floor > this.cursor) this.cursor = this.floor
    this.floor = 0
  }

  /**
   * The deliveries of live events this process just committed, handed over in memory: no read
   * back. Taken as they are only when they follow the cursor without a gap; a gap holds rows
   * committed in between by someone else (the CLI, another node, a change's transaction here),
   * and one of them may come before these in a resource's order: then everything past the cursor
   * is read from the table instead, these rows with it. Ids grow in commit order (one writer).
   */
  private take(deliveries: ReadonlyArray<PendingDelivery>): void {
    if (!this.isRunning || deliveries.length === 0) return
    // On a libSQL server the ids come from the primary, through write delegation: read them as before.
    if (this.deps.storage.remote !== null) return this.scheduleLoad()
    const first = deliveries[0]!.id
    const last = deliveries[deliveries.length - 1]!.id
    if (this.loadScheduled || first !== this.cursor + 1 || last - first !== deliveries.length - 1) {
      this.floor = Math.max(this.floor, last)
      this.scheduleLoad()
      return
    }
    this.cursor = last
    for (const d of deliveries) this.add(d)
    this.schedulePump()
  }

  /** The endpoint's state here, opened on its first delivery; null when it is gone or another node delivers it. */
  private endpoint(webhookId: string): EndpointState | null {
    const ep = this.lanes.endpoints.get(webhookId)
    if (ep) return ep
    const record = this.deps.storage.webhookEndpoints.find(webhookId)
    if (!record || !this.leases.mayDeliver(webhookId)) return null
    return this.lanes.open(record)
  }

  private add(d: PendingDelivery): void {
    if (this.lanes.has(d.id)) return
    const ep = this.endpoint(d.webhookId)
    if (ep) this.lanes.add(ep, d)
  }

  /** Another node delivers the endpoint from now on: forget its deliveries (the database keeps them). */
  private lost(webhookId: string): void {
    const ep = this.lanes.endpoints.get(webhookId)
    if (!ep) return
    ep.lost = true
    this.lanes.forget(ep)
    this.schedulePump()
  }

  /** Start what may start, then sleep until the next retry is due. */
  private pump(): void {
    if (!this.isRunning) return
    this.lanes.wake(this.deps.clock.now())
    for (const ep of this.lanes.endpoints.values()) {
      if (!ep.record.enabled) continue
      while (ep.inFlight < MAX_IN_FLIGHT && ep.ready.length > 0) {
        if (ep.ready[0]!.state !== 'ready') {
          ep.ready.shift()
          continue
        }
        // Terminals first: the pace holds attempts back while the event loop is saturated.
        if (!this.pace.allow()) break
        this.attempt(ep, ep.ready.shift()!)
      }
    }
    this.arm()
    if (this.idle) void this.records.flush()
    if (this.idleWaiters.length > 0 && this.idle) for (const resolve of this.idleWaiters.splice(0)) resolve()
    if (this.quietWaiters.length > 0 && this.quiet) for (const resolve of this.quietWaiters.splice(0)) resolve()
  }

  private arm(): void {
    const next = this.lanes.nextDueAt()
    if (next === this.timerAt) return
    this.deps.clock.clearTimeout(this.timer)
    this.timerAt = next
    this.timer = undefined
    if (next === Number.POSITIVE_INFINITY) return
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined
      this.timerAt = Number.POSITIVE_INFINITY
      this.pump()
    }, next - this.deps.clock.now())
  }

  private secretsOf(ep: EndpointState, now: number): ReadonlyArray<string> {
    if (ep.secrets === null || now >= ep.secrets.until) {
      const r = ep.record
      const until = r.previousSecretExpiresAt !== null && r.previousSecretExpiresAt > now ? r.previousSecretExpiresAt : Number.POSITIVE_INFINITY
      ep.secrets = { until, list: this.deps.endpoints.signingSecrets(r, now) }
    }
    return ep.secrets.list
  }

  private attempt(ep: EndpointState, lane: Lane): void {
    const d = lane.queue[0]!
    lane.state = 'busy'
    ep.inFlight++
    const now = this.deps.clock.now()
    this.deps.sender
      .send({ url: ep.record.url, eventId: d.eventId, body: d.body, timestamp: now, secrets: this.secretsOf(ep, now) })
      .then(
        (outcome) => this.settle(ep, lane, d, outcome),
        (e: unknown) => this.settle(ep, lane, d, { result: 'network_error', status: null, error: String(e), latencyMs: 0 }),
      )
  }

  private settle(ep: EndpointState, lane: Lane, d: PendingDelivery, outcome: SendOutcome): void {
    if (!this.isRunning) return
    ep.inFlight--
    this.attempts.inc({ result: outcome.result })
    const gone = this.lanes.endpoints.get(ep.record.webhookId) !== ep || lane.queue[0] !== d
    // The endpoint was deleted (its rows went with it) while this was in flight.
    if (gone && !ep.lost) {
      this.schedulePump()
      return
    }
    const at = this.deps.clock.now()
    const attempts = d.attempts + 1
    const success = outcome.result === 'success'
    const next = success ? null : nextAttemptAt(d.createdAt, at, attempts, this.random)
    const state: DeliveryState = success ? 'delivered' : next === null ? 'dead' : 'pending'
    const record: AttemptOutcome = {
      state, attempts, nextAttemptAt: next, at, status: outcome.status, error: outcome.error, latencyMs: outcome.latencyMs,
    }
    if (gone) {
      // Its lease went to another node meanwhile: the outcome is written all the same, so that node
      // does not send again what was answered (unless it read the row first: at least once).
      this.records.record(d.id, record, null)
      this.schedulePump()
      return
    }
    if (state === 'pending') {
      this.lanes.retry(lane, { ...d, attempts, nextAttemptAt: next, lastAttemptAt: at, lastStatus: outcome.status, lastError: outcome.error, lastLatencyMs: outcome.latencyMs })
    } else {
      this.lanes.done(lane)
      this.deliveries.inc({ result: state })
      if (state === 'dead') {
        this.deps.log.warn(
          { webhookId: d.webhookId, deliveryId: d.deliveryId, eventId: d.eventId, attempts, error: outcome.error },
          `webhook delivery given up after ${GIVE_UP_AFTER_MS / 3_600_000} h (dead-lettered; redeliverable)`,
        )
      }
    }
    this.records.record(d.id, record, trackHealth(ep, success, at, this.deps.storage, this.deps.log))
    lane.state = 'idle'
    this.lanes.refresh(lane)
    for (const listener of this.attemptListeners) listener({ delivery: d, outcome, state, nextAttemptAt: next })
    // The lane's next delivery leaves in this turn: under load a turn can be long.
    this.pump()
  }

  /** An endpoint changed (here or in another process): take its new URL, secrets, state; drop it when deleted (null). */
  private endpointChanged(webhookId: string, record: WebhookEndpointRecord | null): void {
    const ep = this.lanes.endpoints.get(webhookId)
    if (!record) this.leases.drop(webhookId)
    if (!ep) return
    if (!record) {
      this.lanes.forget(ep)
      this.deps.sender.forget(new URL(ep.record.url).origin)
      return
    }
    if (record.url !== ep.record.url) this.deps.sender.forget(new URL(ep.record.url).origin)
    ep.record = record
    ep.secrets = null
    this.schedulePump()
  }

  private schedulePrune(): void {
    this.pruneTimer = this.deps.clock.setTimeout(() => {
      try {
        const n = this.deps.storage.webhookOutbox.prune(this.deps.clock.now() - RETAIN_COMPLETED_MS)
        if (n > 0) this.deps.log.debug({ removed: n }, 'pruned completed webhook deliveries')
      } catch (e) {
        this.deps.log.error({ err: e }, 'pruning webhook deliveries failed')
      }
      if (this.isRunning) this.schedulePrune()
    }, PRUNE_EVERY_MS)
  }
}

export type { AttemptResult }
