import { describe, expect, it } from 'vitest'
import { promSamples } from './prometheus.js'

const text = [
  '# HELP hark_audio_frames_dropped_total Audio frames not delivered, by transport and reason',
  '# TYPE hark_audio_frames_dropped_total counter',
  'hark_audio_frames_dropped_total{transport="websocket",reason="rate"} 12',
  'hark_audio_frames_dropped_total{transport="mqtt",reason="overload"} 3.5e3',
  'hark_audio_frames_dropped_total_extra{transport="x",reason="y"} 99',
  'hark_audio_overload_shed_ratio 0.25',
  'hark_other{a="quoted \\"b\\""} 1',
  '',
].join('\n')

describe('Prometheus text', () => {
  it('reads the samples of one metric with their labels, and no other metric', () => {
    expect(promSamples(text, 'hark_audio_frames_dropped_total')).toEqual([
      { labels: { transport: 'websocket', reason: 'rate' }, value: 12 },
      { labels: { transport: 'mqtt', reason: 'overload' }, value: 3500 },
    ])
    expect(promSamples(text, 'hark_audio_overload_shed_ratio')).toEqual([{ labels: {}, value: 0.25 }])
    expect(promSamples(text, 'hark_other')).toEqual([{ labels: { a: 'quoted "b"' }, value: 1 }])
    expect(promSamples(text, 'absent')).toEqual([])
  })
})
