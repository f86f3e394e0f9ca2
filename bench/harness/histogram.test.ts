import { describe, expect, it } from 'vitest'
import { createLatencyHistogram, decodeHistogram, encodeHistogram, mergeHistograms, recordUs, summarize } from './histogram.js'

describe('latency histograms', () => {
  it('summarises percentiles in ms from µs records', () => {
    const h = createLatencyHistogram()
    for (let us = 1; us <= 1000; us++) recordUs(h, us * 10) // 10 µs … 10 ms
    const s = summarize(h)!
    expect(s.count).toBe(1000)
    expect(s.p50Ms).toBeCloseTo(5, 1)
    expect(s.p99Ms).toBeCloseTo(9.9, 1)
    expect(s.maxMs).toBeCloseTo(10, 1)
  })

  it('survives the trip between processes and merges', () => {
    const a = createLatencyHistogram()
    const b = createLatencyHistogram()
    for (let i = 0; i < 100; i++) recordUs(a, 1000)
    for (let i = 0; i < 100; i++) recordUs(b, 3000)
    const merged = mergeHistograms([decodeHistogram(encodeHistogram(a)), decodeHistogram(encodeHistogram(b))])
    expect(merged.totalCount).toBe(200)
    expect(summarize(merged)!.p50Ms).toBeCloseTo(1, 1)
    expect(summarize(merged)!.p99Ms).toBeCloseTo(3, 1)
  })

  it('clamps out-of-range values and is null when empty', () => {
    const h = createLatencyHistogram()
    expect(summarize(h)).toBeNull()
    recordUs(h, -5)
    recordUs(h, 1e12)
    expect(h.totalCount).toBe(2)
  })
})
