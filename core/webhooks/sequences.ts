/**
 * Per-resource sequence numbers of webhook events. Two ways to hand them out, one record:
 * webhook_sequences holds each resource's last number as of a delivery (the fold, migration 10);
 * a delivery past the fold may carry a newer one.
 *
 *   - `TableSequences` (the CLI, and every node on a libSQL server): fold, then one upsert per 64
 *     resources that returns the numbers — every call writes the table;
 *   - `CachedSequences` (the engine on its own file): numbers from memory, checked once a
 *     transaction; the table is written only by a fold every FOLD_EVERY_MS (a slice of resources
 *     a transaction) and at shutdown. An upsert per resource and transaction dirtied a
 *     page of the table for nearly every event of a connect storm (its resources are random
 *     keys): a quarter of the bytes the outbox wrote and ~8 µs an event on the engine's thread.
 *
 * Why memory is safe: the numbers it holds are read back from the database whenever another
 * connection has committed since (`PRAGMA data_version`: a CLI's write folds and numbers in the
 * table) and whenever its own last reservation is not in the table (its transaction rolled back);
 * read back means the highest number on the deliveries past the fold, else the table's. A crash
 * loses nothing: the deliveries past the fold are the record, and prune leaves them.
 */
import type { StorageShape } from '../storage/storage.js'

export interface SequenceWanted {
  readonly workspaceId: string
  readonly resource: string
  readonly n: number
}

/** The first of the `n` numbers reserved for each wanted resource, keyed `workspaceId NUL resource`. */
export type SequenceFirsts = Map<string, number>

export interface SequenceNumbers {
  /** In the events' transaction: reserve `n` numbers for each resource. */
  reserve(wanted: ReadonlyArray<SequenceWanted>): SequenceFirsts
  /** In the same transaction, once its deliveries are written: the last of them (internal id, delivery id). */
  written(lastId: number, lastDeliveryId: string): void
  /** Write what memory holds into the table at once (shutdown; tests). */
  fold(): void
}

export const sequenceKey = (workspaceId: string, resource: string) => `${workspaceId}\u0000${resource}`

/** Every writer's numbers through the table (the CLI; nodes sharing a libSQL server). */
export class TableSequences implements SequenceNumbers {
  constructor(private readonly storage: StorageShape) {}

  reserve(wanted: ReadonlyArray<SequenceWanted>): SequenceFirsts {
    return this.storage.webhookOutbox.reserveSequences(wanted)
  }

  written(): void {}

  fold(): void {}
}

/** How often the engine folds its numbers into the table (real time), when it handed out any. */
export const FOLD_EVERY_MS = 30_000
/**
 * Resources a fold writes per transaction, one transaction a turn: a fold of a busy half-minute
 * (thousands of resources) never holds the engine's thread for long.
 */
export const FOLD_SLICE = 256
/** Resources held in memory before a fold forgets them (each is read back from the table when next used). */
export const CACHE_MAX = 100_000

export class CachedSequences implements SequenceNumbers {
  /** The last number handed out, per resource. */
  private readonly last = new Map<string, number>()
  /** Resources whose number in memory may be ahead of the table's. */
  private dirty = new Set<string>()
  /** data_version when memory was last known to match the database; null: read it back. */
  private version: number | null = null
  /** data_version of the reservation under way, until its deliveries are written. */
  private reserving: number | null = null
  /** The last delivery of the last reservation: not in the table = rolled back. */
  private check: { id: number; deliveryId: string } | null = null
  /** A fold under way: the numbers as they were when it began, and the last delivery then. */
  private folding: { entries: Array<[string, number]>; next: number; through: number } | null = null

  constructor(private readonly storage: StorageShape) {}

