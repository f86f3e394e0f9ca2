/**
 * The checkpoint thread's entry (checkpointer.ts starts it; checkpointProtocol.ts: the messages): its own connection to the engine's
 * libSQL file, and every `intervalMs`, when another connection has committed since (PRAGMA
 * data_version) or the last checkpoint left frames behind, a PASSIVE checkpoint — the WAL's new
 * pages copied into the database file and both fsynced, here, instead of inside whichever of the
 * engine's commits crossed SQLite's 1000-page mark. PASSIVE never waits for the engine's writers
 * or readers: it copies what it can now and the next tick takes the rest. Each checkpoint is
 * reported to the engine (its metrics); a failed one is reported and the next tick tries again.
 */
import { getPriority, setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { Database } from './libsql.js'
import { CATCH_UP_PASSES, type CheckpointBoot, type FromCheckpointThread, type ToCheckpointThread } from './checkpointProtocol.js'

const boot = workerData as CheckpointBoot
const port = parentPort!
const post = (m: FromCheckpointThread) => port.postMessage(m)

try {
  setPriority(Math.min(19, getPriority() + boot.nice))
} catch {
  // Not permitted here: the engine's priority.
}

const db = new Database(boot.file)
// This connection never writes; should it ever, it must not checkpoint on its own either.
db.exec('PRAGMA wal_autocheckpoint = 0')
const version = db.prepare('PRAGMA data_version')
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
const dataVersion = () => Number((version.all() as Array<{ data_version: number }>)[0]!.data_version)

let seen = dataVersion()
let behind = true

/**
 * One tick: a checkpoint if something was written since the last one (or it left pages behind).
 * Returns whether it ran one.
 *
 * The log only starts over when a commit begins with every page of it copied. Once it holds
 * `restartPages`, passes run back to back, each copying what came during the one before, until
 * one finds nothing new: when the engine pauses between writes (as it mostly does), its next
 * commit then starts the log over, with no work on its thread. An engine that writes without a
 * pause never gives a pass that moment: past a cap, the tick's last report has the engine copy
 * the rest itself (checkpointer.ts).
 */
const tick = (): boolean => {
  const version = dataVersion()
  if (version === seen && !behind) return false
  seen = version
  try {
    let copied = -1
    for (let passes = 1; ; passes++) {
      const began = performance.now()
      const r = (checkpoint.all() as Array<{ busy: number; log: number; checkpointed: number }>)[0]!
      // log -1: not in WAL mode (then there is nothing to do, ever).
      behind = r.log > 0 && r.checkpointed < r.log
      const caughtUp = r.log === copied && r.checkpointed === r.log
      const more = r.log >= boot.restartPages && !caughtUp && passes <= CATCH_UP_PASSES
      post({ t: 'checkpoint', log: r.log, checkpointed: r.checkpointed, ms: performance.now() - began, last: !more })
      if (!more) break
      copied = r.checkpointed
    }
  } catch (e) {
    behind = true
    post({ t: 'failed', message: e instanceof Error ? e.message : String(e) })
  }
  return true
}

const timer = setInterval(tick, boot.intervalMs)
// Asked to stop: no checkpoint begins after this; the connection closes and the thread ends.
port.on('message', (m: ToCheckpointThread) => {
  if (m.t === 'tick') {
    // A tick asked for now (tests): its outcome answers it, after its report if it ran.
    post({ t: 'ticked', id: m.id, ran: tick() })
    return
  }
  clearInterval(timer)
  db.close()
  port.close()
})
post({ t: 'ready' })
