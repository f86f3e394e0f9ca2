/**
 * The relay outbox's pacing (spec/cluster.md, Pacing): at light load every turn's frames leave at
 * its end; while turns come fast, at most one message per spacing leaves, frames wait no longer
 * than about the spacing, and none is lost or reordered. Fake timers: performance.now(), the
 * batch's setImmediate (a turn's end) and the outbox's own timer all follow the fake clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { WriteBatch } from '../../core/dataplane/writeBatch.js'
import { readRelayMessage, RELAY_LENGTH_BYTES, RELAY_MESSAGE_BYTES, RelayOutbox } from './wire.js'

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'], now: 0 }))
afterEach(() => vi.useRealTimers())

/** An outbox whose messages are recorded: when each left and the frame numbers it carried. */
const paced = (spacingMs: number) => {
  const sent: Array<{ at: number; frames: number[] }> = []
  const outbox = new RelayOutbox(
    (framed) => {
      const frames: number[] = []
      readRelayMessage(framed.subarray(RELAY_LENGTH_BYTES), (_key, uplink) => frames.push(uplink[1]! * 256 + uplink[2]!))
      sent.push({ at: performance.now(), frames })
    },
    new WriteBatch(),
    spacingMs,
  )
  let n = 0
  const queuedAt: number[] = []
  /** One turn `ms` after the previous: its frames are queued, then the turn ends (the batch's setImmediate). */
  const turn = (ms: number, frames = 1) => {
    vi.advanceTimersByTime(ms)
    for (let i = 0; i < frames; i++) {
      queuedAt[n] = performance.now()
      outbox.append(1, 1, Uint8Array.of(0x80, n >> 8, n & 0xff))
      n++
    }
    vi.advanceTimersByTime(0)
  }
  return { outbox, sent, turn, queuedAt, count: () => n }
}

describe('RelayOutbox pacing', () => {
  it('at light load sends every turn’s frames at its end', () => {
    const { sent, turn } = paced(1)
    for (let i = 0; i < 20; i++) turn(3)
    expect(sent).toHaveLength(20)
    expect(sent.every((m, i) => m.frames.length === 1 && m.frames[0] === i)).toBe(true)
  })

  it('while turns come fast, sends about one message per spacing; every frame arrives, in order, within the spacing and a turn', () => {
    const { outbox, sent, turn, queuedAt, count } = paced(1)
    for (let i = 0; i < 400; i++) turn(0.1) // 40 ms of turns 0.1 ms apart
    vi.advanceTimersByTime(5) // the turns stop: the timer sends what is held
    expect(sent.flatMap((m) => m.frames)).toEqual(Array.from({ length: count() }, (_, i) => i))
    // Before the turn gap's mean falls under half the spacing, every turn sends: then one per ms.
    expect(sent.length).toBeGreaterThan(38)
    expect(sent.length).toBeLessThan(60)
    for (let i = 1; i < sent.length; i++) if (sent[i - 1]!.frames.length > 1) expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(1 - 1e-9)
    // While turns go on, a frame waits at most the spacing and one turn; after the last turn, the
    // timer's whole milliseconds may add up to 1 ms more.
    const end = 400 * 0.1
    const waits = (during: boolean) => sent.flatMap((m) => (m.at <= end - 1 === during ? m.frames.map((f) => m.at - queuedAt[f]!) : []))
    expect(Math.max(...waits(true))).toBeLessThanOrEqual(1.1 + 1e-9)
    expect(Math.max(...waits(false))).toBeLessThanOrEqual(2 + 1e-9)
    expect(outbox.held).toBeGreaterThan(300)
  })

  it('sends what it holds by its timer when the turns stop: the spacing after the previous message, within 1 ms', () => {
    const { sent, turn } = paced(2)
    for (let i = 0; i < 50; i++) turn(0.2)
    // Turns until one sends: the next, 0.2 ms after that message, is held.
    for (let before = sent.length; sent.length === before; ) turn(0.2)
    const before = sent.length
    const last = sent.at(-1)!.at
    turn(0.2)
    expect(sent).toHaveLength(before)
    vi.advanceTimersByTime(3)
    expect(sent).toHaveLength(before + 1)
    // Not before the spacing; after it, within the timer's granularity (whole ms).
    expect(sent.at(-1)!.at - last).toBeGreaterThanOrEqual(2 - 1e-9)
    expect(sent.at(-1)!.at - last).toBeLessThanOrEqual(3 + 1e-9)
  })

  it('without a spacing sends one message per turn whatever the rate; a full outbox leaves at once', () => {
    const { sent, turn } = paced(0)
    for (let i = 0; i < 100; i++) turn(0.05)
    expect(sent).toHaveLength(100)
    const big = paced(1)
    for (let i = 0; i < 50; i++) big.turn(0.1)
    const before = big.sent.length
    // One turn with more frames than a message holds: the outbox sends when full, within the turn.
    big.turn(0.1, Math.ceil(RELAY_MESSAGE_BYTES / 11) + 10)
    expect(big.sent.length).toBeGreaterThan(before)
    vi.advanceTimersByTime(5)
    expect(big.sent.flatMap((m) => m.frames)).toEqual(Array.from({ length: big.count() }, (_, i) => i & 0xffff))
  })

  it('stop() cancels the timer; send() first keeps what was held', () => {
    const { outbox, sent, turn } = paced(5)
    for (let i = 0; i < 30; i++) turn(0.2)
    turn(0.2)
    const held = sent.length
    outbox.send()
    outbox.stop()
    expect(sent).toHaveLength(held + 1)
    vi.advanceTimersByTime(20)
    expect(sent).toHaveLength(held + 1)
  })
})
