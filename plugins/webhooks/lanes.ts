/**
 * The delivery worker's mirror of the pending deliveries (delivery.ts): per endpoint, one lane per
 * resource, each a queue by sequence number whose head alone may be in flight. A lane is idle
 * (empty), ready (its head is due: in its endpoint's ready list, oldest first), waiting (its head
 * waits for a retry) or busy (its head is being sent). The database holds the truth; nothing here
 * reads or writes it.
 */
import type { ClockShape } from '../../core/clock.js'
import type { WebhookEndpointRecord } from '../../core/storage/webhookEndpoints.js'
import type { PendingDelivery } from '../../core/storage/webhookOutbox.js'
import { MAX_IN_FLIGHT } from './sender.js'

export interface Lane {
  readonly endpoint: EndpointState
  readonly resource: string
  /** Pending deliveries of this resource, by sequence number. */
  readonly queue: PendingDelivery[]
  state: 'idle' | 'ready' | 'waiting' | 'busy'
}

export interface EndpointState {
  record: WebhookEndpointRecord
  readonly lanes: Map<string, Lane>
  /** Lanes whose head is due, oldest first (entries whose lane moved on are skipped). */
  ready: Lane[]
  inFlight: number
  /** Its lease went to another node: attempts still in flight are recorded, nothing new starts. */
  lost: boolean
  secrets: { readonly until: number; readonly list: ReadonlyArray<string> } | null
}

export class Lanes {
  /** The endpoints this worker delivers, by webhook id. */
  readonly endpoints = new Map<string, EndpointState>()
  /** Every pending delivery in memory, by internal id. */
  private readonly pending = new Map<number, PendingDelivery>()
  private readonly waiting = new Set<Lane>()

  constructor(private readonly clock: ClockShape) {}

  /** Deliveries pending here (tests, metrics). */
  get size(): number {
    return this.pending.size
  }

  has(id: number): boolean {
    return this.pending.has(id)
  }

  /** Start delivering an endpoint: no lanes yet. */
  open(record: WebhookEndpointRecord): EndpointState {
    const ep: EndpointState = { record, lanes: new Map(), ready: [], inFlight: 0, lost: false, secrets: null }
    this.endpoints.set(record.webhookId, ep)
    return ep
  }

  /** Put a delivery in its lane, in sequence order, never ahead of the one in flight. */
  add(ep: EndpointState, d: PendingDelivery): void {
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

  /** The head of a lane goes again later, as `next` (its attempt recorded). */
  retry(lane: Lane, next: PendingDelivery): void {
    lane.queue[0] = next
    this.pending.set(next.id, next)
  }

  /** The head of a lane is done (delivered or dead). */
  done(lane: Lane): void {
    const d = lane.queue.shift()
    if (d) this.pending.delete(d.id)
  }

  /** Stop delivering an endpoint: its deliveries leave memory (the database keeps them). */
  forget(ep: EndpointState): void {
    for (const lane of ep.lanes.values()) {
      this.waiting.delete(lane)
      for (const d of lane.queue) this.pending.delete(d.id)
    }
    this.endpoints.delete(ep.record.webhookId)
  }

  /** Put a lane where its head says: ready (due), waiting (a retry later), or gone (empty). */
  refresh(lane: Lane): void {
    this.waiting.delete(lane)
    const head = lane.queue[0]
    if (!head) {
      lane.state = 'idle'
      if (lane.endpoint.lanes.get(lane.resource) === lane) lane.endpoint.lanes.delete(lane.resource)
      return
    }
    if ((head.nextAttemptAt ?? 0) <= this.clock.now()) {
      if (lane.state !== 'ready') {
        lane.state = 'ready'
        lane.endpoint.ready.push(lane)
      }
    } else {
      lane.state = 'waiting'
      this.waiting.add(lane)
    }
  }

  /** Waiting lanes whose retry is due by `now` become ready. */
  wake(now: number): void {
    for (const lane of this.waiting) if ((lane.queue[0]?.nextAttemptAt ?? 0) <= now) this.refresh(lane)
  }

  /** When the first waiting lane's retry falls due (engine clock, ms); +Infinity when none waits. */
  nextDueAt(): number {
    let next = Number.POSITIVE_INFINITY
    for (const lane of this.waiting) next = Math.min(next, lane.queue[0]?.nextAttemptAt ?? next)
    return next
  }

  /** Attempts in flight, or lanes due on an enabled endpoint. */
  hasWork(): boolean {
    for (const ep of this.endpoints.values()) {
      if (ep.inFlight > 0 || (ep.record.enabled && ep.ready.length > 0)) return true
    }
    return false
  }

  /** True when nothing is in flight or due now (what is left waits for a later retry or a disabled endpoint). */
  idle(): boolean {
    for (const ep of this.endpoints.values()) {
      if (ep.inFlight > 0) return false
      if (ep.record.enabled && ep.ready.some((lane) => lane.state === 'ready')) return false
    }
    return true
  }

  /** True when nothing more can start now: whatever is due waits for a free place (MAX_IN_FLIGHT per endpoint). */
  quiet(): boolean {
    for (const ep of this.endpoints.values()) {
      if (ep.record.enabled && ep.inFlight < MAX_IN_FLIGHT && ep.ready.some((lane) => lane.state === 'ready')) return false
    }
    return true
  }

  /** Pending deliveries and the oldest one's creation time, per workspace (the queue gauges). */
  byWorkspace(): Map<string, { count: number; oldest: number }> {
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
}
