import { describe, expect, it } from 'vitest'
import { Encoder } from '@evan/opus'
import { opusPacketSamples48k } from './opusPacket.js'

describe('opusPacketSamples48k', () => {
  it('reads real packets of 10, 20, 40 and 60 ms from the encoder Hark terminals use (16 kHz mono)', () => {
    const encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
    for (const ms of [10, 20, 40, 60]) {
      const pcm = new Int16Array((16000 * ms) / 1000).map((_, i) => Math.round(5000 * Math.sin(i / 3)))
      expect(opusPacketSamples48k(encoder.encode(pcm))).toBe(48 * ms)
    }
  })

  it('follows the TOC table and frame-count codes of RFC 6716', () => {
    expect(opusPacketSamples48k(Uint8Array.of(0x78, 1))).toBe(960) // config 15 (hybrid FB 20 ms), code 0 (Chromium's usual)
    expect(opusPacketSamples48k(Uint8Array.of(3 << 3))).toBe(2880) // SILK NB 60 ms
    expect(opusPacketSamples48k(Uint8Array.of(16 << 3))).toBe(120) // CELT 2.5 ms
    expect(opusPacketSamples48k(Uint8Array.of((1 << 3) | 1))).toBe(1920) // two 20 ms frames, equal size
    expect(opusPacketSamples48k(Uint8Array.of((1 << 3) | 2, 5))).toBe(1920) // two frames, different sizes
    expect(opusPacketSamples48k(Uint8Array.of((1 << 3) | 3, 3))).toBe(2880) // code 3, three 20 ms frames
    expect(opusPacketSamples48k(Uint8Array.of((1 << 3) | 3, 0x80 | 6))).toBe(5760) // 6 × 20 ms = 120 ms, VBR flag ignored
  })

  it('returns 0 for empty and malformed packets', () => {
    expect(opusPacketSamples48k(new Uint8Array(0))).toBe(0)
    expect(opusPacketSamples48k(Uint8Array.of((1 << 3) | 3))).toBe(0) // code 3 without its count byte
    expect(opusPacketSamples48k(Uint8Array.of((1 << 3) | 3, 0))).toBe(0) // zero frames
    expect(opusPacketSamples48k(Uint8Array.of((3 << 3) | 3, 3))).toBe(0) // 3 × 60 ms > 120 ms
  })
})
