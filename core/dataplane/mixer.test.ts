import { afterEach, describe, expect, it } from 'vitest'
import { joinPcm, PcmSink, tonePower, ToneTalker } from '../test/audio.js'
import { downlinkFromUplink, parseDownlink, MIXED_SOURCE_ID } from './frame.js'
import { MIX_FRAME_MS, MIX_HOLD_MS, RoomMixer, type MixStats } from './mixer.js'
import { PcmFifo } from './pcmFifo.js'
import { RoomRouter, type AudioSink } from './roomRouter.js'

const receiver = (sourceId: number) => {
  const r = {
    sourceId,
    frames: [] as Uint8Array[],
    deliver(frame: Uint8Array) {
      r.frames.push(frame)
    },
  }
  return r
}

/** Downlink frame of an uplink as the router makes it. */
const frameOf = (uplink: Uint8Array, sourceId = 1) => downlinkFromUplink(uplink, sourceId, 0)

let mixers: RoomMixer[] = []
const newMixer = () => {
  const stats: MixStats = { framesDecoded: 0, framesEncoded: 0 }
  let now = 1_000_000
  const mixer = new RoomMixer(stats, () => now)
  mixers.push(mixer)
  return { mixer, stats, at: () => now, advance: (ms: number) => (now += ms) }
}
afterEach(() => {
  for (const m of mixers) m.stop()
  mixers = []
})

describe('room mixer', () => {
  it('forwards the one active source untouched and decodes nothing', () => {
    const { mixer, stats, at, advance } = newMixer()
    const c = receiver(3)
    mixer.setReceivers([c])
    const a = new ToneTalker(440)
    for (let i = 0; i < 5; i++) {
      const up = a.nextUplink()
      mixer.route(1, up, frameOf(up), at())
      expect([...parseDownlink(c.frames.at(-1)!)!.opus]).toEqual([...up.subarray(1)])
      advance(MIX_FRAME_MS)
    }
    expect(c.frames).toHaveLength(5)
    expect(stats.framesDecoded).toBe(0)
    expect(mixer.running).toBe(false)
  })

  it('sends nothing from a source whose frames are unvoiced', () => {
    const { mixer, at } = newMixer()
    const c = receiver(3)
    mixer.setReceivers([c])
    mixer.route(1, Uint8Array.of(0x00 | 90, 1, 2, 3), Uint8Array.of(9), at())
    expect(c.frames).toHaveLength(0)
  })

  it('mixes two active sources for a listener (source id 0, decodable, both tones) and forwards the other talker to each talker', () => {
    const { mixer, stats, at, advance } = newMixer()
    const listener = receiver(3)
    const talkerA = receiver(1)
    mixer.setReceivers([listener, talkerA])
    const a = new ToneTalker(440)
    const b = new ToneTalker(1000)
    const sink = new PcmSink()
    for (let i = 0; i < 25; i++) {
      const upA = a.nextUplink()
      const upB = b.nextUplink()
      const frameB = frameOf(upB, 2)
      mixer.route(1, upA, frameOf(upA, 1), at())
      mixer.route(2, upB, frameB, at())
      // A hears B only: one other active source, forwarded as sent.
      expect(talkerA.frames.at(-1)).toBe(frameB)
      advance(MIX_FRAME_MS)
      mixer.tick(at())
    }
    expect(mixer.running).toBe(true)
    // The very first frame of A came while A was the only active source: forwarded as is.
    expect(parseDownlink(listener.frames[0]!)!.sourceId).toBe(1)
    listener.frames.shift()
    expect(listener.frames).toHaveLength(25)
    for (const f of listener.frames) {
      const d = parseDownlink(f)!
      expect(d.sourceId).toBe(MIXED_SOURCE_ID)
      expect(sink.decode(d.opus)).toHaveLength(320)
    }
    expect(listener.frames.map((f) => parseDownlink(f)!.seq)).toEqual(listener.frames.map((_, i) => i))
    const pcm = joinPcm(sink.frames.slice(5))
    const noise = tonePower(pcm, 2500)
    expect(tonePower(pcm, 440)).toBeGreaterThan(noise * 100)
    expect(tonePower(pcm, 1000)).toBeGreaterThan(noise * 100)
    // talkerA got no mixed frame: with one other source it is never mixed for.
    expect(talkerA.frames.every((f) => parseDownlink(f)!.sourceId === 2)).toBe(true)
    expect(stats.framesEncoded).toBe(listener.frames.length)
  })

  it('gives an active receiver the mix of everyone but itself (mix-minus)', () => {
    const { mixer, stats, at, advance } = newMixer()
    const listener = receiver(4)
    const talkerD = receiver(3)
    mixer.setReceivers([listener, talkerD])
    const tones = [new ToneTalker(440), new ToneTalker(1000), new ToneTalker(1700)]
    const atListener = new PcmSink()
    const atD = new PcmSink()
    for (let i = 0; i < 25; i++) {
      tones.forEach((t, k) => {
        const up = t.nextUplink()
        mixer.route(k + 1, up, frameOf(up, k + 1), at())
      })
      advance(MIX_FRAME_MS)
      const before = stats.framesEncoded
      mixer.tick(at())
      // Two distinct mixes per tick: everyone (for the listener), everyone but D (for D).
      expect(stats.framesEncoded - before).toBe(2)
    }
    const mixed = (frames: Uint8Array[]) => frames.map((f) => parseDownlink(f)!).filter((d) => d.sourceId === MIXED_SOURCE_ID)
    expect(mixed(listener.frames)).toHaveLength(25)
    expect(mixed(talkerD.frames)).toHaveLength(25)
    for (const d of mixed(listener.frames)) atListener.decode(d.opus)
    for (const d of mixed(talkerD.frames)) atD.decode(d.opus)
    const all = joinPcm(atListener.frames.slice(5))
    const minus = joinPcm(atD.frames.slice(5))
    const noise = tonePower(all, 2500)
    for (const hz of [440, 1000, 1700]) expect(tonePower(all, hz)).toBeGreaterThan(noise * 100)
    expect(tonePower(minus, 440)).toBeGreaterThan(tonePower(minus, 1700) * 100)
    expect(tonePower(minus, 1000)).toBeGreaterThan(tonePower(minus, 1700) * 100)
  })

  it('goes back to forwarding when a source falls silent, then stops its clock and frees its codecs', () => {
    const { mixer, at, advance } = newMixer()
    const listener = receiver(3)
    mixer.setReceivers([listener])
    const a = new ToneTalker(440)
    const b = new ToneTalker(1000)
    for (let i = 0; i < 5; i++) {
      for (const [id, t] of [[1, a], [2, b]] as const) {
        const up = t.nextUplink()
        mixer.route(id, up, frameOf(up, id), at())
      }
      advance(MIX_FRAME_MS)
      mixer.tick(at())
    }
    expect(mixer.running).toBe(true)
    advance(MIX_HOLD_MS + 1)
    const up = a.nextUplink()
    const frame = frameOf(up, 1)
    mixer.route(1, up, frame, at())
    expect(listener.frames.at(-1)).toBe(frame)
    let ticks = 0
    while (mixer.tick(at())) {
      advance(MIX_FRAME_MS)
      ticks++
    }
    expect(ticks).toBeLessThan(10)
  })
})

