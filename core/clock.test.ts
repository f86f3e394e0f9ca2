import * as Effect from 'effect/Effect'
import * as Fiber from 'effect/Fiber'
import * as ManagedRuntime from 'effect/ManagedRuntime'
import * as Schedule from 'effect/Schedule'
import { describe, expect, it } from 'vitest'
import { createActor, setup } from 'xstate'
import { clockLayer, ManualClock, systemClock } from './clock.js'

const T0 = Date.parse('2026-11-20T12:00:00Z')

describe('ManualClock', () => {
  it('fires timers in due order as it advances, and none before', () => {
    const clock = new ManualClock(T0)
    const fired: string[] = []
    clock.setTimeout(() => fired.push(`b@${clock.now() - T0}`), 200)
    clock.setTimeout(() => fired.push(`a@${clock.now() - T0}`), 100)
    const cancelled = clock.setTimeout(() => fired.push('never'), 150)
    clock.clearTimeout(cancelled)
    clock.advance(99)
    expect(fired).toEqual([])
    clock.advance(101)
    expect(fired).toEqual(['a@100', 'b@200'])
    expect(clock.monotonic()).toBe(200)
    expect(clock.pendingTimers).toBe(0)
  })

  it('holds delays beyond a Node timer (~24.8 days) and never fires an infinite one', () => {
    const clock = new ManualClock(T0)
    let fired = 0
    clock.setTimeout(() => fired++, 30 * 86_400_000)
    clock.setTimeout(() => fired++, Number.POSITIVE_INFINITY)
    clock.advance(30 * 86_400_000 - 1)
    expect(fired).toBe(0)
    clock.advance(1)
    expect(fired).toBe(1)
    clock.advance(10 * 365 * 86_400_000)
    expect(fired).toBe(1)
  })

  it('sets wall time forward or back without firing timers or moving monotonic time', () => {
    const clock = new ManualClock(T0)
    let fired = false
    clock.setTimeout(() => (fired = true), 1000)
    clock.set(T0 - 60_000)
    expect(clock.now()).toBe(T0 - 60_000)
    clock.set(T0 + 86_400_000)
    expect(clock.now()).toBe(T0 + 86_400_000)
    expect(fired).toBe(false)
    expect(clock.monotonic()).toBe(0)
    clock.advance(1000)
    expect(fired).toBe(true)
    expect(clock.now()).toBe(T0 + 86_400_000 + 1000)
    expect(clock.monotonic()).toBe(1000)
  })
})

describe('one clock for Effect and xstate', () => {
  it('drives an Effect Schedule through Effect.sleep (clockLayer)', async () => {
    const clock = new ManualClock(T0)
    const runtime = ManagedRuntime.make(clockLayer(clock))
    const ticks: number[] = []
    const fiber = runtime.runFork(
      Effect.sync(() => ticks.push(clock.now() - T0)).pipe(Effect.repeat(Schedule.spaced(1000))),
    )
    await clock.advanceAsync(0)
    expect(ticks).toEqual([0])
    await clock.advanceAsync(3500)
    expect(ticks).toEqual([0, 1000, 2000, 3000])
    await runtime.runPromise(Fiber.interrupt(fiber))
    await runtime.dispose()
    expect(clock.pendingTimers).toBe(0)
  })

  it('drives xstate delayed transitions given as the actor clock', () => {
    const clock = new ManualClock(T0)
    const machine = setup({}).createMachine({
      initial: 'waiting',
      states: { waiting: { after: { 5000: 'done' } }, done: {} },
    })
    const actor = createActor(machine, { clock }).start()
    clock.advance(4999)
    expect(actor.getSnapshot().value).toBe('waiting')
    clock.advance(1)
    expect(actor.getSnapshot().value).toBe('done')
  })

  it('the system clock reads real time and its timers run', async () => {
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(1000)
    await new Promise<void>((resolve) => systemClock.setTimeout(resolve, 1))
    const t = systemClock.setTimeout(() => {
      throw new Error('cleared timers never fire')
    }, 1)
    systemClock.clearTimeout(t)
    await new Promise<void>((resolve) => systemClock.setTimeout(resolve, 5))
  })
})
