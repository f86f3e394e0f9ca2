/**
 * Batching each connection's writes per event-loop turn, for every transport. Frames and events
 * for a connection are queued as they are produced (while the transport runs the I/O callbacks of
 * one poll phase) and written once per turn — inside `ws.cork` for WebSocket, as one socket write
 * for MQTT — so many messages leave in one TLS record and one syscall. This is what keeps a JS
 * fan-out near a native pub/sub: a write per message costs one syscall per receiver per frame.
 */

/** Something with writes waiting; `flush` writes them (and may queue itself again later). */
export interface Flushable {
  /** True while the item is in the batch (set by the batch, cleared before `flush` runs). */
  queued: boolean
  flush(): void
}

export class WriteBatch {
  private waiting: Flushable[] = []
  private spare: Flushable[] = []
  private scheduled = false
  /** Turns flushed and items written, for the bench and tests. */
  turns = 0
  flushed = 0

  /** Queue `item` for the end of this turn (no-op when already queued). */
  add(item: Flushable): void {
    if (item.queued) return
    item.queued = true
    this.waiting.push(item)
    if (!this.scheduled) {
      this.scheduled = true
      // setImmediate runs in the check phase, right after the poll phase where uWS delivered
      // this turn's messages: one flush covers everything they produced.
      setImmediate(this.run)
    }
  }

  private readonly run = (): void => {
    this.scheduled = false
    const items = this.waiting
    this.waiting = this.spare
    this.turns++
    this.flushed += items.length
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!
      item.queued = false
      item.flush()
    }
    items.length = 0
    this.spare = items
  }
}