describe('room router with mixed receivers', () => {
  it('has no mixer until a sink asks for mixed audio, and drops it when none does', () => {
    const router = new RoomRouter('mix', { speakingStarted: () => {} })
    let mode: 'forward' | 'mixed' = 'forward'
    const frames: Uint8Array[] = []
    const sink: AudioSink = {
      sourceId: 2,
      get audioMode() {
        return mode
      },
      deliver: (f) => frames.push(f),
    }
    router.setSinks([sink])
    const port = router.addSource(1)
    router.addSource(2)
    expect(router.hasMixer).toBe(false)
    router.forward(port, Uint8Array.of(0x80 | 20, 5), performance.now())
    expect(frames).toHaveLength(1)
    mode = 'mixed'
    router.refreshAudioModes()
    expect(router.hasMixer).toBe(true)
    // One active source: the mixed receiver gets the very frame a forward receiver would.
    router.forward(port, Uint8Array.of(0x80 | 20, 6), performance.now())
    expect(frames).toHaveLength(2)
    expect([...parseDownlink(frames[1]!)!.opus]).toEqual([6])
    mode = 'forward'
    router.refreshAudioModes()
    expect(router.hasMixer).toBe(false)
    router.dispose()
  })
})

describe('pcm fifo', () => {
  it('keeps order across the wrap, zero-fills underruns and drops the oldest on overflow', () => {
    const fifo = new PcmFifo(8)
    fifo.push(Int16Array.of(1, 2, 3, 4, 5, 6))
    const out = new Int16Array(4)
    expect(fifo.take(out)).toBe(4)
    expect([...out]).toEqual([1, 2, 3, 4])
    fifo.push(Int16Array.of(7, 8, 9, 10, 11, 12, 13, 14))
    expect(fifo.overflowed).toBe(2)
    expect(fifo.length).toBe(8)
    expect(fifo.take(out)).toBe(4)
    expect([...out]).toEqual([7, 8, 9, 10])
    expect(fifo.take(new Int16Array(2))).toBe(2)
    const tail = new Int16Array(4)
    expect(fifo.take(tail)).toBe(2)
    expect([...tail]).toEqual([13, 14, 0, 0])
  })
})
