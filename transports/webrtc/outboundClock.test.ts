import { describe, expect, it } from 'vitest'
import { GAP_TOLERANCE_MS, OutboundClock } from './outboundClock.js'

const stamps = (clock: OutboundClock, arrivals: Array<[number, number]>) =>
  arrivals.map(([at, samples]) => {
    clock.next(at, samples)
    return { seq: clock.sequenceNumber, ts: clock.timestamp, marker: clock.marker }
  })

describe('OutboundClock', () => {
  it('numbers packets +1 and advances the timestamp by each packet duration, whatever the jitter', () => {
    const clock = new OutboundClock(() => 0.5)
    const out = stamps(clock, [[0, 960], [35, 960], [38, 960], [60, 2880], [130, 960]])
    expect(out.map((p) => p.seq)).toEqual([0x8000, 0x8001, 0x8002, 0x8003, 0x8004])
    const base = out[0]!.ts
    expect(out.map((p) => p.ts - base)).toEqual([0, 960, 1920, 2880, 5760])
    expect(out.map((p) => p.marker)).toEqual([true, false, false, false, false])
  })

  it('stays continuous across source switches with different packet sizes (forwarded 20 ms, a 60 ms device, a mix)', () => {
    const clock = new OutboundClock(() => 0)
    const out = stamps(clock, [[0, 960], [20, 960], [40, 2880], [100, 960], [120, 960]])
    expect(out.map((p) => p.ts)).toEqual([0, 960, 1920, 4800, 5760])
    expect(out.map((p) => p.seq)).toEqual([0, 1, 2, 3, 4])
  })

  it('follows the wall clock after silence and marks the talk spurt, without a sequence gap', () => {
    const clock = new OutboundClock(() => 0)
    const out = stamps(clock, [[0, 960], [20, 960], [1020, 960], [1040, 960]])
    expect(out.map((p) => p.seq)).toEqual([0, 1, 2, 3])
    expect(out.map((p) => p.ts)).toEqual([0, 960, 960 + 48_000, 960 + 48_000 + 960])
    expect(out.map((p) => p.marker)).toEqual([true, false, true, false])
    expect(clock.spurts).toBe(2)
  })

  it('treats lateness up to the tolerance as jitter, beyond it as a gap', () => {
    const within = new OutboundClock(() => 0)
    stamps(within, [[0, 960], [20 + GAP_TOLERANCE_MS, 960]])
    expect(within.timestamp).toBe(960)
    const beyond = new OutboundClock(() => 0)
    stamps(beyond, [[0, 960], [21 + GAP_TOLERANCE_MS, 960]])
    expect(beyond.timestamp).toBe(48 * (21 + GAP_TOLERANCE_MS))
    expect(beyond.marker).toBe(true)
  })

  it('wraps the sequence number at 16 bits and the timestamp at 32 bits', () => {
    const clock = new OutboundClock(() => 0.99999999)
    const out = stamps(clock, [[0, 960], [20, 960]])
    expect(out[0]!.seq).toBe(0xffff)
    expect(out[1]!.seq).toBe(0)
    expect(out[1]!.ts).toBe((out[0]!.ts + 960) >>> 0)
    expect(out[1]!.ts).toBeLessThan(960)
  })

  it('assumes 20 ms for a packet it cannot read', () => {
    const clock = new OutboundClock(() => 0)
    stamps(clock, [[0, 0], [20, 960]])
    expect(clock.timestamp).toBe(960)
  })
})
