/**
 * Write batching of the delivery worker (delivery.ts): attempt outcomes, and the endpoint writes
 * that go with them (health.ts), are written together in one transaction, at most RECORD_BATCH_MS
 * (real time) after the first waits, or at once when RECORD_BATCH_MAX wait or the worker goes
 * idle. A transaction per attempt would cost more than the attempt. An outcome lost to a crash
 * means the attempt is made again (at least once: receivers deduplicate on webhook-id); no event
 * is lost.
 */
import type { Logger } from '../../core/log.js'
import type { StorageShape } from '../../core/storage/storage.js'
import type { AttemptOutcome } from '../../core/storage/webhookOutbox.js'

const RECORD_BATCH_MS = 50
const RECORD_BATCH_MAX = 64

export class AttemptRecords {
  /** Outcomes not yet handed to storage, by delivery (the latest wins). */
  private outcomes = new Map<number, AttemptOutcome>()
  private writes: Array<() => void> = []
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly storage: StorageShape,
    private readonly log: Logger,
  ) {}

  /** Queue an outcome's write, and another write (`write`) that goes with it. */
  record(id: number, outcome: AttemptOutcome, write: (() => void) | null): void {
    this.outcomes.set(id, outcome)
    if (write) this.writes.push(write)
    if (this.outcomes.size >= RECORD_BATCH_MAX) void this.flush()
    else if (this.timer === undefined) {
      // Real time: this bounds how long I/O is batched, it is no control-plane timer.
      this.timer = setTimeout(() => void this.flush(), RECORD_BATCH_MS)
      this.timer.unref()
    }
  }

  /** Write what is queued now; resolves once written (a failure is logged). */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const outcomes = this.outcomes
    const writes = this.writes
    if (outcomes.size === 0 && writes.length === 0) return Promise.resolve()
    this.outcomes = new Map()
    this.writes = []
    return this.storage
      .batch(() => {
        this.storage.webhookOutbox.recordAttempts(outcomes)
        for (const write of writes) write()
      })
      .catch((e: unknown) => this.log.error({ err: e, writes: outcomes.size + writes.length }, 'recording webhook attempts failed'))
  }
}
