/**
 * Latency histograms (hdr-histogram-js) in microseconds: recorded in each generator process,
 * shipped to the runner as compressed base64, merged there, summarised as p50/p99/p99.9 in ms.
 */
import * as hdr from 'hdr-histogram-js'

/** Highest trackable latency: 60 s in µs; larger values are clamped (and counted as such). */
export const MAX_LATENCY_US = 60_000_000

export type LatencyHistogram = hdr.Histogram

export const createLatencyHistogram = (): LatencyHistogram =>
  hdr.build({
    bitBucketSize: 32,
    lowestDiscernibleValue: 1,
    highestTrackableValue: MAX_LATENCY_US,
    numberOfSignificantValueDigits: 3,
    autoResize: false,
    useWebAssembly: false,
  })

/** Record one latency in µs (clamped into the trackable range). */
export const recordUs = (h: LatencyHistogram, us: number): void => {
  h.recordValue(Math.min(MAX_LATENCY_US, Math.max(1, Math.round(us))))
}

export const encodeHistogram = (h: LatencyHistogram): string => hdr.encodeIntoCompressedBase64(h)

export const decodeHistogram = (base64: string): LatencyHistogram =>
  hdr.decodeFromCompressedBase64(base64, 32, false)

/** One histogram holding every value of `parts`. */
export const mergeHistograms = (parts: readonly LatencyHistogram[]): LatencyHistogram => {
  const total = createLatencyHistogram()
  for (const p of parts) total.add(p)
  return total
}

export interface LatencySummary {
  readonly count: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly p999Ms: number
  readonly maxMs: number
  /** Smallest step the source can tell apart (e.g. 1 for autocannon's whole milliseconds). */
  readonly resolutionMs?: number
}

export const summarize = (h: LatencyHistogram): LatencySummary | null => {
  if (h.totalCount === 0) return null
  const ms = (us: number) => us / 1000
  return {
    count: h.totalCount,
    p50Ms: ms(h.getValueAtPercentile(50)),
    p99Ms: ms(h.getValueAtPercentile(99)),
    p999Ms: ms(h.getValueAtPercentile(99.9)),
    maxMs: ms(h.maxValue),
  }
}
