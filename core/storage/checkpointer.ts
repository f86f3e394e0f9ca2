/**
 * WAL checkpoints off the engine's thread. In WAL mode SQLite copies the log's pages back into the
 * database file (a checkpoint: the copy, then an fsync of each file) inside the commit that takes
 * the log past 1000 pages — on whatever thread made that commit. On the engine's thread that was a
 * 4–10 ms stall of the event loop every ~1000 pages written (a usage row, a batch of webhook
 * events), audio frames and connects waiting behind a disk flush (`node dist/bench/webhookOutboxCost.js`
 * counts the slow commits either way).
 *
 * With `storage.walCheckpointMs` > 0 (the default) on a local file, the engine's connection stops
 * checkpointing (`wal_autocheckpoint = 0`) and a thread of its own (checkpointThread.ts, at a lower
 * priority) checkpoints every walCheckpointMs when something was written. The engine starts that
 * thread once the log holds LAZY_START_PAGES (`startOnWrites`): an engine that writes little runs none.
 *
 * The log starts over (is written from its start again) only when a commit begins with all of it
 * copied. SQLite's own checkpoints ensure that by running in the committing connection; one on
 * another thread races the engine's next commit, and under steady writes it would lose every time
 * while the log grew without end (750 MB in 3 s of a synthetic write storm, measured). So once the
 * log holds RESTART_PAGES the thread catches up (passes back to back until one finds nothing new:
 * if the engine pauses then, its next commit starts the log over, no work on its thread); and when
 * a tick's last pass leaves the log past RESTART_ANYWAY_FACTOR × RESTART_PAGES (the engine never
 * paused), the engine copies what came since that pass itself (PASSIVE, a few pages usually) and
 * its next commit starts the log over. Its file is cut back to that size when it starts over
 * (journal_size_limit).
 *
 * If the thread dies, the engine's connection takes checkpoints back at once (SQLite's default)
 * and says so in the log. A libSQL server's replica is left alone (its log belongs to libSQL's
 * sync), and so are other processes on the file (the CLI checkpoints its own commits).
 */
import { statSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import { threadEntry } from '../agentRuntime/isolation/modules.js'
import type { Logger } from '../log.js'
import {
  CHECKPOINT_THREAD_NICE,
  type CheckpointBoot,
  type FromCheckpointThread,
  type ToCheckpointThread,
} from './checkpointProtocol.js'
import type { StorageShape } from './storage.js'

/** How long a stopping thread may take to finish a checkpoint under way before it is terminated. */
const STOP_GRACE_MS = 5000

/** SQLite's own default, which the engine's connection goes back to without the thread. */
export const SQLITE_AUTOCHECKPOINT_PAGES = 1000
/** The log's size (pages of 4 KB: 16 MB) from which the thread catches up so that it can start over (checkpointThread.ts)… */
export const RESTART_PAGES = 4096
/** …and this many times that (64 MB), reported by a pass, from which the engine copies the rest itself. */
export const RESTART_ANYWAY_FACTOR = 4
/**
 * `startOnWrites`: the thread starts once the log's file holds this many pages (1 MB), well before
 * SQLite's own checkpoint (SQLITE_AUTOCHECKPOINT_PAGES) would run on the engine's thread.
 */
export const LAZY_START_PAGES = 256
/** The log's file is cut back to this once it starts over (SQLite leaves it at its longest). */
const WAL_FILE_LIMIT_BYTES = RESTART_PAGES * RESTART_ANYWAY_FACTOR * 4096

export interface CheckpointerOptions {
  readonly intervalMs: number
  readonly log: Logger
  readonly metrics?: Registry
  /** The thread's entry module (tests). Default: checkpointThread. */
  readonly entry?: URL
  /** Default RESTART_PAGES (tests: smaller). */
  readonly restartPages?: number
}

export interface CheckpointReport {
  /** Pages in the log when it ran, and how many of them are now in the database file. */
  readonly log: number
  readonly checkpointed: number
  readonly ms: number
}


export class BackgroundCheckpoints {
  private thread: Worker | null = null
  private stopping = false
  /** startOnWrites' look at the log's size, until the thread starts. */
  private waiting: ReturnType<typeof setInterval> | null = null
  private readonly listeners = new Set<(r: CheckpointReport) => void>()
  private readonly fallbackListeners = new Set<() => void>()
  private readonly count: Counter | null
  private readonly seconds: Histogram | null
  private readonly pages: Gauge | null
  private readonly ended: Counter | null
  private readonly restarts: Counter | null
  private readonly ticks = new Map<number, (ran: boolean) => void>()
  private tickSeq = 0

  private readonly restartPages: number

  constructor(
    private readonly storage: StorageShape,
    private readonly options: CheckpointerOptions,
  ) {
    this.restartPages = options.restartPages ?? RESTART_PAGES
    const registers = options.metrics ? [options.metrics] : null
    const counter = (name: string, help: string) => (registers ? new Counter({ name, help, registers }) : null)
    this.count = counter('hark_storage_checkpoints_total', 'WAL checkpoints run by the background checkpoint thread')
    this.seconds = registers
      ? new Histogram({
          name: 'hark_storage_checkpoint_seconds',
          help: "Duration of each background WAL checkpoint (its copy and fsyncs, on the checkpoint thread: the engine's thread does not wait for it)",
          buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
          registers,
        })
      : null
    this.pages = registers
      ? new Gauge({ name: 'hark_storage_wal_pages', help: 'Pages in the WAL at the last background checkpoint', registers })
      : null
    this.restarts = counter(
      'hark_storage_wal_restarts_total',
      "Times the engine's connection copied the WAL itself because a checkpoint thread's tick ended with the log past its cap (writes without the pause the thread needs)",
    )
    this.ended = counter(
      'hark_storage_checkpoint_thread_ended_total',
      "Checkpoint threads that ended unexpectedly (the engine's connection then checkpoints itself, as SQLite does by default)",
    )
  }

  /**
   * The engine's connection stops checkpointing now; the thread starts once the log's file holds
   * LAZY_START_PAGES (looked at every intervalMs), so an engine that writes little runs no thread
   * (a worker thread's heap and libSQL: ~13 MB of RSS, issue 39). A thread that cannot start
   * gives the checkpoints back to the engine's connection, as with start().
   */
  startOnWrites(): void {
    if (this.thread || this.waiting) throw new Error('checkpoint thread already started')
    this.storage.db.exec('PRAGMA wal_autocheckpoint = 0')
    const wal = `${this.storage.file}-wal`
    this.waiting = setInterval(() => {
      let bytes = 0
      try {
        bytes = statSync(wal).size
      } catch {
        return // no log yet
      }
      if (bytes < LAZY_START_PAGES * 4096 || this.stopping) return
      this.stopWaiting()
      this.start().catch((e: unknown) => this.options.log.warn({ err: e }, "no checkpoint thread: the engine's own commits checkpoint the WAL (SQLite's default)"))
    }, this.options.intervalMs)
    this.waiting.unref()
  }

  private stopWaiting(): void {
    if (this.waiting !== null) clearInterval(this.waiting)
    this.waiting = null
  }

  /** Start the thread; resolves once it has opened the file. The engine's connection stops checkpointing now. */
  start(): Promise<void> {
    if (this.thread) throw new Error('checkpoint thread already started')
    this.stopWaiting()
    const boot: CheckpointBoot = {
      file: this.storage.file,
      intervalMs: this.options.intervalMs,
      restartPages: this.restartPages,
      nice: CHECKPOINT_THREAD_NICE,
    }
    this.storage.db.exec('PRAGMA wal_autocheckpoint = 0')
    this.storage.db.exec(`PRAGMA journal_size_limit = ${WAL_FILE_LIMIT_BYTES}`)
    const thread = new Worker(this.options.entry ?? threadEntry(import.meta.url, 'checkpointThread'), { workerData: boot })
    this.thread = thread
    // The engine's stop ends it; it must never be what keeps a process alive.
    thread.unref()
    return new Promise<void>((resolve, reject) => {
      let ready = false
      thread.on('message', (m: FromCheckpointThread) => {
        if (m.t === 'ready') {
          ready = true
          resolve()
        } else if (m.t === 'checkpoint') this.checkpointed(m)
        else if (m.t === 'ticked') {
          this.ticks.get(m.id)?.(m.ran)
          this.ticks.delete(m.id)
        } else this.options.log.warn({ reason: m.message }, 'background WAL checkpoint failed; retrying at the next tick')
      })
      thread.on('error', (e) => {
        if (!ready) {
          this.takeBack()
          reject(e)
        } else this.options.log.error({ err: e }, 'checkpoint thread failed')
      })
      thread.on('exit', (code) => {
        if (this.thread === thread) this.thread = null
        // Ticks asked of it get no answer now: none ran.
        for (const answer of this.ticks.values()) answer(false)
        this.ticks.clear()
        if (!ready) {
          this.takeBack()
          reject(new Error(`checkpoint thread exited (code ${code}) before it was ready`))
          return
        }
        if (this.stopping) return
        this.ended?.inc()
        this.takeBack()
        this.options.log.warn({ code }, "checkpoint thread ended: the engine's own commits checkpoint the WAL again")
        for (const l of this.fallbackListeners) l()
      })
    })
  }

  private checkpointed(m: Extract<FromCheckpointThread, { t: 'checkpoint' }>): void {
    this.count?.inc()
    this.seconds?.observe(m.ms / 1000)
    this.pages?.set(Math.max(0, m.log))
    const report = { log: m.log, checkpointed: m.checkpointed, ms: m.ms }
    for (const l of this.listeners) l(report)
    // After the tick's last pass (the thread is idle till the next one: one checkpointer at a time).
    if (m.last && m.log >= this.restartPages * RESTART_ANYWAY_FACTOR) this.restart(m.log)
  }

  /**
   * On the engine's connection: copy what came since the thread's last pass (and fsync), so that
   * the next commit finds the log all copied and starts it over, as SQLite's own checkpoints do —
   * only when a tick of the thread ended with the log past the cap (the engine wrote without the
   * pause a pass needs). Not inside a transaction: this runs from the thread's message, between
   * the engine's turns.
   */
  private restart(log: number): void {
    if (this.stopping) return
    const began = performance.now()
    try {
      // PASSIVE: never waits (RESTART would wait for every reader, a CLI's long read included).
      const [r] = this.storage.db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>
      // busy: the thread's next tick began meanwhile; the last report of that tick tries again.
      if (r && r.busy === 0) this.restarts?.inc()
      this.options.log.debug({ log, busy: r?.busy, left: r ? r.log - r.checkpointed : null, ms: performance.now() - began }, 'WAL copied to its end: the next commit starts it over')
    } catch (e) {
      this.options.log.warn({ err: e }, 'WAL checkpoint before a restart failed')
    }
  }

  /** The engine's connection checkpoints again (SQLite's default). */
  private takeBack(): void {
    try {
      this.storage.db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`)
    } catch (e) {
      // The storage is closing: nothing left to checkpoint for.
      this.options.log.debug({ err: e }, 'could not restore wal_autocheckpoint')
    }
  }

  /** Hear each checkpoint the thread ran (tests, tools). Returns the unsubscribe function. */
  onCheckpoint(listener: (r: CheckpointReport) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Hear the thread end unexpectedly (the engine's connection has taken checkpoints back by then). */
  onFallback(listener: () => void): () => void {
    this.fallbackListeners.add(listener)
    return () => this.fallbackListeners.delete(listener)
  }

  /**
   * Have the thread tick now, besides its timer (tests): resolves with whether it ran a checkpoint
   * (something was written since its last one), after that checkpoint's report.
   */
  tickNow(): Promise<boolean> {
    const thread = this.thread
    if (!thread) return Promise.reject(new Error('the checkpoint thread is not running'))
    const id = ++this.tickSeq
    return new Promise<boolean>((resolve) => {
      this.ticks.set(id, resolve)
      thread.postMessage({ t: 'tick', id } satisfies ToCheckpointThread)
    })
  }

  /** The thread, while it runs (tests end it to see the fallback). */
  get running(): Worker | null {
    return this.thread
  }

  /**
   * End the thread (a checkpoint under way finishes first; one stuck past STOP_GRACE_MS is cut
   * short); the engine's connection checkpoints again, and closing storage truncates the log.
   */
  async stop(): Promise<void> {
    this.stopping = true
    this.stopWaiting()
    const thread = this.thread
    this.thread = null
    if (thread) {
      const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()))
      thread.postMessage({ t: 'stop' } satisfies ToCheckpointThread)
      const grace = setTimeout(() => void thread.terminate(), STOP_GRACE_MS)
      await exited
      clearTimeout(grace)
    }
    this.takeBack()
  }
}
