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
import { CATCH_UP_PASSES, RESTART_ANYWAY_FACTOR, type CheckpointBoot, type FromCheckpointThread, type ToCheckpointThread } from './checkpointProtocol.js'

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
const dataVersion = () => Number((version.get() as { data_version: number }).data_version)

let seen = dataVersion()
let behind = true

const pass = () => {
  const began = performance.now()
  const r = checkpoint.get() as { busy: number; log: number; checkpointed: number }
  post({ t: 'checkpoint', log: r.log, checkpointed: r.checkpointed, ms: performance.now() - began })
  return r
}

/**
 * One tick: a checkpoint if something was written since the last one (or it left pages behind).
 * Returns whether it ran one.
 *
 * The log only starts over when a writer begins with every page of it copied; under steady writes
 * (a connect storm) a pass rarely ends before the engine's next commit, and the log would grow for
 * as long as the writes go on. So once it holds `restartPages`, passes run back to back, each
 * copying what came during the one before, until one finds nothing new: the engine's next commit
 * then finds the log all copied and starts it over, with no work on the engine's thread. Writes
 * that outrun CATCH_UP_PASSES passes leave it to the next tick — up to RESTART_ANYWAY_FACTOR ×
 * restartPages, where the engine is asked to copy what is left itself (`restart`: a stall on its
 * thread, but a bounded log).
 */
const tick = (): boolean => {
  const version = dataVersion()
  if (version === seen && !behind) return false
  seen = version
  try {
    let r = pass()
    if (r.log >= boot.restartPages) {
      let caughtUp = false
      for (let i = 0; i < CATCH_UP_PASSES && !caughtUp; i++) {
        const copied = r.checkpointed
        r = pass()
        caughtUp = r.log === copied && r.checkpointed === r.log
      }
      if (!caughtUp && r.log >= boot.restartPages * RESTART_ANYWAY_FACTOR) post({ t: 'restart', log: r.log })
    }
    // log -1: not in WAL mode (then there is nothing to do, ever).
    behind = r.log > 0 && r.checkpointed < r.log
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
