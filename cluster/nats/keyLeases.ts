/**
 * Leases on named work in a NATS KV bucket, the same mechanism as the room leases (roomLeases.ts): a
 * key's value names its holder, the bucket's `max_age` is the lease TTL, the holder renews with
 * `update(key, value, revision)` every tick (TTL/3), and a node that wants a key tries `create`
 * on every tick, which succeeds only once the key is gone (released, or expired after its holder
 * fell silent). A failed renewal means the key was lost (it expired and someone took it).
 * Driven by the node's tick on the engine clock; no timers of its own.
 */
import type { KV } from '@nats-io/kv'
import type { Leases } from '../../core/leases.js'
import type { Logger } from '../../core/log.js'

interface Held {
  revision: number
  busy: boolean
}

export class KeyLeases implements Leases {
  readonly shared = true
  private readonly held = new Map<string, Held>()
  private readonly wanted = new Set<string>()
  private readonly trying = new Set<string>()
  private readonly listeners = new Set<(key: string, held: boolean) => void>()
  private stopped = false

  constructor(
    private kv: KV,
    private readonly nodeId: string,
    private readonly log: Logger,
    private readonly what: string,
  ) {}

  /** The bucket again (after a NATS reconnect that may have lost it). */
  reopen(kv: KV): void {
    this.kv = kv
  }

  holds(key: string): boolean {
    return this.held.has(key)
  }

  want(key: string): void {
    if (this.stopped || this.wanted.has(key)) return
    this.wanted.add(key)
    void this.acquire(key)
  }

  drop(key: string): void {
    this.wanted.delete(key)
    const lease = this.held.get(key)
    if (!lease) return
    this.held.delete(key)
    this.tell(key, false)
    void this.kv.delete(key, { previousSeq: lease.revision }).catch(() => {})
  }

  onChange(listener: (key: string, held: boolean) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Renew what is held, try what is wanted. */
  tick(): void {
    if (this.stopped) return
    for (const [key, lease] of this.held) {
      if (lease.busy) continue
      lease.busy = true
      this.kv
        .update(key, this.value(), lease.revision)
        .then((revision) => {
          lease.revision = revision
        })
        .catch((e: unknown) => {
          if (this.held.get(key) !== lease) return
          this.held.delete(key)
          this.log.warn({ nodeId: this.nodeId, key, err: e }, `cluster: lost the ${this.what} lease`)
          this.tell(key, false)
        })
        .finally(() => {
          lease.busy = false
        })
    }
    for (const key of this.wanted) if (!this.held.has(key)) void this.acquire(key)
  }

  /** Let every key go (a graceful stop: the others take them on their next tick). */
  async stop(): Promise<void> {
    this.stopped = true
    const held = [...this.held]
    this.held.clear()
    this.wanted.clear()
    await Promise.all(held.map(([key, lease]) => this.kv.delete(key, { previousSeq: lease.revision }).catch(() => {})))
  }

  private value(): Uint8Array {
    return Buffer.from(JSON.stringify({ node: this.nodeId }))
  }

  private async acquire(key: string): Promise<void> {
    if (this.held.has(key) || this.trying.has(key) || this.stopped) return
    this.trying.add(key)
    try {
      const revision = await this.kv.create(key, this.value())
      if (this.stopped || !this.wanted.has(key)) {
        await this.kv.delete(key, { previousSeq: revision }).catch(() => {})
        return
      }
      this.held.set(key, { revision, busy: false })
      this.log.info({ nodeId: this.nodeId, key }, `cluster: ${this.what} lease taken`)
      this.tell(key, true)
    } catch {
      // Held by another node (or NATS is away): tried again on the next tick.
    } finally {
      this.trying.delete(key)
    }
  }

  private tell(key: string, held: boolean): void {
    for (const listener of this.listeners) {
      try {
        listener(key, held)
      } catch (e) {
        this.log.error({ err: e, key }, 'cluster: a lease listener failed')
      }
    }
  }
}
