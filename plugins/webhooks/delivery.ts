/**
 * The delivery worker: takes pending deliveries from the outbox and sends them, at least once,
 * in order per resource and endpoint (a lane). A lane's next delivery waits until the one before
 * it got a 2xx or was given up; lanes run in parallel, at most MAX_IN_FLIGHT requests per
 * endpoint. Failed attempts are retried on the schedule of schedule.ts, timed by the engine's
 * clock (a test advances it instead of waiting); after 24 h a delivery is dead-lettered, and an
 * endpoint that has failed for 3 days is disabled (an audit line in the log).
 *
 * The database holds the truth; the worker mirrors the pending deliveries in memory (lanes). The
 * deliveries of live events this process commits are handed over by the outbox as committed (no
 * read back); the table is read past the cursor at start-up and whenever a change says other rows
 * were committed — here (a database change's events, a test, a redelivery) or by another process
 * sharing the data dir (the CLI). After a crash the pending rows are read again, so nothing is
 * lost; a delivery answered but not yet recorded is sent again (receivers deduplicate on
 * `webhook-id`).
 *
 * In a cluster (`leases.shared`) each endpoint is delivered by the one node that holds its lease
 * (core/leases.ts; spec/cluster.md, Webhook delivery): a node keeps in memory only the deliveries
 * of the endpoints it holds, asks for the lease of every other endpoint it sees pending rows of,
 * and reads an endpoint's pending rows afresh (after a replica sync) when it gains the lease. It
 * hears other nodes' new rows at every change poll. On a single node every lease is held.
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
import { DeliveryPace, type PaceLoop } from './pace.js'
import { DISABLE_AFTER_FAILING_MS, GIVE_UP_AFTER_MS, nextAttemptAt } from './schedule.js'
import { MAX_IN_FLIGHT, type AttemptResult, type AttemptSender, type SendOutcome } from './sender.js'

/** Completed deliveries (each with its event's body) are kept this long for the history, then pruned. */
export const RETAIN_COMPLETED_MS = 7 * 24 * 3_600_000
const PRUNE_EVERY_MS = 3_600_000
/**
 * Attempt outcomes are written together, at most this long (real time) after the first waits (at
 * once when the worker goes idle). Fewer, larger commits; an outcome lost to a crash means the
 * attempt is made again (at-least-once: receivers deduplicate on webhook-id), no event is lost.
 */
const RECORD_BATCH_MS = 50
const RECORD_BATCH_MAX = 64

interface Lane {
  readonly endpoint: EndpointState
  readonly resource: string
  /** Pending deliveries of this resource, by sequence number. */
  readonly queue: PendingDelivery[]
  state: 'idle' | 'ready' | 'waiting' | 'busy'
}

/** One settled attempt (tests and tools listen). */
export interface AttemptRecord {
  readonly delivery: PendingDelivery
  readonly outcome: SendOutcome
  /** The delivery's state after it. */
  readonly state: DeliveryState
  readonly nextAttemptAt: number | null
}

