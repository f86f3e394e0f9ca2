import { Decoder } from '@evan/opus'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MIXED_SILENCE_TAIL_MS } from '../agentProvider.js'
import { voiceFlag } from '../dataplane/frame.js'
import { concat, rms, silence, tone } from '../test/speech.js'
import { MixedInput, STALE_MS } from './mixedInput.js'
import { AgentPlayout } from './playout.js'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
})
afterEach(() => vi.useRealTimers())

const now = () => Date.now()

describe('agent playout', () => {
  const setup = (leadMs = 40) => {
    const sent: Uint8Array[] = []
    const playout = new AgentPlayout(leadMs, now)
    playout.attach((u) => sent.push(u))
    return { sent, playout }
  }

  it('sends the lead at once, then one 20 ms frame per 20 ms, then goes quiet', () => {
    const { sent, playout } = setup(40)
    playout.push(tone(200)) // 10 frames
    expect(sent).toHaveLength(3) // frames at 0, 20, 40 ms of audio: 40 ms ahead of real time
    expect(playout.speaking).toBe(true)
    expect(playout.pendingMs).toBe(200)
    vi.advanceTimersByTime(20)
    expect(sent).toHaveLength(4)
    vi.advanceTimersByTime(19)
    expect(sent).toHaveLength(4)
    vi.advanceTimersByTime(1)
    expect(sent).toHaveLength(5)
    vi.advanceTimersByTime(100)
    expect(sent).toHaveLength(10)
    expect(playout.pendingMs).toBe(60) // the lead is still playing out at the listeners
    vi.advanceTimersByTime(60)
    expect(playout.speaking).toBe(false)
    vi.advanceTimersByTime(1000)
    expect(sent).toHaveLength(10)
    expect(vi.getTimerCount()).toBe(0) // no timer while there is nothing to play

    // Every frame is a voiced uplink frame of real, decodable 16 kHz Opus.
    const decoder = new Decoder({ channels: 1, sample_rate: 16000 })
    for (const u of sent) {
      expect(voiceFlag(u[0]!)).toBe(true)
      const pcm = decoder.decode(u.subarray(1))
      expect(pcm.byteLength).toBe(640)
    }
  })

  it('with no lead the first frame still goes at once; a timer-free burst never exceeds the lead', () => {
    const { sent, playout } = setup(0)
    playout.push(tone(100))
    expect(sent).toHaveLength(1)
    vi.advanceTimersByTime(20)
    expect(sent).toHaveLength(2)
    // A push mid-spurt does not burst ahead of real time.
    playout.push(tone(100))
    expect(sent).toHaveLength(2)
    vi.advanceTimersByTime(200)
    expect(sent).toHaveLength(10)
  })

  it('joins streamed pushes that are not multiples of 20 ms, and pads only the true end', () => {
    const { sent, playout } = setup(40)
    playout.push(tone(30)) // 1 frame + 10 ms
    expect(sent).toHaveLength(1) // the partial frame waits for more
    playout.push(tone(30)) // completes frame 2, 20 ms frame 3 is complete too
    expect(sent).toHaveLength(3)
    playout.flush()
    expect(playout.pendingMs).toBe(60)
    vi.advanceTimersByTime(200)
    expect(sent).toHaveLength(3)
    // A lone remainder is padded once listeners would starve.
    playout.push(tone(10))
    vi.advanceTimersByTime(100)
    expect(sent).toHaveLength(4)
  })

  it('clear drops queued audio (barge-in) and Opus packets pass through with their duration', () => {
    const { sent, playout } = setup(40)
    playout.push(tone(1000))
    expect(sent).toHaveLength(3)
    playout.clear()
    expect(playout.speaking).toBe(false)
    vi.advanceTimersByTime(1000)
    expect(sent).toHaveLength(3)
    const packet = Uint8Array.from([0xf8, 0xff, 0xfe])
    playout.pushOpus(packet, 60)
    playout.pushOpus(packet, 60)
    expect(sent).toHaveLength(4) // 60 ms sent, the next would be 20 ms past the lead
    vi.advanceTimersByTime(20)
    expect(sent).toHaveLength(5)
    expect([...sent[4]!.subarray(1)]).toEqual([0xf8, 0xff, 0xfe])
  })

  it('queues until the agent is in a room, and stops for good when closed', () => {
    const sent: Uint8Array[] = []
    const playout = new AgentPlayout(40, now)
    playout.push(tone(100))
    vi.advanceTimersByTime(100)
    expect(sent).toHaveLength(0)
    playout.attach((u) => sent.push(u))
    expect(sent).toHaveLength(3)
    playout.close()
    playout.push(tone(100))
    vi.advanceTimersByTime(500)
    expect(sent).toHaveLength(3)
  })
})

describe('agent mixed input', () => {
  const setup = () => {
    const out: Int16Array[] = []
    const mixer = new MixedInput((pcm) => out.push(pcm), now)
    return { out, mixer }
  }

  it('passes a lone speaker through at once, in 20 ms frames', () => {
    const { out, mixer } = setup()
    const speech = tone(60)
    mixer.push(1, speech)
    expect(out).toHaveLength(3)
    expect(concat(...out)).toEqual(speech)
    mixer.close()
  })

  it('sums concurrent speakers with clipping, waiting only for active sources', () => {
    const { out, mixer } = setup()
    const loud = new Int16Array(320).fill(30000)
    mixer.push(1, loud)
    expect(out).toHaveLength(1) // source 2 is not known yet: source 1 passes through
    mixer.push(2, new Int16Array(320).fill(100))
    expect(out).toHaveLength(1) // waits for source 1's part of this slot
    mixer.push(1, loud)
    expect(out).toHaveLength(2)
    expect(out[1]![0]).toBe(30100)
    mixer.push(2, new Int16Array(320).fill(10000))
    mixer.push(1, loud)
    expect(out).toHaveLength(3)
    expect(out[2]![0]).toBe(32767)
    // Source 2 falls silent: after STALE_MS source 1 is no longer held back.
    mixer.push(1, loud)
    expect(out).toHaveLength(3)
    vi.advanceTimersByTime(STALE_MS + 20)
    expect(out.length).toBeGreaterThanOrEqual(4)
    expect(out[3]![0]).toBe(30000)
    mixer.close()
  })

  it('fills a quiet room with silence for the tail, then stops its ticker', () => {
    const { out, mixer } = setup()
    mixer.push(1, tone(20))
    vi.advanceTimersByTime(MIXED_SILENCE_TAIL_MS + 500)
    const silent = out.slice(1)
    expect(silent.length).toBeGreaterThan(MIXED_SILENCE_TAIL_MS / 20 - 10)
    expect(silent.every((f) => rms(f) === 0)).toBe(true)
    const count = out.length
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(1000)
    expect(out).toHaveLength(count)
    mixer.push(1, concat(tone(20), silence(20)))
    expect(out).toHaveLength(count + 2)
    mixer.close()
  })
})
