import { describe, expect, it } from 'vitest'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { bucketP99s, mergeTimelines, normalP99Ms, recoveryMs, spanFigures, TimelineRecorder, type MergedBucket, type TimelineBucket } from './timeline.js'

/** A shipped bucket: `received` deliveries of `latencyMs` each, out of `expected`. */
const shipped = (index: number, expected: number, received: number, latencyMs: number): TimelineBucket => {
  const h = createLatencyHistogram()
  for (let i = 0; i < received; i++) recordUs(h, latencyMs * 1000)
  return { index, sent: expected, expected, received, skippedBacklog: 0, missedLate: 0, histogram: encodeHistogram(h) }
}

/** A merged timeline from [expected, received, latencyMs] per bucket, index = position. */
const timeline = (rows: readonly (readonly [number, number, number])[]): MergedBucket[] => mergeTimelines([rows.map(([e, r, ms], i) => shipped(i, e, r, ms))])

describe('timeline buckets', () => {
  it('puts each frame in the bucket of its send time, and nothing outside the timeline', () => {
    const rec = new TimelineRecorder({ fromUs: 1_000_000, bucketMs: 250 }, 2_000_000) // 4 buckets
    rec.at(1_000_000)!.sent++
    rec.at(1_249_999)!.sent++
    rec.at(1_250_000)!.sent++
    expect(rec.at(999_999)).toBeNull()
    expect(rec.at(2_000_000)).toBeNull()
    rec.received(1_900_000, 12_000) // sent in bucket 3, however late it arrives
    rec.received(5_000_000, 1_000) // sent after the timeline: not recorded
    const out = rec.encode()
    expect(out.map((b) => [b.index, b.sent, b.received])).toEqual([[0, 2, 0], [1, 1, 0], [3, 0, 1]])
  })

  it('adds the buckets of several generators up by index', () => {
    const merged = mergeTimelines([[shipped(0, 10, 10, 5), shipped(2, 10, 9, 5)], [shipped(2, 20, 20, 50)]])
    expect(merged.map((b) => [b.index, b.expected, b.received, b.histogram.totalCount])).toEqual([[0, 10, 10, 10], [2, 30, 29, 29]])
  })

  it('sums a span of buckets: delivered share and latency of what arrived', () => {
    const t = timeline([[100, 100, 2], [100, 50, 300], [100, 100, 2]])
    const s = spanFigures(t, 1, 2)
    expect(s.deliveredRatio).toBe(0.5)
    expect(s.latency!.p99Ms).toBeCloseTo(300, 0)
    expect(spanFigures(t, 0, 3).deliveredRatio).toBeCloseTo(250 / 300)
    expect(spanFigures(t, 5, 9).deliveredRatio).toBeNull()
    expect(bucketP99s(t, 0, 4).map((v) => (v === null ? null : Math.round(v)))).toEqual([2, 300, 2, null])
  })
})

describe('recovery time', () => {
  const normal = { p99Ms: 50, minDeliveredRatio: 0.99 }

  it('is the start of the first bucket from which every later bucket is normal', () => {
    // buckets 0..1 surge, the load falls at 2: late, then normal, a relapse, then normal to the end
    const t = timeline([[100, 100, 900], [100, 100, 900], [100, 100, 400], [100, 100, 10], [100, 100, 80], [100, 100, 10], [100, 100, 12]])
    expect(recoveryMs(t, 2, 7, 250, normal)).toBe(3 * 250)
  })

  it('is 0 when the first bucket after the fall is normal, null when the last one is not', () => {
    expect(recoveryMs(timeline([[100, 100, 10], [100, 100, 10]]), 0, 2, 250, normal)).toBe(0)
    expect(recoveryMs(timeline([[100, 100, 10], [100, 100, 90]]), 0, 2, 250, normal)).toBeNull()
  })

  it('counts a bucket that lost frames as not normal, and skips one where nothing was expected', () => {
    // bucket 1 on time but only 90% delivered; bucket 2 empty (no talker due): it says nothing,
    // so the recovery is seen at bucket 3
    const t = timeline([[100, 100, 10], [100, 90, 10], [0, 0, 0], [100, 100, 10]])
    expect(recoveryMs(t, 0, 4, 250, normal)).toBe(3 * 250)
    // frames expected, none arrived: not normal
    expect(recoveryMs(timeline([[100, 100, 10], [100, 0, 0]]), 0, 2, 250, normal)).toBeNull()
  })

  it('takes 1.5× the p99 before the surge as normal, never below the floor', () => {
    expect(normalP99Ms(4)).toBe(50)
    expect(normalP99Ms(100)).toBe(150)
    expect(normalP99Ms(null)).toBe(50)
  })
})
