/**
 * The ring that holds room audio for a listening device: the latest 600 ms by duration, only
 * what arrived at most 600 ms before the release, oldest first.
 */
import { describe, expect, it } from 'vitest'
import { HeldAudio, HOLD_MS } from './heldAudio.js'

/** One-frame Opus packets by their TOC: SILK wideband 20 ms (config 9) and 60 ms (config 11). */
const packet20 = (n: number) => Uint8Array.of(9 << 3, n)
const packet60 = (n: number) => Uint8Array.of(11 << 3, n)

const released = (held: HeldAudio, now: number) => {
  const out: number[] = []
  const ms = held.release(now, (p) => out.push(p[1]!))
  return { out, ms }
}

describe('HeldAudio', () => {
  it('keeps the latest 600 ms of packets, whatever their length', () => {
    const held = new HeldAudio(600)
    for (let i = 0; i < 20; i++) held.push(packet60(i), 0)
    expect(released(held, 0)).toEqual({ out: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19], ms: HOLD_MS })
    expect(held.dropped).toBe(10)
    for (let i = 0; i < 40; i++) held.push(packet20(i), 0)
    const twenties = released(held, 0)
    expect(twenties.out).toEqual(Array.from({ length: 30 }, (_, i) => 10 + i))
    expect(twenties.ms).toBe(600)
    expect(held.size).toBe(0)
  })

  it('sends only what arrived at most 600 ms before the release, and forgets all on clear', () => {
    const held = new HeldAudio(600)
    for (let i = 0; i < 8; i++) held.push(packet60(i), i * 100)
    // At 1000: packets of 400 ms and later are at most 600 ms old.
    expect(released(held, 1000)).toEqual({ out: [4, 5, 6, 7], ms: 240 })
    held.push(packet60(9), 0)
    held.clear()
    expect(released(held, 0)).toEqual({ out: [], ms: 0 })
  })
})
