import { describe, expect, it } from 'vitest'
import type { ComparedSide, Measurement } from '../scenario.js'
import overload, { groupRooms, harkReadings } from './overload.js'

const side = (name: string, role: 'hark' | 'peer', extra: Record<string, number>): ComparedSide => ({
  name,
  role,
  runs: [{ measurement: { extra } as unknown as Measurement }],
  summary: null,
})

const figures = {
  baseTalkers: 200, surgeTalkers: 600, serverCpuPercentSurge: 33, serverCoreBusyPercentSurge: 100, generatorCpuPercentSurge: 60,
  deliveredPctSurge: 55, deliveredPctSurgeBase: 99.5, p50MsSurge: 20, p99MsSurge: 180, p99MsBefore: 6, p99MsAfter: 8,
  deliveredPctOverall: 70, normalP99Ms: 50, framesScheduled: 1000, framesMissedLate: 5,
}

describe('overload scenario', () => {
  it('puts 0.5× the knee in the base group and the rest of 2× in the surge, in whole rooms of 4', () => {
    expect(groupRooms(400)).toEqual({ base: 50, surge: 150 })
    expect(groupRooms(10)).toEqual({ base: 1, surge: 4 })
    expect(groupRooms(1)).toEqual({ base: 1, surge: 1 })
  })

  it("reads every drop reason and the shed gauge from Hark's /metrics", () => {
    const text = [
      '# TYPE hark_audio_frames_dropped_total counter',
      'hark_audio_frames_dropped_total{transport="websocket",reason="rate"} 12',
      'hark_audio_frames_dropped_total{transport="mqtt",reason="overload"} 3500',
      'hark_audio_overload_shed_ratio 0.25',
      'hark_audio_overload_shed_ratio{transport="mqtt"} 0.5',
    ].join('\n')
    expect(harkReadings(text)).toEqual({
      counters: { 'dropped:websocket:rate': 12, 'dropped:mqtt:overload': 3500 },
      gauges: { overloadShedRatio: 0.25, 'overloadShedRatio{transport=mqtt}': 0.5 },
    })
  })

  it('prints the figures of every side and judges the Hark sides by the goal', () => {
    const lines = overload.compare!([
      side('hark', 'hark', { ...figures, recoveryMs: 750, 'dropped:websocket:rate': 0, 'dropped:websocket:overload': 4000, overloadShedRatioLateSurge: 0.45 }),
      side('hark-mqtt', 'peer', { ...figures, p99MsSurge: 400, recoveryMs: -1, 'dropped:mqtt:rate': 7 }),
      side('uws', 'peer', { ...figures, p99MsBefore: 80, recoveryMs: 0 }),
      side('hark-late', 'peer', { ...figures, framesMissedLate: 100, recoveryMs: 0, 'dropped:websocket:rate': 3 }),
    ])
    const of = (name: string) => lines.filter((l) => l.startsWith(`${name}: `))
    expect(of('hark')[0]).toContain('delivered 55.00% (base group 99.50%), p50 20.0 ms, p99 180.0 ms')
    expect(of('hark')[0]).toContain('recovery 0.75 s')
    expect(of('hark')[0]).toContain('generator 60%, 99.5% of its slots sent')
    expect(of('hark')).toContain('hark: frames dropped during the run (transport:reason): websocket:overload 4000; 0 for websocket:rate')
    expect(of('hark')).toContain('hark: overloadShedRatioLateSurge 0.450')
    expect(of('hark')).toContain('hark: goal p99 ≤ 250 ms in the surge met; no rate drops met; recovery ≤ 2 s met')
    expect(of('hark-mqtt')[0]).toContain('recovery not within the run')
    expect(of('hark-mqtt')).toContain('hark-mqtt: goal p99 ≤ 250 ms in the surge not met; no rate drops not met; recovery ≤ 2 s not met')
    // Rate drops say nothing when the generator itself fell behind (it then sends in bursts).
    expect(of('hark-late')).toContain('hark-late: goal p99 ≤ 250 ms in the surge met; no rate drops not judged (the generator fell behind its schedule); recovery ≤ 2 s met')
    // A peer is not judged; a base load already late before the surge is called out.
    expect(of('uws').some((l) => l.startsWith('uws: goal'))).toBe(false)
    expect(of('uws').some((l) => l.includes('the base load alone was not normal (p99 80.0 ms'))).toBe(true)
  })
})