  /** In a transaction: make memory match the database, reading the numbers back when it may not. */
  private validate(): number {
    const outbox = this.storage.webhookOutbox
    const version = this.storage.changes.dataVersion()
    if (version !== this.version || (this.check !== null && !outbox.deliveryThere(this.check.id, this.check.deliveryId))) {
      this.last.clear()
      this.dirty = new Set()
      for (const r of outbox.numberedSinceFold()) {
        const key = sequenceKey(r.workspace_id, r.resource)
        this.last.set(key, r.seq)
        this.dirty.add(key)
      }
      this.version = version
      this.check = null
    }
    return version
  }

  reserve(wanted: ReadonlyArray<SequenceWanted>): SequenceFirsts {
    const outbox = this.storage.webhookOutbox
    const version = this.validate()
    // Until its deliveries are written, the reservation may yet roll back: memory is not trusted.
    this.version = null
    this.reserving = version
    // Resources not in memory: read from the table, one statement per workspace.
    const missing = new Map<string, string[]>()
    for (const w of wanted) {
      if (this.last.has(sequenceKey(w.workspaceId, w.resource))) continue
      const list = missing.get(w.workspaceId)
      if (list) list.push(w.resource)
      else missing.set(w.workspaceId, [w.resource])
    }
    for (const [workspaceId, resources] of missing) {
      for (const resource of resources) this.last.set(sequenceKey(workspaceId, resource), 0)
      for (const r of outbox.storedSequences(workspaceId, resources)) this.last.set(sequenceKey(workspaceId, r.resource), r.seq)
    }
    const first: SequenceFirsts = new Map()
    for (const w of wanted) {
      const key = sequenceKey(w.workspaceId, w.resource)
      const last = this.last.get(key)!
      this.last.set(key, last + w.n)
      this.dirty.add(key)
      first.set(key, last + 1)
    }
    return first
  }

  written(lastId: number, lastDeliveryId: string): void {
    this.version = this.reserving
    this.check = { id: lastId, deliveryId: lastDeliveryId }
  }

  /** True when memory holds numbers the table has not. */
  get due(): boolean {
    return this.dirty.size > 0 || this.folding !== null
  }

  /**
   * A step's transaction rolled back (its slice, perhaps the move of the fold, are not in the
   * table): drop the fold, and read the numbers back before the next use — everything past the
   * fold is then to be folded again.
   */
  abortFold(): void {
    this.folding = null
    this.version = null
  }

  /**
   * One transaction of a fold (the caller's): the first begins it — the numbers in memory then,
   * and the last delivery then — each writes FOLD_SLICE resources, the last moves the fold to that
   * delivery. Returns true while there is more to do. Every delivery up to it has its number in
   * the table then: one of the engine's was in memory (or read back) when the fold began, one of
   * another connection's was folded by it in its own transaction.
   */
  foldStep(): boolean {
    const outbox = this.storage.webhookOutbox
    if (this.folding === null) {
      if (this.dirty.size === 0) return false
      this.validate()
      this.folding = { entries: [...this.dirty].map((key) => [key, this.last.get(key)!]), next: 0, through: outbox.lastId() }
      this.dirty = new Set()
    }
    const f = this.folding
    const slice = f.entries.slice(f.next, f.next + FOLD_SLICE)
    outbox.storeSequences(slice.map(([key, seq]) => {
      const [workspaceId, resource] = key.split('\u0000') as [string, string]
      return { workspaceId, resource, seq }
    }))
    f.next += slice.length
    if (f.next < f.entries.length) return true
    outbox.foldThrough(f.through)
    this.folding = null
    // Everything in memory is in the table now, unless numbered since the fold began: past
    // CACHE_MAX, the rest is forgotten (read from the table when next used).
    if (this.last.size > CACHE_MAX) for (const key of this.last.keys()) if (!this.dirty.has(key)) this.last.delete(key)
    return false
  }

  /** At once, in one transaction (shutdown): every number past the fold into the table. */
  fold(): void {
    if (this.dirty.size === 0 && this.folding === null) return
    this.storage.webhookOutbox.foldSequences()
    this.dirty = new Set()
    this.folding = null
  }
}
