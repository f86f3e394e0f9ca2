import { describe, expect, it } from 'vitest'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { surgeFigures } from './surge.js'
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
