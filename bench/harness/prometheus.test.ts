import { describe, expect, it } from 'vitest'
import { promSamples } from './prometheus.js'
import { groupRooms, harkReadings } from '../scenarios/overload.js'

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

  it('gives the overload scenario every drop reason and the shed gauge', () => {
    expect(harkReadings(text)).toEqual({
      counters: { 'dropped:websocket:rate': 12, 'dropped:mqtt:overload': 3500 },
      gauges: { overloadShedRatio: 0.25 },
    })
  })
})

describe('overload groups', () => {
  it('puts 0.5× the knee in the base group and the rest of 2× in the surge, in whole rooms of 4', () => {
    expect(groupRooms(400)).toEqual({ base: 50, surge: 150 })
    expect(groupRooms(10)).toEqual({ base: 1, surge: 4 })
    expect(groupRooms(1)).toEqual({ base: 1, surge: 1 })
  })
})
