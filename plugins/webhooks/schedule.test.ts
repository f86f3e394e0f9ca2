import { describe, expect, it } from 'vitest'
import { GIVE_UP_AFTER_MS, JITTER, nextAttemptAt, retryDelay, RETRY_DELAYS_MS, RETRY_EVERY_MS } from './schedule.js'

describe('the retry schedule', () => {
  it('waits about 5 s, 30 s, 2 min, 10 min, 1 h, then 2 h, each spread by ±20% jitter', () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 30_000, 120_000, 600_000, 3_600_000])
    expect(RETRY_EVERY_MS).toBe(7_200_000)
    for (let attempts = 1; attempts <= 12; attempts++) {
      const base = RETRY_DELAYS_MS[attempts - 1] ?? RETRY_EVERY_MS
      expect(retryDelay(attempts, () => 0)).toBe(Math.round(base * (1 - JITTER)))
      expect(retryDelay(attempts, () => 0.5)).toBe(base)
      expect(retryDelay(attempts, () => 0.999999)).toBeLessThanOrEqual(Math.round(base * (1 + JITTER)))
      expect(retryDelay(attempts, () => 0.999999)).toBeGreaterThan(Math.round(base * (1 + JITTER)) - 10)
    }
  })

  it('gives up once the next attempt would fall more than 24 h after the delivery was created', () => {
    const created = 1_000_000
    expect(nextAttemptAt(created, created + GIVE_UP_AFTER_MS - RETRY_EVERY_MS, 9, () => 0.5)).toBe(created + GIVE_UP_AFTER_MS)
    expect(nextAttemptAt(created, created + GIVE_UP_AFTER_MS - RETRY_EVERY_MS + 1, 9, () => 0.5)).toBeNull()
    expect(nextAttemptAt(created, created, 1, () => 0.5)).toBe(created + 5_000)
  })
})
