/**
 * The delivery pace (pace.ts): full speed while the loop has room; held to a few attempts per
 * window once a probe finds the loop saturated by something else; full speed again when it has
 * room, or after a bounded stretch held back. Windows are ended by the test (`tick`), with the
 * loop's utilization the test says.
 */
import type { EventLoopUtilization } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { DeliveryPace, FULL_SPEED_WINDOWS, MAX_THROTTLED_WINDOWS, PROBE_EVERY_WINDOWS, THROTTLED_PER_WINDOW } from './pace.js'

const paced = () => {
  const state = { used: 0, busy: true, wakes: 0 }
  const elu = { idle: 0, active: 0, utilization: 0 } satisfies EventLoopUtilization
  const pace = new DeliveryPace(
    () => state.busy,
    () => state.wakes++,
    () => ({ now: elu, used: state.used }),
  )
  const allowed = () => {
    let n = 0
    while (n < 1000 && pace.allow()) n++
    return n
  }
  return { pace, state, allowed }
}

describe('delivery pace', () => {
  it('runs at full speed while the loop has room, probing it now and then', () => {
    const { pace, state, allowed } = paced()
    state.used = 0.5
    for (let i = 1; i < PROBE_EVERY_WINDOWS; i++) {
      pace.tick()
      expect(allowed()).toBe(1000)
    }
    pace.tick()
    // The probe: nothing starts in this window.
    expect(allowed()).toBe(0)
    pace.tick()
    expect(pace.throttled).toBe(false)
    expect(allowed()).toBe(1000)
  })

  it('holds back while a probe finds the loop saturated, then goes back to full speed when it has room', () => {
    const { pace, state, allowed } = paced()
    state.used = 0.97
    for (let i = 0; i < PROBE_EVERY_WINDOWS; i++) pace.tick()
    expect(allowed()).toBe(0)
    pace.tick()
    expect(pace.throttled).toBe(true)
    // A few per window, every window: delivery never stops.
    for (let i = 0; i < 3; i++) {
      expect(allowed()).toBe(THROTTLED_PER_WINDOW)
      pace.tick()
    }
    const wakes = state.wakes
    state.used = 0.4
    pace.tick()
    expect(pace.throttled).toBe(false)
    expect(state.wakes).toBe(wakes + 1)
    expect(allowed()).toBe(1000)
  })

  it('does not hold back for longer than MAX_THROTTLED_WINDOWS in a row, then runs at full speed for FULL_SPEED_WINDOWS', () => {
    const { pace, state, allowed } = paced()
    state.used = 1
    for (let i = 0; i <= PROBE_EVERY_WINDOWS; i++) pace.tick()
    expect(pace.throttled).toBe(true)
    for (let i = 1; i < MAX_THROTTLED_WINDOWS; i++) pace.tick()
    expect(pace.throttled).toBe(true)
    pace.tick()
    expect(pace.throttled).toBe(false)
    for (let i = 1; i < FULL_SPEED_WINDOWS; i++) {
      expect(allowed()).toBe(1000)
      pace.tick()
    }
    expect(allowed()).toBe(1000)
    pace.tick()
    // The next probe, which finds the loop still saturated.
    expect(allowed()).toBe(0)
    pace.tick()
    expect(pace.throttled).toBe(true)
  })

  it('never probes nor holds back without work', () => {
    const { pace, state, allowed } = paced()
    state.used = 1
    state.busy = false
    for (let i = 0; i < 3 * PROBE_EVERY_WINDOWS; i++) pace.tick()
    expect(pace.throttled).toBe(false)
    expect(allowed()).toBe(1000)
    expect(state.wakes).toBe(0)
  })
})
