/**
 * The usage meter: opens a usage session when a workspace actor admits a terminal and closes it
 * when the session ends (it hears both from the actors' `session.opened` / `session.ended`), with
 * a checkpoint of every open session every `checkpointMs` (5 s) on the engine's clock, so
 * a crash loses at most that much metered time. Sessions a dead process left open are closed at
 * their last checkpoint and folded exactly once. Agents never pass through the hub's terminal
 * sessions, so they are never metered. Nothing here runs per audio frame.
 *
 * Opens and closes are written by group commit: those of one event-loop turn go into one
 * transaction at its end (setImmediate), and while they wait the hub's introduction gate holds
 * back new sessions' `session` events, so a terminal still hears `session` only after its row is
 * committed. A crash before the commit loses what it would have lost before the turn's writes:
 * sessions nobody heard of, and closes that recovery makes at the last checkpoint.
 * Under a storm a turn holds about one connect (each TLS handshake and upgrade is its own
 * callback), so a commit per turn was a commit per row: after a commit the next waits until
 * `usage.groupCommitMs` (4 ms) have passed, gathering the writes of every turn in between (a fleet's reconnect
 * wrote 10k rows in ~9k transactions before). A write after a quiet spell still commits at the
 * end of its own turn.
 */
import { hostname } from 'node:os'
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { Clock, type ClockShape, type Timer } from '../clock.js'
import { EngineSettings } from '../config.js'
import { StorageUnavailable } from '../errors.js'
import { Log, type Logger } from '../log.js'
import type { UsageSessionRecord } from '../storage/usage.js'
import { Storage, type StorageShape } from '../storage/storage.js'
import { Terminals, type TerminalHub } from '../terminals.js'

export const CHECKPOINT_MS = 5000

/** The least time between two group commits (real milliseconds; `usage.groupCommitMs`): bounds what a storm adds to a `session` event. */
export const GROUP_COMMIT_MS = 4