interface EndpointState {
  record: WebhookEndpointRecord
  readonly lanes: Map<string, Lane>
  /** Lanes whose head is due, oldest first (entries whose lane moved on are skipped). */
  ready: Lane[]
  inFlight: number
  /** Its lease went to another node: attempts still in flight are recorded, nothing new starts. */
  lost: boolean
  secrets: { readonly until: number; readonly list: ReadonlyArray<string> } | null
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
  private readonly endpointStates = new Map<string, EndpointState>()
  /** Every pending delivery in memory, by internal id. */
  private readonly pending = new Map<number, PendingDelivery>()
  private readonly waiting = new Set<Lane>()
  /** Endpoints whose lease this node just gained, until their pending rows are read afresh. */
  private readonly gaining = new Set<string>()
  /** Every delivery row up to this internal id has been read or handed over. */
  private cursor = 0
  /** The next load may move the cursor at least this far (rows handed over behind a gap). */
  private floor = 0
  private timer: Timer | undefined
  private timerAt = Number.POSITIVE_INFINITY
  private pruneTimer: Timer | undefined
  private loadScheduled = false
  private pumpScheduled = false
  private running = false
  private readonly offs: Array<() => void> = []
  private readonly random: () => number
  private readonly leases: Leases
  /** How attempts yield to a saturated event loop. */
  readonly pace: DeliveryPace
  private readonly attempts: Counter
  private readonly deliveries: Counter
  private readonly attemptListeners = new Set<(a: AttemptRecord) => void>()
  private idleWaiters: Array<() => void> = []
  /** Outcomes not yet handed to storage, by delivery (the latest wins), and other writes that go with them (one transaction for many attempts). */
  private records = new Map<number, AttemptOutcome>()
  private writes: Array<() => void> = []
  private recordTimer: NodeJS.Timeout | undefined
  private quietWaiters: Array<() => void> = []

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.random = deps.random ?? Math.random
    this.leases = deps.leases ?? soleLeases
    this.pace = new DeliveryPace(() => this.hasWork(), () => this.schedulePump(), deps.paceLoop)
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
    const worker = this
    new Gauge({
      name: 'hark_webhook_queue_depth',
      help: 'Webhook deliveries pending (waiting for their turn, a retry, or a disabled endpoint), per workspace',
      labelNames: ['workspace'],
      registers: [deps.metrics],
      collect() {
        this.reset()
        for (const [workspace, { count }] of worker.pendingByWorkspace()) this.set({ workspace }, count)
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
        for (const [workspace, { oldest }] of worker.pendingByWorkspace()) this.set({ workspace }, Math.max(0, now - oldest) / 1000)
      },
    })
  }

  private pendingByWorkspace(): Map<string, { count: number; oldest: number }> {
    const out = new Map<string, { count: number; oldest: number }>()
    for (const d of this.pending.values()) {
      const s = out.get(d.workspaceId)
      if (s) {
        s.count++
        if (d.createdAt < s.oldest) s.oldest = d.createdAt
      } else out.set(d.workspaceId, { count: 1, oldest: d.createdAt })
    }
    return out
  }

  /** Read every pending delivery and start sending. */
  start(): void {
    if (this.running) return
    this.running = true
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
        this.leases.onChange((webhookId, held) => (held ? this.gained(webhookId) : this.lost(webhookId))),
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
    const written = this.flushRecords()
    this.running = false
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

  /** Attempts in flight, or lanes due (the pace probes the event loop only then). */
  private hasWork(): boolean {
    for (const ep of this.endpointStates.values()) {
      if (ep.inFlight > 0 || (ep.record.enabled && ep.ready.length > 0)) return true
    }
    return false
  }

  /** True when nothing is in flight or due now (what is left waits for a later retry or a disabled endpoint). */
  get idle(): boolean {
    if (this.loadScheduled || this.pumpScheduled) return false
    for (const ep of this.endpointStates.values()) {
      if (ep.inFlight > 0) return false
      if (ep.record.enabled && ep.ready.some((lane) => lane.state === 'ready')) return false
    }
    return true
  }

  /** True when nothing more can start now: whatever is due waits for a free place (MAX_IN_FLIGHT per endpoint). */
  get quiet(): boolean {
    if (this.loadScheduled || this.pumpScheduled) return false
    for (const ep of this.endpointStates.values()) {
      if (ep.record.enabled && ep.inFlight < MAX_IN_FLIGHT && ep.ready.some((lane) => lane.state === 'ready')) return false
    }
    return true
  }

  /** Resolves once nothing more can start (attempts may still be in flight). */
  whenQuiet(): Promise<void> {
    if (this.quiet || !this.running) return Promise.resolve()
    return new Promise((resolve) => this.quietWaiters.push(resolve))
  }

  /** Requests in flight to an endpoint now. */
  inFlightOf(webhookId: string): number {
    return this.endpointStates.get(webhookId)?.inFlight ?? 0
  }

  /** Resolves once the worker is idle (tests: advance the clock, then wait for the due attempts). */
  whenIdle(): Promise<void> {
    if (this.idle || !this.running) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** When the next retry falls due (engine clock, ms), or null when none is waiting. */
  get nextDueAt(): number | null {
    return this.timerAt === Number.POSITIVE_INFINITY ? null : this.timerAt
  }

  /** Pending deliveries known to the worker (tests, metrics). */
  get pendingCount(): number {
    return this.pending.size
  }

  private scheduleLoad(): void {
    if (this.loadScheduled || !this.running) return
    this.loadScheduled = true
    setImmediate(() => {
      this.loadScheduled = false
      if (!this.running) return
      this.load()
      this.pump()
    })
  }

  private schedulePump(): void {
    if (this.pumpScheduled || !this.running) return
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
    if (!this.running || deliveries.length === 0) return
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

  private endpoint(webhookId: string): EndpointState | null {
    let ep = this.endpointStates.get(webhookId)
    if (!ep) {
      const record = this.deps.storage.webhookEndpoints.find(webhookId)
      if (!record) return null
      // Another node delivers it: ask for its lease (taken when that node lets it go or dies).
      if (!this.leases.holds(webhookId)) {
        this.leases.want(webhookId)
        return null
      }
      // Its rows are being read in full (gained): rows seen meanwhile are among them, in order.
      if (this.gaining.has(webhookId)) return null
      ep = { record, lanes: new Map(), ready: [], inFlight: 0, lost: false, secrets: null }
      this.endpointStates.set(webhookId, ep)
    }
    return ep
  }

  private add(d: PendingDelivery): void {
    if (this.pending.has(d.id)) return
    const ep = this.endpoint(d.webhookId)
    if (!ep) return
    this.pending.set(d.id, d)
    let lane = ep.lanes.get(d.resource)
    if (!lane) ep.lanes.set(d.resource, (lane = { endpoint: ep, resource: d.resource, queue: [], state: 'idle' }))
    const q = lane.queue
    let i = q.length
    while (i > 0 && (q[i - 1]!.seq > d.seq || (q[i - 1]!.seq === d.seq && q[i - 1]!.id > d.id))) i--
    // Never ahead of the delivery in flight: it is being sent already.
    if (i === 0 && lane.state === 'busy' && q.length > 0) i = 1
    q.splice(i, 0, d)
    if (lane.state !== 'busy') this.refresh(lane)
  }

  /** This node now delivers the endpoint: read its pending deliveries as the database has them now. */
  private gained(webhookId: string): void {
    this.gaining.add(webhookId)
    this.deps.storage
      .refresh()
      .then(() => {
        this.gaining.delete(webhookId)
        if (!this.running || !this.leases.holds(webhookId)) return
        for (const d of this.deps.storage.webhookOutbox.pendingOf(webhookId)) this.add(d)
        this.pump()
      })
      .catch((e: unknown) => {
        this.gaining.delete(webhookId)
        this.deps.log.error({ err: e, webhookId }, 'reading the deliveries of a webhook lease failed; trying again in 1 s')
        this.deps.clock.setTimeout(() => {
          if (this.running && this.leases.holds(webhookId)) this.gained(webhookId)
        }, 1000)
      })
  }

  /** Another node delivers the endpoint from now on: forget its deliveries (the database keeps them). */
  private lost(webhookId: string): void {
    const ep = this.endpointStates.get(webhookId)
    if (!ep) return
    ep.lost = true
    this.forget(ep)
    this.schedulePump()
  }

  private forget(ep: EndpointState): void {
    for (const lane of ep.lanes.values()) {
      this.waiting.delete(lane)
      for (const d of lane.queue) this.pending.delete(d.id)
    }
    this.endpointStates.delete(ep.record.webhookId)
  }

  /** Put a lane where its head says: ready (due), waiting (a retry later), or gone (empty). */
  private refresh(lane: Lane): void {
    this.waiting.delete(lane)
    const head = lane.queue[0]
    if (!head) {
      lane.state = 'idle'
      if (lane.endpoint.lanes.get(lane.resource) === lane) lane.endpoint.lanes.delete(lane.resource)
      return
    }
    if ((head.nextAttemptAt ?? 0) <= this.deps.clock.now()) {
      if (lane.state !== 'ready') {
        lane.state = 'ready'
        lane.endpoint.ready.push(lane)
      }
    } else {
      lane.state = 'waiting'
      this.waiting.add(lane)
    }
  }

  /** Start what may start, then sleep until the next retry is due. */
  private pump(): void {
    if (!this.running) return
    const now = this.deps.clock.now()
    for (const lane of this.waiting) if ((lane.queue[0]?.nextAttemptAt ?? 0) <= now) this.refresh(lane)
    for (const ep of this.endpointStates.values()) {
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
    if (this.idle) this.flushRecords()
    if (this.idleWaiters.length > 0 && this.idle) for (const resolve of this.idleWaiters.splice(0)) resolve()
    if (this.quietWaiters.length > 0 && this.quiet) for (const resolve of this.quietWaiters.splice(0)) resolve()
  }

  private arm(): void {
    let next = Number.POSITIVE_INFINITY
    for (const lane of this.waiting) next = Math.min(next, lane.queue[0]?.nextAttemptAt ?? next)
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
    if (!this.running) return
    ep.inFlight--
    this.attempts.inc({ result: outcome.result })
    const gone = this.endpointStates.get(ep.record.webhookId) !== ep || lane.queue[0] !== d
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
      this.record(d.id, record, null)
      this.schedulePump()
      return
    }
    if (state === 'pending') {
      lane.queue[0] = { ...d, attempts, nextAttemptAt: next, lastAttemptAt: at, lastStatus: outcome.status, lastError: outcome.error, lastLatencyMs: outcome.latencyMs }
      this.pending.set(d.id, lane.queue[0])
    } else {
      lane.queue.shift()
      this.pending.delete(d.id)
      this.deliveries.inc({ result: state })
      if (state === 'dead') {
        this.deps.log.warn(
          { webhookId: d.webhookId, deliveryId: d.deliveryId, eventId: d.eventId, attempts, error: outcome.error },
          `webhook delivery given up after ${GIVE_UP_AFTER_MS / 3_600_000} h (dead-lettered; redeliverable)`,
        )
      }
    }
    const health = this.health(ep, success, at)
    this.record(d.id, record, health)
    lane.state = 'idle'
    this.refresh(lane)
    for (const listener of this.attemptListeners) listener({ delivery: d, outcome, state, nextAttemptAt: next })
    // The lane's next delivery leaves in this turn: under load a turn can be long.
    this.pump()
  }

  /**
   * Queue an outcome's write. Writes go in one transaction per batch: a transaction per attempt
   * would cost more than the attempt. A crash before the write sends the delivery again
   * (at least once), never loses it.
   */
  private record(id: number, outcome: AttemptOutcome, write: (() => void) | null): void {
    this.records.set(id, outcome)
    if (write) this.writes.push(write)
    if (this.records.size >= RECORD_BATCH_MAX) this.flushRecords()
    else if (this.recordTimer === undefined) {
      // Real time: this bounds how long I/O is batched, it is no control-plane timer.
      this.recordTimer = setTimeout(() => this.flushRecords(), RECORD_BATCH_MS)
      this.recordTimer.unref()
    }
  }

  private flushRecords(): Promise<void> {
    clearTimeout(this.recordTimer)
    this.recordTimer = undefined
    const records = this.records
    const writes = this.writes
    if (records.size === 0 && writes.length === 0) return Promise.resolve()
    this.records = new Map()
    this.writes = []
    return this.deps.storage
      .batch(() => {
        this.deps.storage.webhookOutbox.recordAttempts(records)
        for (const write of writes) write()
      })
      .catch((e: unknown) => this.deps.log.error({ err: e, writes: records.size + writes.length }, 'recording webhook attempts failed'))
  }

  /** Track how long the endpoint has been failing; the write to make, if any. */
  private health(ep: EndpointState, success: boolean, at: number): (() => void) | null {
    const r = ep.record
    const { storage, log } = this.deps
    if (success) {
      if (r.failingSince === null) return null
      ep.record = { ...r, failingSince: null }
      return () => void storage.webhookEndpoints.update(r.workspaceId, r.webhookId, { failingSince: null }, at)
    }
    if (r.failingSince === null) {
      ep.record = { ...r, failingSince: at }
      return () => void storage.webhookEndpoints.update(r.workspaceId, r.webhookId, { failingSince: at }, at)
    }
    if (!r.enabled || at - r.failingSince < DISABLE_AFTER_FAILING_MS) return null
    const days = DISABLE_AFTER_FAILING_MS / 86_400_000
    const reason = `every delivery attempt failed for ${days} days (since ${new Date(r.failingSince).toISOString()})`
    ep.record = { ...r, enabled: false, disabledReason: reason }
    // The audit trail: there is no audit log in the engine yet, so the log carries it.
    log.warn({ audit: true, action: 'webhook.disabled', workspaceId: r.workspaceId, webhookId: r.webhookId, url: r.url, reason }, 'webhook endpoint disabled')
    return () => {
      const endpoint = storage.webhookEndpoints.update(r.workspaceId, r.webhookId, { enabled: false, disabledReason: reason }, at)
      if (endpoint) storage.feed.record({ kind: 'webhook.updated', workspaceId: r.workspaceId, subject: r.webhookId, at, endpoint })
    }
  }

  /** An endpoint changed (here or in another process): take its new URL, secrets, state; drop it when deleted (null). */
  private endpointChanged(webhookId: string, record: WebhookEndpointRecord | null): void {
    const ep = this.endpointStates.get(webhookId)
    if (!record) this.leases.drop(webhookId)
    if (!ep) return
    if (!record) {
      this.forget(ep)
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
      if (this.running) this.schedulePrune()
    }, PRUNE_EVERY_MS)
  }
}

export type { AttemptResult }
