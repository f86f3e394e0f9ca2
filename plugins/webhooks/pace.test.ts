/**
 * The delivery pace (pace.ts): full speed while the loop has room; held to a few attempts per
 * window once a probe finds the loop saturated by something else; full speed again when it has
 * room, or after a bounded stretch held back. Windows are ended by the test (`tick`), with the
 * loop's utilization the test says.
 */
import type { EventLoopUtilization } from 'node:perf_hooks'
import { afterEach, describe, expect, it } from 'vitest'
import { DeliveryPace, FULL_SPEED_WINDOWS, MAX_THROTTLED_WINDOWS, PROBE_EVERY_WINDOWS, THROTTLED_PER_WINDOW } from './pace.js'
import { MAX_IN_FLIGHT } from './sender.js'
import { checkOrderedAndComplete, WebhookReceiver } from './test/receiver.js'
import { startWebhookEngine } from './test/webhookEngine.js'

const paced = () => {
  const state = { used: 0, busy: true, wakes: 0 }
  const elu = { idle: 0, active: 0, utilization: 0 } satisfies EventLoopUtilization
  const pace = new DeliveryPace(
    () => state.busy,
    () => state.wakes++,
    { utilization: () => ({ now: elu, used: state.used }), timed: false },
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
    // A window at full speed with the loop saturated: the next one is a probe.
    pace.tick()
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
    pace.tick()
    pace.tick()
    expect(pace.throttled).toBe(true)
    for (let i = 1; i < MAX_THROTTLED_WINDOWS; i++) pace.tick()
    expect(pace.throttled).toBe(true)
    pace.tick()
    expect(pace.throttled).toBe(false)
    // Full speed although every window is saturated (no early probe in these).
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

  it('probes at once after a window at full speed in which the loop was saturated: a storm that starts meanwhile is found in two windows', () => {
    const { pace, state, allowed } = paced()
    state.used = 0.5
    pace.tick()
    pace.tick()
    expect(allowed()).toBe(1000)
    // The storm begins: this window ends saturated, well before PROBE_EVERY_WINDOWS.
    state.used = 1
    pace.tick()
    expect(pace.throttled).toBe(false)
    expect(allowed()).toBe(0)
    pace.tick()
    expect(pace.throttled).toBe(true)
    expect(allowed()).toBe(THROTTLED_PER_WINDOW)
  })

  it('ends a forced stretch at full speed when work stops: after the idle spell, a saturated window is followed by a probe again', () => {
    const { pace, state, allowed } = paced()
    state.used = 1
    for (let i = 0; i < 2 + MAX_THROTTLED_WINDOWS; i++) pace.tick()
    expect(pace.throttled).toBe(false)
    // Three windows of the forced stretch, then no work.
    for (let i = 0; i < 3; i++) pace.tick()
    state.busy = false
    state.used = 0.2
    pace.tick()
    // Work again: the probe finds room, then the loop saturates.
    state.busy = true
    expect(allowed()).toBe(0)
    pace.tick()
    expect(allowed()).toBe(1000)
    state.used = 1
    pace.tick()
    expect(allowed()).toBe(0)
    pace.tick()
    expect(pace.throttled).toBe(true)
  })

  it('never probes nor holds back without work', () => {
    const { pace, state } = paced()
    state.used = 1
    state.busy = false
    for (let i = 0; i < 3 * PROBE_EVERY_WINDOWS; i++) pace.tick()
    expect(pace.throttled).toBe(false)
    expect(pace.holding).toBe(false)
    expect(state.wakes).toBe(0)
  })

  it('probes first when work comes after an idle spell: a storm’s first events do not go out at full speed', () => {
    const { pace, state, allowed } = paced()
    state.busy = false
    state.used = 0.3
    pace.tick()
    // Work arrives while the loop is saturated (a connect storm): nothing starts until the probe ends.
    state.busy = true
    state.used = 0.97
    expect(allowed()).toBe(0)
    pace.tick()
    expect(pace.throttled).toBe(true)
    expect(allowed()).toBe(THROTTLED_PER_WINDOW)
    // Idle again, then work while the loop has room: after the probe, full speed.
    state.busy = false
    state.used = 0.2
    pace.tick()
    expect(pace.throttled).toBe(false)
    state.busy = true
    expect(allowed()).toBe(0)
    pace.tick()
    expect(pace.throttled).toBe(false)
    expect(allowed()).toBe(1000)
  })
})

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

describe('the delivery worker under its pace (real engine and receiver; the test plays the loop and ends the windows)', () => {
  it('starts only THROTTLED_PER_WINDOW attempts per window while the loop is saturated, the rest later in order, and all at once when it has room', async () => {
    const loop = { used: 0.97 }
    const elu = { idle: 0, active: 0, utilization: 0 } satisfies EventLoopUtilization
    const receiver = await WebhookReceiver.start()
    cleanup.push(() => receiver.close())
    const t = await startWebhookEngine({ plugin: { paceLoop: { utilization: () => ({ now: elu, used: loop.used }), timed: false } } })
    cleanup.push(() => t.stop())
    const pace = t.worker().pace
    const ws = await t.workspaceWithEndpoint(receiver)
    // As after a probe that found the loop saturated (how it gets there: the tests above).
    pace.throttled = true
    const clients = Array.from({ length: 3 * THROTTLED_PER_WINDOW + 2 }, (_, i) => `dev-${i}`)
    for (const c of clients) ws.addClient(c)
    await t.engine.host.webhookOutbox.flush()
    // One window: THROTTLED_PER_WINDOW attempts (at most MAX_IN_FLIGHT at once), then nothing more.
    const settled = (n: number) => t.attempts.next(() => t.attempts.items.length >= n)
    await settled(THROTTLED_PER_WINDOW)
    expect(t.worker().inFlightOf(ws.webhookId)).toBe(0)
    expect(pace.holding).toBe(true)
    // The pace held them, not the in-flight cap (the two differ, so the count tells which).
    expect(THROTTLED_PER_WINDOW).not.toBe(MAX_IN_FLIGHT)
    expect(receiver.requests.items).toHaveLength(THROTTLED_PER_WINDOW)
    expect(t.worker().pendingCount).toBe(clients.length - THROTTLED_PER_WINDOW)
    expect(receiver.accepted.items).toHaveLength(THROTTLED_PER_WINDOW)
    // The next window: as many again.
    pace.tick()
    await settled(2 * THROTTLED_PER_WINDOW)
    expect(t.worker().inFlightOf(ws.webhookId)).toBe(0)
    expect(pace.holding).toBe(true)
    expect(receiver.requests.items).toHaveLength(2 * THROTTLED_PER_WINDOW)
    // The loop has room again: the rest go out at once.
    loop.used = 0.3
    pace.tick()
    expect(pace.throttled).toBe(false)
    await receiver.acceptedCount(clients.length)
    await t.worker().whenIdle()
    expect(t.worker().pendingCount).toBe(0)
    expect(receiver.requests.items).toHaveLength(clients.length)
    checkOrderedAndComplete(receiver.accepted.items)
  })
})
