/**
 * The timeline of a room load: its window cut into buckets of send time (e.g. 250 ms), each with
 * the frames sent, the deliveries expected and received and a latency histogram, recorded by the
 * generators (roomWorker.ts, native/timeline.c) when `go` asks for it and merged here. Bucketed
 * by the frame's send time: a frame sent during a surge and delivered after it counts in the
 * surge. On top of it: figures over a span of buckets, and the recovery time after a load falls.
 */
import { createLatencyHistogram, decodeHistogram, encodeHistogram, mergeHistograms, recordUs, summarize, type LatencyHistogram, type LatencySummary } from '../harness/histogram.js'

/** What `go` asks for: buckets of `bucketMs` from the monotonic instant `fromUs`. */
export interface TimelineSpec {
  readonly fromUs: number
  readonly bucketMs: number
}

/** One bucket as a generator ships it (only buckets where something happened). */
export interface TimelineBucket {
  readonly index: number
  readonly sent: number
  readonly expected: number
  readonly received: number
  readonly skippedBacklog: number
  readonly missedLate: number
  /** Latency of the deliveries received, an encoded HDR histogram (µs). */
  readonly histogram: string
}

/** A bucket merged over generators, histogram decoded. */
export interface MergedBucket {
  readonly index: number
  sent: number
  expected: number
  received: number
  skippedBacklog: number
  missedLate: number
  readonly histogram: LatencyHistogram
}

/** Buckets never hold more than this many (a run of 4096 × 250 ms is 17 minutes). */
export const MAX_TIMELINE_BUCKETS = 4096

/** Recorder for the Node generator: the same buckets as native/timeline.c. */
export class TimelineRecorder {
  private readonly buckets = new Map<number, MergedBucket>()
  private readonly count: number

  constructor(
    private readonly spec: TimelineSpec,
    endUs: number,
  ) {
    this.count = Math.min(MAX_TIMELINE_BUCKETS, Math.max(0, Math.ceil((endUs - spec.fromUs) / (spec.bucketMs * 1000))))
  }

  /** The bucket of instant `us`, or null outside the timeline. */
  at(us: number): MergedBucket | null {
    if (us < this.spec.fromUs) return null
    const index = Math.floor((us - this.spec.fromUs) / (this.spec.bucketMs * 1000))
    if (index >= this.count) return null
    let b = this.buckets.get(index)
    if (!b) this.buckets.set(index, (b = { index, sent: 0, expected: 0, received: 0, skippedBacklog: 0, missedLate: 0, histogram: createLatencyHistogram() }))
    return b
  }

  received(sentUs: number, latencyUs: number): void {
    const b = this.at(sentUs)
    if (!b) return
    b.received++
    recordUs(b.histogram, latencyUs)
  }

  encode(): TimelineBucket[] {
    return [...this.buckets.values()]
      .sort((a, b) => a.index - b.index)
      .map((b) => ({ index: b.index, sent: b.sent, expected: b.expected, received: b.received, skippedBacklog: b.skippedBacklog, missedLate: b.missedLate, histogram: encodeHistogram(b.histogram) }))
  }
}

/** The buckets of several generators (the same spec) added up by index, in index order. */
export const mergeTimelines = (parts: readonly (readonly TimelineBucket[])[]): MergedBucket[] => {
  const out = new Map<number, MergedBucket>()
  for (const part of parts) {
    for (const b of part) {
      let m = out.get(b.index)
      if (!m) out.set(b.index, (m = { index: b.index, sent: 0, expected: 0, received: 0, skippedBacklog: 0, missedLate: 0, histogram: createLatencyHistogram() }))
      m.sent += b.sent
      m.expected += b.expected
      m.received += b.received
      m.skippedBacklog += b.skippedBacklog
      m.missedLate += b.missedLate
      m.histogram.add(decodeHistogram(b.histogram))
    }
  }
  return [...out.values()].sort((a, b) => a.index - b.index)
}

export interface SpanFigures {
  readonly expected: number
  readonly received: number
  /** received ÷ expected; null when nothing was expected. */
  readonly deliveredRatio: number | null
  readonly latency: LatencySummary | null
  readonly histogram: LatencyHistogram
}

/** Figures over the buckets with `from ≤ index < to`. */
export const spanFigures = (buckets: readonly MergedBucket[], from: number, to: number): SpanFigures => {
  const span = buckets.filter((b) => b.index >= from && b.index < to)
  const expected = span.reduce((s, b) => s + b.expected, 0)
  const received = span.reduce((s, b) => s + b.received, 0)
  const histogram = mergeHistograms(span.map((b) => b.histogram))
  return { expected, received, deliveredRatio: expected > 0 ? received / expected : null, latency: summarize(histogram), histogram }
}

/** What "back to normal" means for a bucket after the load falls. */
export interface NormalBucket {
  /** Highest p99 of a normal bucket, ms. */
  readonly p99Ms: number
  /** Lowest share of its expected deliveries a normal bucket receives. */
  readonly minDeliveredRatio: number
}

/**
 * The latency a bucket may have and still count as normal: 1.5× the p99 before the surge, or
 * `floorMs` when that is higher (a quiet server's p99 of a few ms would make jitter a failure).
 */
export const normalP99Ms = (preSurgeP99Ms: number | null, floorMs = 50, factor = 1.5): number =>
  Math.max(floorMs, (preSurgeP99Ms ?? 0) * factor)

/**
 * Recovery time after a load falls at bucket `fromIndex`: the time from that bucket's start to the
 * start of the first bucket from which every later bucket up to `toIndex` (exclusive) is normal
 * (p99 ≤ `normal.p99Ms` and delivered ≥ `normal.minDeliveredRatio`; a bucket where nothing was
 * expected says nothing and is skipped, one where frames were expected but none arrived is not
 * normal). 0 when the first bucket is already normal; null when the last bucket is not normal (no
 * recovery seen within the timeline).
 */
export const recoveryMs = (
  buckets: readonly MergedBucket[],
  fromIndex: number,
  toIndex: number,
  bucketMs: number,
  normal: NormalBucket,
): number | null => {
  const byIndex = new Map(buckets.map((b) => [b.index, b]))
  const isNormal = (b: MergedBucket | undefined): boolean | null => {
    if (!b || b.expected === 0) return null
    const ratio = b.received / b.expected
    if (b.histogram.totalCount === 0) return false
    return ratio >= normal.minDeliveredRatio && b.histogram.getValueAtPercentile(99) / 1000 <= normal.p99Ms
  }
  let firstNormal: number | null = null
  let seen = false
  for (let i = fromIndex; i < toIndex; i++) {
    const v = isNormal(byIndex.get(i))
    if (v === null) continue
    seen = true
    if (v) firstNormal ??= i
    else firstNormal = null
  }
  if (!seen || firstNormal === null) return null
  return (firstNormal - fromIndex) * bucketMs
}

/** p99 per bucket (ms, null where nothing arrived), for a report's time series. */
export const bucketP99s = (buckets: readonly MergedBucket[], from: number, to: number): (number | null)[] => {
  const byIndex = new Map(buckets.map((b) => [b.index, b]))
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => {
    const b = byIndex.get(from + k)
    return b && b.histogram.totalCount > 0 ? b.histogram.getValueAtPercentile(99) / 1000 : null
  })
}
