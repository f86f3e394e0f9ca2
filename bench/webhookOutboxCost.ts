/**
 * What the webhook outbox costs the engine's thread per event, on a real libSQL file: the events
 * of a `webhooks` bench storm (terminals in rooms of 4 connect, then disconnect: client.connected,
 * room.started, client.disconnected, room.finished; one endpoint) written LIVE-style, `--batch`
 * events per transaction (default 20: what LIVE_BATCH_MS gathers at the storm's ~800 events/s);
 * the read back of each commit's pending deliveries (what the delivery worker did before the
 * outbox handed them over in memory); and the outcomes recorded 64 per statement.
 * Figures are CPU time of this process (user + system, µs per event) and bytes written to files
 * (/proc/self/io wchar, per event): both move little with the machine's load, unlike wall time.
 * The events are spread in time at `--rate` per second (default 800, the `webhooks` storm's rate):
 * ids are ULIDs, so their index inserts land near the right edge only when time moves as it does in
 * the engine (all in one millisecond, each would go to a random page).
 * `--indexes v7` puts back the delivery indexes migration 8 dropped (or `pending`, `completed`: one
 * of them), for the comparison in one build.
 * WAL checkpoints: `--checkpoints thread` as the engine runs by default (storage.walCheckpointMs 250:
 * a thread of their own), `engine` as with walCheckpointMs 0 (SQLite's autocheckpoint, inside the
 * commit that passes 1000 pages), `both` (the default): rounds alternate, one JSON line per side.
 * Each side also gives the wall time of the writes' commits as the engine's thread would wait for
 * them (p50, p99, max, and how many took over 1 ms): a checkpoint inside a commit is a disk flush.
 * Sequence numbers: `--numbering memory` (the default) as the engine on its own file hands them out,
 * folded into webhook_sequences after the writes (`foldUsPerEvent`, `foldBytesPerEvent`: the
 * engine folds every 30 s, each resource once however many events it had); `table` as the CLI and
 * nodes on a libSQL server do (an upsert per resource and transaction).
 * Usage: node dist/bench/webhookOutboxCost.js [--terminals 2000] [--rounds 5] [--rate 800] [--batch 20] [--indexes v7|pending|completed] [--checkpoints both|thread|engine] [--numbering memory|table]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ManualClock } from '../core/clock.js'
import { createLogger } from '../core/log.js'
import { BackgroundCheckpoints } from '../core/storage/checkpointer.js'
import { DEFAULT_WAL_CHECKPOINT_MS } from '../core/config.js'
import { openStorage } from '../core/storage/storage.js'
import type { AttemptOutcome } from '../core/storage/webhookOutbox.js'
import type { WebhookEventInput } from '../core/webhooks/events.js'
import { WebhookOutbox } from '../core/webhooks/outbox.js'
import { alternation, medianOf } from './harness/stats.js'

const { values } = parseArgs({
  options: {
    terminals: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
    indexes: { type: 'string', default: '' },
    rate: { type: 'string', default: '800' },
    batch: { type: 'string', default: '20' },
    checkpoints: { type: 'string', default: 'both' },
    numbering: { type: 'string', default: 'memory' },
  },
})
const terminals = Number(values.terminals)
const rounds = Number(values.rounds)
const rate = Number(values.rate)
if (!(rate > 0)) throw new Error('--rate: events per second, > 0')
const numbering = values.numbering
if (numbering !== 'memory' && numbering !== 'table') throw new Error('--numbering: memory (the engine on its own file) or table')
const BATCH = Number(values.batch)
if (!(Number.isInteger(BATCH) && BATCH > 0)) throw new Error('--batch: events per transaction, a whole number > 0')

/** The delivery indexes of migration 5 that migration 8 dropped, to put back for a comparison. */
const DROPPED: Record<string, string> = {
  pending: "CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, resource, seq) WHERE state = 'pending'",
  completed: 'CREATE INDEX webhook_deliveries_completed ON webhook_deliveries(completed_at) WHERE completed_at IS NOT NULL',
}
const putBack = values.indexes === '' ? [] : values.indexes === 'v7' ? Object.keys(DROPPED) : values.indexes.split(',')
for (const name of putBack) if (!DROPPED[name]) throw new Error(`--indexes: v7, or a list of ${Object.keys(DROPPED).join(', ')}`)

