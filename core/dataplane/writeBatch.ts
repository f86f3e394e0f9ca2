/**
 * Batching each connection's writes, for every transport. Frames and events for a connection are
 * queued as they are produced and written together — inside `ws.cork` for WebSocket, as one
 * socket write for MQTT — so many messages leave in one TLS record and one syscall. This is what
 * keeps a JS fan-out near a native pub/sub: a write per message costs one syscall per receiver
 * per frame.
 *
 * When: by default at the end of the event-loop turn that queued them (`setImmediate` runs in the
 * check phase, right after the poll phase where the transport read this turn's input), which adds
 * no latency. A batch with a latency budget (`delayMs` > 0) waits up to that long after the first
 * item of a window was queued, so a receiver of several talkers gets their frames in one write
 * even when the engine is idle enough to see one frame per turn (what must not wait goes in a
 * second batch without a budget: MQTT's control packets, transports/mqtt/connection.ts). The
 * budget is real time on purpose: it bounds the latency of real I/O, not control logic.
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
  /** A run is scheduled: at the end of this turn (`now`) or when the budget's timer fires. */
  private immediate = false
  private timed = false
  /** One timer for the whole batch, re-armed with `refresh()` (no allocation per window). */
  private timer: NodeJS.Timeout | null = null
  /** Turns (runs) flushed and items written, for the bench and tests. */
  turns = 0
  flushed = 0

  /**
   * @param delayMs the latency budget: how long the first item queued in a window may wait for
   *   others (0 = flush at the end of the turn).
   * @param onError told of an item whose `flush` threw; the run goes on with the next item. Without
   *   it, the first error is thrown again once every item of the run was flushed.
   */
  constructor(
    readonly delayMs = 0,
    private readonly onError?: (error: unknown) => void,
  ) {}

  /** Queue `item` for the end of this turn, or within the budget (no-op when already queued). */
  add(item: Flushable): void {
    if (item.queued) return
    item.queued = true
    this.waiting.push(item)
    if (this.immediate || this.timed) return
    if (this.delayMs === 0) {
      this.immediate = true
      setImmediate(this.runNow)
      return
    }
    this.timed = true
    if (this.timer === null) this.timer = setTimeout(this.runTimed, this.delayMs).unref()
    else this.timer.refresh()
  }

  /** Stop the budget's timer (the transport stops); what is queued is dropped with its connections. */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.timed = false
  }

  private readonly runNow = (): void => {
    this.immediate = false
    this.run()
  }

  private readonly runTimed = (): void => {
    this.timed = false
    this.run()
  }

  /**
   * Flush every item queued, each once. An item whose `flush` throws does not stop the others, and
   * none stays marked queued (which would keep it out of every later batch): the array is handed
   * back and the flags cleared whatever happens.
   */
  private run(): void {
    const items = this.waiting
    if (items.length === 0) return
    this.waiting = this.spare
    this.turns++
    this.flushed += items.length
    let failed = false
    let first: unknown
    let i = 0
    try {
      for (; i < items.length; i++) {
        const item = items[i]!
        item.queued = false
        try {
          item.flush()
        } catch (e) {
          if (this.onError !== undefined) this.onError(e)
          else if (!failed) {
            failed = true
            first = e
          }
        }
      }
    } finally {
      // Only when onError itself threw: the items after that one are not flushed, but not wedged.
      for (let j = i + 1; j < items.length; j++) items[j]!.queued = false
      items.length = 0
      this.spare = items
    }
    if (failed) throw first
  }
}
