import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ManualClock } from '../clock.js'
import { resolveSettings } from '../config.js'
import type { TerminalSession } from '../session.js'
import { TerminalInput } from '../terminalInput.js'
import { uplink } from '../test/helpers.js'
import { DEFAULT_OVERLOAD, OverloadGuard, type OverloadOptions, type OverloadState } from './overload.js'

/**
 * The guard's timer runs on vitest's fake timers and its clock is `now`: a tick that comes `lag`
 * ms late is `advance(20 + lag)`, with `talkers` terminals sending a frame each during it.
 */
let now = 0
const make = (options: Partial<OverloadOptions> = {}) => {
  const guard = new OverloadGuard({ ...DEFAULT_OVERLOAD, ...options }, () => now)
  const flips: OverloadState[] = []
  guard.onChange((s) => flips.push(s))
  guard.wake(now)
  const tick = (lag: number, talkers: number) => {
    guard.frames += talkers
    guard.talkersNow = Math.max(guard.talkersNow, talkers)
    now += 20 + lag
    vi.advanceTimersByTime(20)
  }
  return { guard, flips, tick }
}

const session = () => {
  let pushed = 0
  const s = { pushAudio: () => void pushed++ } as unknown as TerminalSession
  return { s, pushed: () => pushed }
}

beforeEach(() => {
  now = 1000
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
})
afterEach(() => vi.useRealTimers())

