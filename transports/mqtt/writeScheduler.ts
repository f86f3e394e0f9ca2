/**
 * Batches socket writes per event-loop turn. Connections that queued bytes during the turn are
 * listed once; a single setImmediate (after all I/O callbacks of the turn) flushes each of them
 * with one socket write. Many small PUBLISH packets to one socket thus cost one syscall per turn.
 */

export interface Flushable {
  /** True while the connection is on the list (set and cleared by the scheduler). */
  flushScheduled: boolean
  flush(): void
}

export class WriteScheduler {
  private dirty: Flushable[] = []
  private scheduled = false

  /** Flush `c` at the end of this turn. */
  mark(c: Flushable): void {
    if (c.flushScheduled) return
    c.flushScheduled = true
    this.dirty.push(c)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flushAll)
    }
  }

  private readonly flushAll = (): void => {
    this.scheduled = false
    const list = this.dirty
    this.dirty = []
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!
      c.flushScheduled = false
      c.flush()
    }
  }
}
