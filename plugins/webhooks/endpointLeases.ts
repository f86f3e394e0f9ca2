/**
 * Which endpoints the delivery worker (delivery.ts) delivers. In a cluster (`leases.shared`;
 * core/leases.ts; spec/cluster.md, Webhook delivery) each endpoint is delivered by the one node
 * that holds its lease: a node keeps in memory only the deliveries of the endpoints it holds, asks
 * for the lease of every other endpoint it sees pending rows of, and reads an endpoint's pending
 * rows afresh (after a replica sync) when it gains the lease; when it loses one, it forgets that
 * endpoint's deliveries (the database keeps them). On a single node every lease is held.
 */
import type { ClockShape } from '../../core/clock.js'
import type { Leases } from '../../core/leases.js'
import type { Logger } from '../../core/log.js'
import type { StorageShape } from '../../core/storage/storage.js'
import type { PendingDelivery } from '../../core/storage/webhookOutbox.js'

export interface EndpointLeasesDeps {
  readonly leases: Leases
  readonly storage: StorageShape
  readonly clock: ClockShape
  readonly log: Logger
}

/** What the worker does when a lease comes or goes. */
export interface LeaseHolder {
  readonly running: boolean
  /** The endpoint's pending deliveries, read afresh now that this node delivers it. */
  gained(rows: ReadonlyArray<PendingDelivery>): void
  /** Another node delivers the endpoint from now on. */
  lost(webhookId: string): void
}

export class EndpointLeases {
  /** Endpoints whose lease this node just gained, until their pending rows are read afresh. */
  private readonly gaining = new Set<string>()

  constructor(
    private readonly deps: EndpointLeasesDeps,
    private readonly holder: LeaseHolder,
  ) {}

  /** In a cluster: other nodes commit rows too, and leases move. */
  get shared(): boolean {
    return this.deps.leases.shared
  }

  /**
   * May this node take the endpoint's deliveries into memory now? Not while another node holds
   * its lease (asked for: taken when that node lets it go or dies), nor while its rows are being
   * read in full after a gain (rows seen meanwhile are among them, in order).
   */
  mayDeliver(webhookId: string): boolean {
    if (!this.deps.leases.holds(webhookId)) {
      this.deps.leases.want(webhookId)
      return false
    }
    return !this.gaining.has(webhookId)
  }

  /** The endpoint is deleted: nobody needs its lease. */
  drop(webhookId: string): void {
    this.deps.leases.drop(webhookId)
  }

  /** Hear leases come and go; returns the function that stops it. */
  listen(): () => void {
    return this.deps.leases.onChange((webhookId, held) => (held ? this.gained(webhookId) : this.holder.lost(webhookId)))
  }

  /** This node now delivers the endpoint: read its pending deliveries as the database has them now. */
  private gained(webhookId: string): void {
    const { storage, leases, log, clock } = this.deps
    this.gaining.add(webhookId)
    storage
      .refresh()
      .then(() => {
        this.gaining.delete(webhookId)
        if (!this.holder.running || !leases.holds(webhookId)) return
        this.holder.gained(storage.webhookOutbox.pendingOf(webhookId))
      })
      .catch((e: unknown) => {
        this.gaining.delete(webhookId)
        log.error({ err: e, webhookId }, 'reading the deliveries of a webhook lease failed; trying again in 1 s')
        clock.setTimeout(() => {
          if (this.holder.running && leases.holds(webhookId)) this.gained(webhookId)
        }, 1000)
      })
  }
}
