import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadTls } from '../../core/tls.js'
import { planCores } from '../harness/cores.js'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { ProcessGroup } from '../harness/processes.js'
import { startPeer } from '../peers/start.js'
import type { GeneratorKind, MeasureContext } from '../scenario.js'
import { protocols } from './generator.js'
import { roomMembers } from './rooms.js'
import { runSurgeLoad, surgeFigures } from './surge.js'
import { mergeTimelines, type MergedBucket, type TimelineBucket } from './timeline.js'

const shipped = (index: number, expected: number, received: number, latencyMs: number): TimelineBucket => {
  const h = createLatencyHistogram()
  for (let i = 0; i < received; i++) recordUs(h, latencyMs * 1000)
  return { index, sent: expected, expected, received, skippedBacklog: 0, missedLate: 0, histogram: encodeHistogram(h) }
}

const timeline = (rows: readonly (readonly [number, number, number])[]): MergedBucket[] => mergeTimelines([rows.map(([e, r, ms], i) => shipped(i, e, r, ms))])

describe('surge figures', () => {
  it('splits the run into before, surge and after, recovery measured on the base group', () => {
    const phases = { preMs: 500, surgeMs: 500, postMs: 750, bucketMs: 250 }
    // base group: on time before, late in the surge, late for one bucket after it, then on time
    const base = timeline([[30, 30, 4], [30, 30, 4], [30, 30, 600], [30, 15, 700], [30, 30, 300], [30, 30, 5], [30, 30, 5]])
    // everyone: the surge group adds 90 expected per surge bucket, half of it delivered
    const all = mergeTimelines([
      [0, 1, 2, 3, 4, 5, 6].map((i) => shipped(i, 30, base[i]!.received, i >= 2 && i <= 4 ? 600 : 4)),
      [shipped(2, 90, 45, 600), shipped(3, 90, 45, 600)],
    ])
    const f = surgeFigures(all, base, phases)
    expect(f.buckets).toEqual({ pre: 2, surgeEnd: 4, end: 7 })
    expect(f.during.deliveredRatio).toBeCloseTo((30 + 15 + 90) / 240)
    expect(f.duringBase.deliveredRatio).toBeCloseTo(45 / 60)
    expect(f.before.latency!.p99Ms).toBeCloseTo(4, 0)
    expect(f.normalP99Ms).toBe(50)
    expect(f.recoveryMs).toBe(250)
    expect(() => surgeFigures(all, base, { ...phases, preMs: 400 })).toThrow(/whole number/)
  })
})

describe('surge load against a real server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hark-surge-'))
  const procs = new ProcessGroup()
  afterAll(async () => {
    await procs.stopAll()
    rmSync(dir, { recursive: true, force: true })
  })
  const ctx = (generator: GeneratorKind): MeasureContext => ({
    quick: true,
    load: 4,
    sweep: false,
    cores: planCores([0], false),
    dir,
    procs,
    signal: new AbortController().signal,
    logFile: (name) => join(dir, `${generator}-${name}.log`),
    phase: () => {},
    round: 1,
    sweepStep: false,
    generator,
    warmupMs: 250,
    durationMs: 500,
    generatorProcesses: 1,
  })

  for (const generator of ['native', 'node'] as const) {
    it(`talks with the base group all along and the surge group only in the surge (${generator} generator, bare uWS)`, async () => {
      const tls = await loadTls({ certFile: null, keyFile: null, dataDir: dir, host: '127.0.0.1' })
      const c = ctx(generator)
      const uws = await startPeer(c, { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', tls.certFile, '--key', tls.keyFile] })
      const all = roomMembers({ rooms: 2, roomSize: 4, talkersPerRoom: 4 })
      const phases = { preMs: 500, surgeMs: 500, postMs: 750, bucketMs: 250 }
      const m = await runSurgeLoad(c, {
        protocol: protocols.wsPubSub,
        target: { host: '127.0.0.1', port: uws.port, options: { tls: true, path: '/v1/connect' } },
        base: all.slice(0, 4),
        surge: all.slice(4),
        serverPids: [uws.pid],
        phases,
        burners: 0,
        drainMs: 2000,
      })
      expect(m.generator?.kind).toBe(generator)
      expect(m.extra).toMatchObject({ baseTalkers: 4, surgeTalkers: 4, connectFailures: 0, surgeMs: 500, burners: 0 })
      // A quiet loopback server delivers everything, and the base group is normal at once.
      expect(m.extra.deliveredPctSurge).toBe(100)
      expect(m.extra.deliveredPctOverall).toBe(100)
      expect(m.latency?.count).toBeGreaterThan(0)
      type Series = { expected: number[]; delivered: (number | null)[] }
      const t = JSON.parse(readFileSync(c.logFile('timeline'), 'utf8')) as { surgeFromBucket: number; surgeToBucket: number; base: Series; all: Series }
      expect([t.surgeFromBucket, t.surgeToBucket, t.base.delivered.length]).toEqual([2, 4, 7])
      // The base group talked in every bucket, all of it delivered; the surge group's frames are in the surge's buckets only.
      expect(t.base.delivered.every((d) => d === 1)).toBe(true)
      const surgeExpected = t.all.expected.map((e, i) => e - t.base.expected[i]!)
      expect(surgeExpected.map((e) => e > 0)).toEqual([false, false, true, true, false, false, false])
    }, 60_000)
  }
})
