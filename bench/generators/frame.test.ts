import { describe, expect, it } from 'vitest'
import { encodeFrame, FRAME_HEADER_BYTES, frameSender, frameSentUs, frameSeq, frameTemplate, isFrame } from './frame.js'

describe('bench frames', () => {
  it('carry sender, sequence and send time in a frame of the asked size', () => {
    const t = frameTemplate(100)
    const f = encodeFrame(t, 7, 123456, 98765.4321)
    expect(f.length).toBe(100)
    expect(isFrame(f)).toBe(true)
    expect(frameSender(f)).toBe(7)
    expect(frameSeq(f)).toBe(123456)
    expect(frameSentUs(f)).toBe(98765.4321)
  })

  it('never share memory with the template or each other', () => {
    const t = frameTemplate(64)
    const a = encodeFrame(t, 1, 1, 1)
    const b = encodeFrame(t, 2, 2, 2)
    expect(frameSender(a)).toBe(1)
    expect(frameSender(b)).toBe(2)
    expect(t.readUInt32LE(4)).toBe(0)
  })

  it('tell bench frames from anything else', () => {
    expect(isFrame(Buffer.from('hello'))).toBe(false)
    expect(isFrame(Buffer.alloc(FRAME_HEADER_BYTES))).toBe(false)
    expect(() => frameTemplate(FRAME_HEADER_BYTES - 1)).toThrow()
  })
})
