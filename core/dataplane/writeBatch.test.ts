import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { WriteBatch, type Flushable } from './writeBatch.js'

/** A connection that records when it was flushed (the fake clock's time). */
const item = (name: string, log: string[]): Flushable => ({
  queued: false,
  flush: () => log.push(`${name}@${Date.now()}`),
})

// Fake timers: the batch's own time (its budget is real time, setTimeout and setImmediate).
beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'Date'], now: 0 }))
afterEach(() => vi.useRealTimers())

describe('WriteBatch', () => {
  it('without a budget, flushes what a turn queued at the end of that turn, each item once', () => {
    const log: string[] = []
    const batch = new WriteBatch()
    const a = item('a', log)
    batch.add(a)
    batch.add(a)
    batch.add(item('b', log))
    expect(log).toEqual([])
    vi.runAllTicks()
    vi.advanceTimersToNextTimer() // the setImmediate
    expect(log).toEqual(['a@0', 'b@0'])
    expect(batch.turns).toBe(1)
  })

  it('with a budget, holds what later turns queue until the budget after the first, then writes it once', () => {
    const log: string[] = []
    const batch = new WriteBatch(10)
    const a = item('a', log)
    batch.add(a)
    vi.advanceTimersByTime(4)
    batch.add(a) // already waiting: still one flush
    batch.add(item('b', log))
    vi.advanceTimersByTime(5)
    expect(log).toEqual([])
    vi.advanceTimersByTime(1)
    expect(log).toEqual(['a@10', 'b@10'])
    // The next window starts with the next item, and its timer is the same one, re-armed.
    batch.add(a)
    vi.advanceTimersByTime(10)
    expect(log).toEqual(['a@10', 'b@10', 'a@20'])
    expect(batch.turns).toBe(2)
  })

  it('stop() cancels the budget\'s timer', () => {
    const log: string[] = []
    const batch = new WriteBatch(10)
    batch.add(item('a', log))
    batch.stop()
    vi.advanceTimersByTime(50)
    expect(log).toEqual([])
  })
})

describe('WriteBatch: a flush that throws', () => {
  const throwing = (log: string[]): Flushable => ({
    queued: false,
    flush: () => {
      log.push(`bad@${Date.now()}`)
      throw new Error('socket gone')
    },
  })

  it('does not keep the other items of its run, nor later frames of any item, from being flushed', () => {
    const log: string[] = []
    const errors: unknown[] = []
    const batch = new WriteBatch(5, (e) => errors.push(e))
    const a = item('a', log)
    const b = item('b', log)
    const bad = throwing(log)
    batch.add(a)
    batch.add(bad)
    batch.add(b)
    vi.advanceTimersByTime(5)
    expect(log).toEqual(['a@5', 'bad@5', 'b@5'])
    expect(errors).toHaveLength(1)
    // Later frames of every item, the one that threw included, go out in the next window.
    batch.add(b)
    batch.add(bad)
    batch.add(a)
    vi.advanceTimersByTime(5)
    expect(log).toEqual(['a@5', 'bad@5', 'b@5', 'b@10', 'bad@10', 'a@10'])
    expect([a.queued, b.queued, bad.queued]).toEqual([false, false, false])
  })

  it('without onError, flushes the whole run, then throws the first error; the next run works', () => {
    const log: string[] = []
    const batch = new WriteBatch()
    const a = item('a', log)
    batch.add(throwing(log))
    batch.add(a)
    expect(() => vi.advanceTimersToNextTimer()).toThrow('socket gone')
    expect(log).toEqual(['bad@0', 'a@0'])
    batch.add(a)
    vi.advanceTimersToNextTimer()
    expect(log).toEqual(['bad@0', 'a@0', 'a@0'])
  })
})
