import { describe, expect, it } from 'vitest'
import { ManualClock } from './clock.js'
import { clockedRateLimitStore } from './rateWindows.js'

const WINDOW_MS = 1000

describe('clocked rate-limit windows', () => {
  const setup = (maxKeys: number) => {
    const clock = new ManualClock(0)
    const Store = clockedRateLimitStore(clock, maxKeys)
    const store = new Store({ timeWindow: WINDOW_MS })
    const incr = (key: string) => {
      let result: { current: number; ttl: number } | undefined
      store.incr(key, (_e, r) => (result = r), WINDOW_MS, 100)
      return result!
    }
    return { clock, incr }
  }

  it('counts per key within a window and starts afresh after it', () => {
    const { clock, incr } = setup(10)
    expect(incr('a').current).toBe(1)
    expect(incr('a').current).toBe(2)
    expect(incr('b').current).toBe(1)
    clock.advance(WINDOW_MS)
    expect(incr('a')).toEqual({ current: 1, ttl: WINDOW_MS })
  })

  it('forgets the least recently used key first, a key called again back to back included', () => {
    const { incr } = setup(2)
    incr('a')
    incr('b')
    incr('a')
    incr('a') // the same key again: it stays the most recent
    incr('c') // evicts b, the least recent
    expect(incr('a').current).toBe(4)
    expect(incr('b').current).toBe(1) // b started afresh, and evicted c
    expect(incr('a').current).toBe(5)
    expect(incr('c').current).toBe(1)
  })
})