/** Is the process that owned `node` (host:pid:random) certainly gone? Only provable on this host. */
const nodeIsDead = (node: string): boolean => {
  const [host, pid] = node.split(':')
  if (host !== hostname() || !pid) return false
  try {
    process.kill(Number(pid), 0)
    return false
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

type UsageOpen = Omit<UsageSessionRecord, 'endedAt' | 'checkpointAt'>
type UsageWrite = { readonly open: UsageOpen } | { readonly close: string; readonly at: number }

export class UsageMeter {
  private timer: Timer | undefined
  private unsubscribe: Array<() => void> = []
  /**
   * Opens and closes not written yet because the database primary (a libSQL server) was
   * unreachable: written, with their own instants, at the next checkpoint that reaches it.
   */
  private readonly unopened = new Map<string, UsageOpen>()
  private readonly unclosed = new Map<string, number>()
  /** The opens and closes since the last commit, in order, for the next group commit. */
  private pending: UsageWrite[] = []
  private flushing: { readonly cancel: () => void } | undefined
  /** performance.now() at the last group commit. */
  private flushedAt = -Infinity
  /** Rows written and transactions used for them (a group commit is one; a checkpoint's catch-up another). */
  readonly written = { rows: 0, transactions: 0 }

  constructor(
    private readonly storage: StorageShape,
    private readonly clock: ClockShape,
    private readonly hub: TerminalHub,
    private readonly log: Logger,
    private readonly checkpointMs = CHECKPOINT_MS,
    private readonly groupCommitMs = GROUP_COMMIT_MS,
  ) {}

  start(): void {
    this.recover()
    this.unsubscribe = [
      this.hub.on('session.opened', ({ session: s }) => {
        const open: UsageOpen = {
          sessionId: s.sessionId, workspaceId: s.workspaceId, clientId: s.clientId, transport: s.transport,
          node: this.storage.origin, startedAt: this.clock.now(),
        }
        this.queue({ open })
      }),
      this.hub.on('session.ended', ({ session: s }) => {
        const at = this.clock.now()
        if (this.unopened.has(s.sessionId)) this.unclosed.set(s.sessionId, at)
        else this.queue({ close: s.sessionId, at })
      }),
    ]
    this.arm()
  }

  private arm(): void {
    this.timer = this.clock.setTimeout(() => {
      this.tick()
      this.arm()
    }, this.checkpointMs)
  }

  /** Queue a write for the next group commit; new sessions are introduced once it is done. */
  private queue(write: UsageWrite): void {
    this.pending.push(write)
    if (this.flushing === undefined) {
      this.hub.introductions.hold()
      // Real time, not the engine's clock: it paces real I/O (the commits).
      const wait = this.flushedAt + this.groupCommitMs - performance.now()
      if (wait <= 0) {
        const immediate = setImmediate(() => this.flush())
        this.flushing = { cancel: () => clearImmediate(immediate) }
      } else {
        const timer = setTimeout(() => this.flush(), wait)
        this.flushing = { cancel: () => clearTimeout(timer) }
      }
    }
  }

  private write(w: UsageWrite): void {
    if ('open' in w) this.storage.usage.open(w.open)
    else this.storage.usage.close(w.close, w.at)
  }

  /**
   * Commit the turn's writes in one transaction, then let the held sessions be introduced. When the
   * database primary is unreachable they wait for the next checkpoint that reaches it; when the
   * transaction fails otherwise, each is tried alone, so one bad row costs only its own.
   */
  flush(): void {
    // Its own hold, taken with the turn's first write; nobody else's.
    const held = this.flushing !== undefined
    this.flushing?.cancel()
    this.flushing = undefined
    const writes = this.pending
    this.pending = []
    try {
      if (writes.length > 0) {
        this.flushedAt = performance.now()
        this.storage.transaction(() => writes.forEach((w) => this.write(w)))
        this.written.rows += writes.length
        this.written.transactions++
      }
    } catch (e) {
      for (const w of writes) {
        try {
          if (e instanceof StorageUnavailable) throw e
          this.write(w)
          this.written.rows++
          this.written.transactions++
        } catch (one) {
          if (!(one instanceof StorageUnavailable)) this.log.error({ err: one }, 'usage write failed')
          else if ('open' in w) this.unopened.set(w.open.sessionId, w.open)
          else this.unclosed.set(w.close, w.at)
        }
      }
    } finally {
      if (held) this.hub.introductions.release()
    }
  }

  /** Write the opens and closes queued while the primary was unreachable; throws while it still is. */
  private catchUp(): void {
    for (const [sessionId, open] of this.unopened) {
      this.storage.usage.open(open)
      this.unopened.delete(sessionId)
    }
    for (const [sessionId, at] of this.unclosed) {
      this.storage.usage.close(sessionId, at)
      this.unclosed.delete(sessionId)
    }
  }

  /** Checkpoint this process's open sessions and recover orphans; also called on the timer. */
  tick(): void {
    this.flush()
    try {
      this.catchUp()
      const at = this.clock.now()
      const sessions = this.storage.usage.checkpoint(this.storage.origin, at)
      if (sessions > 0) this.log.debug({ sessions, at }, 'usage checkpoint')
      this.recover()
    } catch (e) {
      if (e instanceof StorageUnavailable) {
        this.log.debug({ queued: this.unopened.size + this.unclosed.size }, 'usage checkpoint waits for the database primary')
      } else {
        this.log.error({ err: e }, 'usage checkpoint failed')
      }
    }
  }

  /**
   * Close sessions of processes that are gone: provably dead on this host, or silent for more than
   * two checkpoint intervals (another host). Each is closed at its last checkpoint.
   */
  private recover(): void {
    const staleBefore = this.clock.now() - 2 * this.checkpointMs
    const recovered = this.storage.usage.recoverOrphans(this.storage.origin, (s) => s.checkpointAt < staleBefore || nodeIsDead(s.node))
    if (recovered > 0) this.log.warn({ recovered }, 'closed usage sessions left open by a stopped process')
  }

  /** Stop metering; sessions still open are closed now (the hub closes them all before this). */
  stop(): void {
    this.clock.clearTimeout(this.timer)
    this.unsubscribe.splice(0).forEach((f) => f())
    this.flush()
    try {
      this.catchUp()
      this.storage.usage.checkpoint(this.storage.origin, this.clock.now())
    } catch (e) {
      if (!(e instanceof StorageUnavailable)) throw e
      // Sessions left open are closed at their last checkpoint by the next node that recovers them.
      this.log.warn(
        { unwritten: this.unopened.size + this.unclosed.size },
        'usage not written at stop: the database primary is unreachable',
      )
    }
  }
}

/** The engine's usage meter as an Effect service. */
export class Usage extends Context.Service<Usage, UsageMeter>()('hark/Usage') {}

/** Metering starts after the hub exists and stops after it closed every session at shutdown. */
export const usageLayer = Layer.effect(
  Usage,
  Effect.acquireRelease(
    Effect.gen(function* () {
      const settings = yield* EngineSettings
      const meter = new UsageMeter(yield* Storage, yield* Clock, yield* Terminals, yield* Log, settings.usage.checkpointMs, settings.usage.groupCommitMs)
      meter.start()
      return meter
    }),
    (meter) => Effect.sync(() => meter.stop()),
  ),
)