type Checkpoints = 'thread' | 'engine'
const sides: Checkpoints[] = values.checkpoints === 'both' ? ['thread', 'engine'] : [values.checkpoints as Checkpoints]
if (!sides.every((c) => c === 'thread' || c === 'engine')) throw new Error('--checkpoints: both, thread or engine')
const log = createLogger('silent')

const ROOM = 4

const cpuUs = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
const written = () => Number(/^wchar:\s+(\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'))![1])

/** The storm's events in the order they happen. */
const stormEvents = (workspaceId: string, at: number): WebhookEventInput[] => {
  const out: WebhookEventInput[] = []
  const transport = 'websocket'
  for (let i = 0; i < terminals; i++) {
    const clientId = `dev-${i}`
    const room = `room-${Math.floor(i / ROOM)}`
    out.push({ workspaceId, type: 'client.connected', at, data: { clientId, sessionId: `ses_${i}`, transport, room } })
    if (i % ROOM === 0) out.push({ workspaceId, type: 'room.started', at, data: { room, clientId } })
  }
  for (let i = 0; i < terminals; i++) {
    const clientId = `dev-${i}`
    const room = `room-${Math.floor(i / ROOM)}`
    out.push({ workspaceId, type: 'client.disconnected', at, data: { clientId, sessionId: `ses_${i}`, transport, room, reason: 'client_closed', durationMs: 1000 } })
    if (i % ROOM === ROOM - 1 || i === terminals - 1) out.push({ workspaceId, type: 'room.finished', at, data: { room, clientId, durationMs: 1000 } })
  }
  // The n-th event happens at t0 + n / rate.
  return out.map((e, n) => ({ ...e, at: at + Math.floor((n * 1000) / rate) }))
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

const round = async (checkpoints: Checkpoints) => {
  const dir = mkdtempSync(join(tmpdir(), 'hark-outbox-cost-'))
  const storage = openStorage(join(dir, 'hark.db'))
  const thread = checkpoints === 'thread' ? new BackgroundCheckpoints(storage, { intervalMs: DEFAULT_WAL_CHECKPOINT_MS, log }) : null
  await thread?.start()
  try {
    for (const name of putBack) storage.db.exec(DROPPED[name]!)
    const clock = new ManualClock(Date.UTC(2026, 10, 24))
    const outbox = new WebhookOutbox(storage, clock, null, { numbering })
    storage.workspaces.insert({ workspaceId: 'ws_cost', name: 'cost', createdAt: 1 })
    storage.webhookEndpoints.insert({
      webhookId: 'wh_cost', workspaceId: 'ws_cost', url: 'https://example.com/h', events: null, description: null, secretEnc: 'x',
      previousSecretEnc: null, previousSecretExpiresAt: null, enabled: true, disabledReason: null, failingSince: null, createdAt: 1, updatedAt: 1,
    })
    const events = stormEvents('ws_cost', clock.now())
    const ids: number[] = []
    const commits: number[] = []
    // Writes, BATCH events a transaction (the live batch of a storm).
    let cpu = cpuUs()
    let bytes = written()
    const began = performance.now()
    for (let i = 0; i < events.length; i += BATCH) {
      const batch = events.slice(i, i + BATCH)
      clock.advance(batch[batch.length - 1]!.at - clock.now())
      const t0 = performance.now()
      for (const d of storage.transaction(() => outbox.write(batch))) ids.push(d.id)
      commits.push(performance.now() - t0)
      // The thread's ticks come between the engine's batches, as they would (a timer, not a turn of this loop).
      if (thread && i % (BATCH * 8) === 0) await new Promise<void>((resolve) => setImmediate(resolve))
    }
    commits.sort((a, b) => a - b)
    // Wall time too: a checkpoint's fsync blocks the thread without CPU.
    const write = { us: cpuUs() - cpu, wallUs: (performance.now() - began) * 1000, bytes: written() - bytes }
    // Numbered from memory, the numbers reach webhook_sequences in a fold (the engine's: every 30 s).
    cpu = cpuUs()
    bytes = written()
    outbox.foldSequences()
    const fold = { us: cpuUs() - cpu, bytes: written() - bytes }
    // The read back the worker made after each commit (a cursor over the same batches).
    cpu = cpuUs()
    let cursor = 0
    let read = 0
    for (let i = 0; i < ids.length; i += BATCH) {
      const rows = storage.webhookOutbox.pendingAfter(cursor, BATCH)
      read += rows.length
      cursor = rows[rows.length - 1]?.id ?? cursor
    }
    if (read !== ids.length) throw new Error(`read back ${read} of ${ids.length} deliveries`)
    const readBack = { us: cpuUs() - cpu }
    // Outcomes, 64 a statement, in one transaction each (the worker's record batch).
    const outcome: AttemptOutcome = { state: 'delivered', attempts: 1, nextAttemptAt: null, at: clock.now(), status: 204, error: null, latencyMs: 3 }
    cpu = cpuUs()
    bytes = written()
    for (let i = 0; i < ids.length; i += 64) {
      const batch = new Map(ids.slice(i, i + 64).map((id) => [id, outcome] as const))
      storage.transaction(() => storage.webhookOutbox.recordAttempts(batch))
    }
    const record = { us: cpuUs() - cpu, bytes: written() - bytes }
    const n = events.length
    return {
      events: n,
      writeUsPerEvent: write.us / n,
      writeWallUsPerEvent: write.wallUs / n,
      readBackUsPerEvent: readBack.us / n,
      recordUsPerEvent: record.us / n,
      writeBytesPerEvent: write.bytes / n,
      foldUsPerEvent: fold.us / n,
      foldBytesPerEvent: fold.bytes / n,
      recordBytesPerEvent: record.bytes / n,
      commitP50Ms: quantile(commits, 0.5),
      commitP99Ms: quantile(commits, 0.99),
      commitMaxMs: commits[commits.length - 1]!,
      commitsOver1Ms: commits.filter((ms) => ms > 1).length,
    }
  } finally {
    await thread?.stop()
    storage.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

type Round = Awaited<ReturnType<typeof round>>
const results = new Map<Checkpoints, Round[]>(sides.map((c) => [c, []]))
// Rounds alternate between the sides, so the machine's drift falls on both.
for (const { side } of alternation(sides, rounds)) results.get(side)!.push(await round(side))

for (const c of sides) {
  const rs = results.get(c)!
  const median = (k: keyof Round) => Math.round(medianOf(rs, [k])[k]! * 100) / 100
  console.log(JSON.stringify({
    checkpoints: c,
    numbering,
    indexesPutBack: putBack,
    terminals,
    rounds,
    batch: BATCH,
    events: rs[0]!.events,
    writeUsPerEvent: median('writeUsPerEvent'),
    writeWallUsPerEvent: median('writeWallUsPerEvent'),
    readBackUsPerEvent: median('readBackUsPerEvent'),
    recordUsPerEvent: median('recordUsPerEvent'),
    writeBytesPerEvent: median('writeBytesPerEvent'),
    foldUsPerEvent: median('foldUsPerEvent'),
    foldBytesPerEvent: median('foldBytesPerEvent'),
    recordBytesPerEvent: median('recordBytesPerEvent'),
    commitP50Ms: median('commitP50Ms'),
    commitP99Ms: median('commitP99Ms'),
    commitMaxMs: median('commitMaxMs'),
    commitsOver1Ms: median('commitsOver1Ms'),
    commitsPerRound: Math.ceil(rs[0]!.events / BATCH),
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
  }))
}
