import { describe, expect, it } from 'vitest'
import { varint, varintSize, writeVarint } from './varint.js'

describe('MQTT variable byte integer', () => {
  it.each([
    [0, [0x00]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [16_383, [0xff, 0x7f]],
    [16_384, [0x80, 0x80, 0x01]],
    [2_097_151, [0xff, 0xff, 0x7f]],
    [2_097_152, [0x80, 0x80, 0x80, 0x01]],
    [268_435_455, [0xff, 0xff, 0xff, 0x7f]],
  ])('encodes %i as the spec\'s bytes, in varintSize of them', (n, bytes) => {
    expect(varint(n)).toEqual(bytes)
    expect(varintSize(n)).toBe(bytes.length)
    const dst = new Uint8Array(6)
    expect(writeVarint(dst, 1, n)).toBe(1 + bytes.length)
    expect([...dst.subarray(1, 1 + bytes.length)]).toEqual(bytes)
  })
})
