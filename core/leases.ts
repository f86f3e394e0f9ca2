/**
 * Leases on named pieces of work (today: a webhook endpoint's delivery lanes), so that in a
 * cluster one node at a time does the work and another takes over when it dies
 * (spec/cluster.md, Webhook delivery). An extension receives them as `services.leases`.
 *
 * On a single node (no `cluster.natsUrl`) every key is held, always, and nothing ever changes:
 * the work runs exactly as it did before clusters existed. In a cluster the engine attaches the
 * node's leases (on NATS: KV leases, cluster/nats/keyLeases.ts) before any plugin starts.
 */

export interface Leases {
  /** False on a single node: every key is held, `want` and `drop` do nothing, no change is ever told. */
  readonly shared: boolean
  /** True while this process may do the work of `key`. */
  holds(key: string): boolean
  /** Try to hold `key` now and, until it is held or dropped, on every lease tick. */
  want(key: string): void
  /** Stop wanting `key`, and let it go if held (the work is gone, e.g. its endpoint was deleted). */
  drop(key: string): void
  /** Hear a key gained (`held` true) or lost. Returns the unsubscribe function. */
  onChange(listener: (key: string, held: boolean) => void): () => void
}

/** Every key held: one process does all the work. */
export const soleLeases: Leases = {
  shared: false,
  holds: () => true,
  want: () => undefined,
  drop: () => undefined,
  onChange: () => () => undefined,
}

/** The engine's leases: the sole ones until a cluster node attaches its own. */
export class EngineLeases implements Leases {
  private inner: Leases = soleLeases

  attach(leases: Leases): void {
    this.inner = leases
  }

  get shared(): boolean {
    return this.inner.shared
  }

  holds(key: string): boolean {
    return this.inner.holds(key)
  }

  want(key: string): void {
    this.inner.want(key)
  }

  drop(key: string): void {
    this.inner.drop(key)
  }

  onChange(listener: (key: string, held: boolean) => void): () => void {
    return this.inner.onChange(listener)
  }
}