describe('the overload guard', () => {
  it('has the defaults of the overload settings (a guard made without the engine’s settings behaves the same)', () => {
    const { targetLagMs, staleMs, minTalkers } = DEFAULT_OVERLOAD
    expect(resolveSettings({}, []).overload).toEqual({ targetLagMs, staleMs, minTalkers })
  })

  it('sheds nothing while the loop keeps up, however many frames come in', () => {
    const { guard, flips, tick } = make()
    for (let i = 0; i < 100; i++) tick(5, 200)
    expect(guard.shed).toBe(0)
    expect(flips).toEqual([])
  })

  it('sheds nothing below minTalkers, however late the loop is (a pause is not audio overload)', () => {
    const { guard, flips, tick } = make()
    for (let i = 0; i < 50; i++) tick(200, 19)
    expect(guard.shed).toBe(0)
    expect(flips).toEqual([])
  })

  it('raises the share shed while the loop is late under load, says degraded after degradeAfterMs, and recovers', () => {
    const { guard, flips, tick } = make()
    tick(0, 40)
    tick(120, 280)
    expect(guard.shed).toBeGreaterThan(0)
    expect(flips).toEqual([]) // not yet: shedding has not lasted degradeAfterMs
    for (let i = 0; i < 5; i++) tick(120, 280)
    expect(flips).toHaveLength(1)
    expect(flips[0]).toMatchObject({ degraded: true })
    expect(flips[0]!.shed).toBeGreaterThan(0)
    const peak = guard.shed
    expect(peak).toBeLessThanOrEqual(DEFAULT_OVERLOAD.maxShed)
    // Keeping up again: the share falls to 0, and a second later rooms are told.
    let ticks = 0
    while (guard.shed > 0) {
      tick(2, 40)
      ticks++
    }
    expect(ticks).toBeLessThanOrEqual(Math.ceil(peak / 0.1) + 1)
    expect(flips).toHaveLength(1)
    for (let i = 0; i < 60 && flips.length === 1; i++) tick(2, 40)
    expect(flips).toHaveLength(2)
    expect(flips[1]).toEqual({ degraded: false, shed: 0, lagMs: 2 })
  })

  it('names the terminals it shed from: all of them at the flip, the new ones each tick after, none on the way back', () => {
    const { guard, tick } = make()
    const heard: Array<[boolean, string[]]> = []
    guard.onChange((state, from) => heard.push([state.degraded, from.map((s) => `${s.workspaceId}/${s.room}`)]))
    const a = { workspaceId: 'w', room: 'r1' }
    const b = { workspaceId: 'w', room: 'r2' }
    tick(100, 40)
    guard.noteShed(a)
    guard.noteShed(b)
    guard.noteShed(a)
    for (let i = 0; i < 30 && heard.length === 0; i++) tick(100, 40)
    expect(heard).toEqual([[true, ['w/r1', 'w/r2']]])
    tick(100, 40)
    expect(heard).toHaveLength(1) // nothing new shed: nothing to say
    guard.noteShed({ workspaceId: 'w', room: 'r3' })
    tick(100, 40)
    expect(heard[1]).toEqual([true, ['w/r3']])
    guard.noteShed(a)
    for (let i = 0; i < 200 && heard.at(-1)![0]; i++) tick(1, 40)
    expect(heard.at(-1)).toEqual([false, []])
  })

  it('lets go once the talkers stop, even while the loop stays late (the lateness is not theirs any more)', () => {
    const { guard, flips, tick } = make()
    for (let i = 0; i < 30; i++) tick(100, 40)
    expect(flips.map((f) => f.degraded)).toEqual([true])
    for (let i = 0; i < 200 && !guard.idle; i++) tick(100, 0)
    expect(guard.shed).toBe(0)
    expect(flips.map((f) => f.degraded)).toEqual([true, false])
    expect(guard.idle).toBe(true)
  })

  it('jumps at once to the share that would have kept a late tick on time', () => {
    const { guard, tick } = make()
    tick(0, 40)
    tick(200, 40) // 220 ms for a 20 ms tick, 25 ms allowed: (200 - 25) / 220 of the work was too much
    expect(guard.shed).toBeCloseTo(175 / 220)
  })

  it('under load, calls a frame stale when the loop is staleMs past its timer; with few talkers, never', () => {
    const loaded = make()
    loaded.tick(0, 40)
    expect(loaded.guard.staleAfter).toBe(now + 20 + DEFAULT_OVERLOAD.staleMs)
    const light = make()
    light.tick(0, 3)
    expect(light.guard.staleAfter).toBe(Number.POSITIVE_INFINITY)
    const stale = { count: 0 }
    const shed = { count: 0 }
    const s = session()
    const input = new TerminalInput({ clock: new ManualClock(0), rateDrops: { count: 0 }, overload: { guard: loaded.guard, drops: shed, stale } })
    expect(input.audio(s.s, uplink([1]), now + 100)).toBeNull()
    expect(input.audio(s.s, uplink([2]), now + 221)).toBeNull() // 201 ms past the tick that was due
    expect([s.pushed(), stale.count, shed.count]).toEqual([1, 1, 0])
  })

  it('forgives the lateness it measured, and the wait of a turn of the loop that has not reached the timer yet', () => {
    const { guard, tick } = make()
    expect(guard.lagCreditMs(now)).toBe(0)
    expect(guard.lagCreditMs(now + 500)).toBe(480) // the timer is 480 ms overdue: frames read now waited as long
    tick(300, 10)
    expect(guard.lagCreditMs(now)).toBe(300)
    tick(0, 10)
    expect(guard.lagCreditMs(now)).toBeCloseTo(270) // decays a tenth a tick
    expect(guard.lagCreditMs(now + 10_000)).toBe(2000) // never more than 2 s
  })

  it('stops its timer a second after the last frame; the next frame starts it again', () => {
    const { guard, tick } = make()
    tick(0, 5)
    for (let i = 0; i < 60 && !guard.idle; i++) tick(0, 0)
    expect(guard.idle).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
    expect(guard.lagCreditMs(now + 5000)).toBe(0)
    guard.wake(now)
    expect(guard.idle).toBe(false)
    guard.stop()
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('terminal input with the overload guard', () => {
  it('takes frames bunched by the engine’s own lateness without rate drops; the same burst with no lateness is cut to the burst', () => {
    const options = (rateDrops: { count: number }) => ({ clock: new ManualClock(0), rateDrops, overload: { guard: make().guard, drops: { count: 0 }, stale: { count: 0 } } })
    // A terminal at 50 frames/s whose 75 frames of 1.5 s arrive together after the loop was stuck that long.
    const late = { count: 0 }
    const a = session()
    const input = new TerminalInput(options(late))
    now += 1500
    for (let i = 0; i < 75; i++) expect(input.audio(a.s, uplink([i]), now)).toBeNull()
    expect(late.count).toBe(0)
    expect(a.pushed()).toBe(75)
    // The same 75 frames at once, with the loop on time: 50 pass (the burst), 25 are the terminal's own excess.
    const onTime = { count: 0 }
    const b = session()
    const flood = new TerminalInput(options(onTime))
    for (let i = 0; i < 75; i++) flood.audio(b.s, uplink([i]), now)
    expect(onTime.count).toBe(25)
    expect(b.pushed()).toBe(50)
  })

  it('sheds the same share of every terminal’s frames and counts them as overload', () => {
    const { guard } = make()
    guard.shed = 0.25
    const shed = { count: 0 }
    const options = { clock: new ManualClock(0), rateDrops: { count: 0 }, overload: { guard, drops: shed, stale: { count: 0 } } }
    const terminals = [session(), session(), session()]
    const inputs = terminals.map(() => new TerminalInput(options))
    for (let i = 0; i < 40; i++) inputs.forEach((input, k) => input.audio(terminals[k]!.s, uplink([i]), now + i * 20))
    expect(terminals.map((t) => t.pushed())).toEqual([30, 30, 30])
    expect(shed.count).toBe(30)
    expect(guard.frames).toBe(120)
  })
})
