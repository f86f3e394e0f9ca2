/**
 * Room ownership (spec/cluster.md, Placement: the room lease): the leases this node holds in the
 * `hark-room-owners` KV bucket, one per room it owns. A node that opens a room tries `create`;
 * the owner renews with `update(key, value, revision)` every tick; a failed renewal means the
 * lease was lost; a room this node no longer has members in is let go (`delete`). Driven by the
 * node's tick on the engine clock; no timers of its own.
 */
import type { KV } from '@nats-io/kv'
import { ClusterUnavailable } from '../../core/errors.js'
import type { Link } from './link.js'
import { encode, leaseKeyOf, splitKey } from './protocol.js'

interface Lease {
  revision: number
  acquiredAt: number
  busy: boolean
}

/** What the leases need of the rest of the node. */
export interface RoomLeaseHost {
  /** The rooms this node has members in (its copies), by key. */
  rooms(): Iterable<string>
  hasRoom(key: string): boolean
  /** A live peer announced that it holds the room's lease. */
  ownedByPeer(key: string): boolean
  /** This node gained or lost the room's lease. */
  changed(key: string, owned: boolean): void
}

export class RoomLeases {
  /** The bucket; opened again after a NATS reconnect that may have lost it. */
  kv!: KV
  private readonly leases = new Map<string, Lease>()
  private readonly acquiring = new Set<string>()
  /** What this node's leases hold, `{node}` (encoded once: a renewal per room per tick writes it). */
  private readonly value: Uint8Array

  constructor(
    private readonly link: Link,
    private readonly host: RoomLeaseHost,
  ) {
    this.value = encode({ node: link.nodeId })
  }

  /** True while this node holds the room's lease. */
  holds(key: string): boolean {
    return this.leases.has(key)
  }

  /** Renew what is held; try the rooms nobody alive claims. */
  tick(): void {
    const { o } = this.link
    const now = o.clock.now()
    for (const [key, lease] of this.leases) {
      if (lease.busy) continue
      // A lease taken for a dispatch whose agent never opened the room is let go.
      if (!this.host.hasRoom(key) && now - lease.acquiredAt > o.leaseTtlMs) {
        void this.release(key)
        continue
      }
      lease.busy = true
      this.kv
        .update(leaseKeyOf(key), this.value, lease.revision)
        .then((revision) => {
          lease.revision = revision
        })
        .catch((e: unknown) => this.lost(key, e))
        .finally(() => {
          lease.busy = false
        })
    }
    // A room whose owner is a live node that says so is left alone: a `create` that must fail
    // costs two JetStream requests (the client reads the key after the refusal). When the owner
    // dies it is forgotten after leaseTtlMs of silence, its key lapses as long after its last
    // renewal, and the next tick takes the room; when it lets the room go, its unit says so.
    for (const key of this.host.rooms()) if (!this.leases.has(key) && !this.host.ownedByPeer(key)) void this.acquire(key)
  }

  /** Take the room's lease if nobody holds it; true when this node holds it after. */
  async acquire(key: string): Promise<boolean> {
    if (this.leases.has(key)) return true
    if (this.acquiring.has(key) || this.link.stopped) return false
    this.acquiring.add(key)
    try {
      const revision = await this.kv.create(leaseKeyOf(key), this.value)
      this.leases.set(key, { revision, acquiredAt: this.link.o.clock.now(), busy: false })
      const [ws, room] = splitKey(key)
      this.link.o.log.info({ nodeId: this.link.nodeId, workspaceId: ws, room }, 'cluster: room owner')
      this.host.changed(key, true)
      return true
    } catch {
      return false
    } finally {
      this.acquiring.delete(key)
    }
  }

  /** The node holding the room's lease in the bucket (this one included); null when nobody does. */
  async holder(key: string): Promise<string | null> {
    let entry
    try {
      entry = await this.kv.get(leaseKeyOf(key))
    } catch (e) {
      throw new ClusterUnavailable({ message: `room owner unknown: ${(e as Error).message}` })
    }
    return entry && entry.operation === 'PUT' ? entry.json<{ node: string }>().node : null
  }

  private lost(key: string, e: unknown): void {
    if (!this.leases.delete(key)) return
    const [ws, room] = splitKey(key)
    this.link.o.log.warn({ nodeId: this.link.nodeId, workspaceId: ws, room, err: e }, 'cluster: lost the room lease')
    this.host.changed(key, false)
  }

  /** Let the room go (this node has no member left in it). */
  async release(key: string): Promise<void> {
    const lease = this.leases.get(key)
    if (!lease) return
    this.leases.delete(key)
    this.host.changed(key, false)
    await this.kv.delete(leaseKeyOf(key), { previousSeq: lease.revision }).catch(() => {})
  }

  /** Let every room go (a graceful stop: the others take them on their next tick). */
  async stop(): Promise<void> {
    const held = [...this.leases]
    this.leases.clear()
    await Promise.all(held.map(([key, lease]) => this.kv.delete(leaseKeyOf(key), { previousSeq: lease.revision }).catch(() => {})))
  }
}
