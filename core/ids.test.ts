import { decodeTime, isValid, ulid } from 'ulid'
import { describe, expect, it } from 'vitest'
import { jtiTime, newDeliveryId, newJti, newWebhookEventId } from './ids.js'

describe('ULID ids', () => {
  it('are ULIDs the ulid package reads back: its time, 26 Crockford characters, after the prefix', () => {
    const at = Date.UTC(2026, 10, 25, 6, 0, 0, 123)
    const jti = newJti(at)
    expect(isValid(jti)).toBe(true)
    expect(decodeTime(jti)).toBe(at)
    expect(jtiTime(jti)).toBe(at)
    // The same time part the package writes.
    expect(jti.slice(0, 10)).toBe(ulid(at).slice(0, 10))
    for (const [id, prefix] of [[newWebhookEventId(at), 'evt_'], [newDeliveryId(at), 'dlv_']] as const) {
      expect(id.startsWith(prefix)).toBe(true)
      expect(isValid(id.slice(4))).toBe(true)
      expect(decodeTime(id.slice(4))).toBe(at)
    }
  })

  it('differ within one millisecond, sort by time across milliseconds, and use every character', () => {
    const at = Date.UTC(2026, 10, 25)
    const ids = Array.from({ length: 20_000 }, () => newJti(at))
    expect(new Set(ids).size).toBe(ids.length)
    const later = newJti(at + 1)
    expect(ids.every((id) => id < later)).toBe(true)
    const seen = new Set(ids.flatMap((id) => [...id.slice(10)]))
    expect([...seen].sort().join('')).toBe('0123456789ABCDEFGHJKMNPQRSTVWXYZ')
  })
})
