import { Decoder, Encoder } from '@evan/opus'
import { describe, expect, it } from 'vitest'
import { frames, tone } from '../../core/test/speech.js'
import { DownlinkShaper } from './downlinkShaper.js'
import { joinOpusFrames, opusPacketMs, parseOpusPacket } from './opusPacket.js'

const encode = (ms: number, frameMs: number, bitrate = 24000): Uint8Array[] => {
  const encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
  encoder.bitrate = bitrate
  const samples = 16 * frameMs
  const pcm = tone(ms, 300)
  const out: Uint8Array[] = []
  for (let at = 0; at + samples <= pcm.length; at += samples) {
    const chunk = pcm.slice(at, at + samples)
    out.push(encoder.encode(new Uint8Array(chunk.buffer)))
  }
  return out
}

const decodeAll = (packets: Uint8Array[]): Int16Array[] => {
  const decoder = new Decoder({ channels: 1, sample_rate: 16000 })
  return packets.map((p) => {
    const bytes = decoder.decode(p)
    return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1)
  })
}

describe('Opus packets', () => {
  it('reads durations of real packets (20 and 60 ms frames)', () => {
    expect(encode(100, 20).map(opusPacketMs)).toEqual([20, 20, 20, 20, 20])
    expect(encode(120, 60).map(opusPacketMs)).toEqual([60, 60])
    expect(opusPacketMs(new Uint8Array([]))).toBeNull()
  })

  it('joins three 20 ms frames into one 60 ms packet that decodes to the same audio', () => {
    const packets = encode(60, 20)
    const infos = packets.map((p) => parseOpusPacket(p)!)
    expect(new Set(infos.map((i) => i.config)).size).toBe(1)
    const joined = joinOpusFrames(infos[0]!.config, infos.map((i) => i.frames[0]!))
    expect(opusPacketMs(joined)).toBe(60)
    expect(parseOpusPacket(joined)!.frames.map((f) => [...f])).toEqual(infos.map((i) => [...i.frames[0]!]))
    const separately = decodeAll(packets)
    const [together] = decodeAll([joined])
    expect(together!.length).toBe(960)
    expect([...together!]).toEqual(separately.flatMap((pcm) => [...pcm]))
  })

  it('codes frame lengths of 252 bytes and more in two bytes', () => {
    const big = encode(40, 20, 510_000)
    expect(big.every((p) => p.length > 260)).toBe(true)
    const info = big.map((p) => parseOpusPacket(p)!)
    const joined = joinOpusFrames(info[0]!.config, info.map((i) => i.frames[0]!))
    expect(parseOpusPacket(joined)!.frames.map((f) => f.length)).toEqual(info.map((i) => i.frames[0]!.length))
    expect(decodeAll([joined])[0]!.length).toBe(640)
  })

  it('refuses malformed packets', () => {
    expect(parseOpusPacket(new Uint8Array([0x0b, 0x00, 2]))).toBeNull() // code 3 with a frame count of 0
    expect(parseOpusPacket(new Uint8Array([0x49, 1, 2, 3]))).toBeNull() // code 1 with an odd payload
    expect(parseOpusPacket(new Uint8Array([0x4a, 200, 1]))).toBeNull() // code 2 whose first frame runs past the end
    expect(parseOpusPacket(new Uint8Array([0x4b, 0x80 | 3, 5, 1, 2]))).toBeNull() // VBR lengths past the end
  })
})

describe('DownlinkShaper', () => {
  it('passes packets of the target duration and joins shorter ones', () => {
    const shaper = new DownlinkShaper(60)
    const out: Uint8Array[] = []
    const sixty = encode(60, 60)[0]!
    shaper.push(sixty, out)
    expect(out).toEqual([sixty])
    out.length = 0
    for (const p of encode(140, 20)) shaper.push(p, out)
    // 7 frames of 20 ms: two 60 ms packets out, 20 ms waiting.
    expect(out.map(opusPacketMs)).toEqual([60, 60])
    expect(shaper.pendingMs).toBe(20)
    shaper.flush(out)
    expect(out.map(opusPacketMs)).toEqual([60, 60, 20])
    const pcm = decodeAll(out)
    expect(pcm.map((p) => p.length)).toEqual([960, 960, 320])
  })

  it('sends a spurt in order when a packet cannot join the waiting frames', () => {
    const shaper = new DownlinkShaper(60)
    const out: Uint8Array[] = []
    const [a, b] = encode(40, 20)
    const sixty = encode(60, 60)[0]!
    shaper.push(a!, out)
    shaper.push(b!, out)
    shaper.push(sixty, out)
    expect(out.map(opusPacketMs)).toEqual([40, 60])
    shaper.reset()
    expect(shaper.pendingMs).toBe(0)
  })

  it('keeps frames of a 20 ms target as they are', () => {
    const shaper = new DownlinkShaper(20)
    const out: Uint8Array[] = []
    const packets = encode(60, 20)
    for (const p of packets) shaper.push(p, out)
    expect(out).toEqual(packets)
    expect(frames(tone(20)).length).toBe(1)
  })
})
