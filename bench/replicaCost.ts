/**
 * What storage on a libSQL server costs one node, against the local file: sqld on loopback
 * (servers/sqld.ts), two replicas of its database (spec/cluster.md, "Shared state") and one local
 * file. Per round: a two-statement write transaction (a workspace and its change row) through a
 * replica and on the file (both block the event loop for that long), the other replica's sync and
 * change poll that brings it (the cross-node delay beyond storage.changePollMs), an idle sync and
 * poll, and a read from the replica. Prints one JSON line of p50/p99 in milliseconds. A standalone
 * figure: there is no peer to run beside it.
 * Usage: node dist/bench/replicaCost.js [rounds, default 300]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStorage, type StorageShape } from '../core/storage/storage.js'
import { startSqld } from '../servers/sqld.js'
import { createLatencyHistogram, recordUs, summarize, type LatencyHistogram } from './harness/histogram.js'

const rounds = Number(process.argv[2] ?? 300)
const sqld = await startSqld()
const dir = mkdtempSync(join(tmpdir(), 'hark-replica-cost-'))
const a = openStorage(join(dir, 'a.db'), { url: sqld.url, authToken: null })
const b = openStorage(join(dir, 'b.db'), { url: sqld.url, authToken: null })
const file = openStorage(join(dir, 'hark.db'))

const write = (s: StorageShape, id: string, at: number) =>
  s.transaction(() => {
    s.workspaces.insert({ workspaceId: id, name: 'cost', createdAt: at })
    s.feed.record({ kind: 'workspace.created', workspaceId: id, subject: null, at })
  })
const samples = {
  writeReplica: createLatencyHistogram(),
  writeFile: createLatencyHistogram(),
  syncWithChange: createLatencyHistogram(),
  syncIdle: createLatencyHistogram(),
  readReplica: createLatencyHistogram(),
}
const timed = async (into: LatencyHistogram, f: () => unknown) => {
  const t = performance.now()
  await f()
  recordUs(into, (performance.now() - t) * 1000)
}
try {
  for (let i = 0; i < rounds; i++) {
    await timed(samples.writeReplica, () => write(a, `ws_r${i}`, i))
    await timed(samples.writeFile, () => write(file, `ws_f${i}`, i))
    await timed(samples.syncWithChange, async () => {
      await b.refresh()
      if (b.feed.poll() !== 1) throw new Error('the poll did not bring the change')
    })
    await timed(samples.syncIdle, async () => {
      await b.refresh()
      b.feed.poll()
    })
    await timed(samples.readReplica, () => b.workspaces.get(`ws_r${i}`))
  }
  const ms = (h: LatencyHistogram) => {
    const s = summarize(h)!
    return { p50: s.p50Ms, p99: s.p99Ms }
  }
  const figures = Object.fromEntries(Object.entries(samples).map(([k, h]) => [k, ms(h)]))
  process.stdout.write(JSON.stringify({ rounds, loadAverage: +loadavg()[0]!.toFixed(2), ...figures }) + '\n')
} finally {
  a.close()
  b.close()
  file.close()
  await sqld.stop()
  rmSync(dir, { recursive: true, force: true })
}
