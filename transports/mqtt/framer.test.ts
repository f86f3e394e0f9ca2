import { describe, expect, it } from 'vitest'
import { PacketFramer, type FramingProblem } from './framer.js'

const collect = (max = 1000) => {
  const packets: number[][] = []
  const problems: FramingProblem[] = []
  const framer = new PacketFramer(max, {
    packet: (b) => {
      packets.push([...b])
      return true
    },
    problem: (p) => {
      problems.push(p)
    },
  })
  return { framer, packets, problems }
}

describe('PacketFramer', () => {
  it('splits packets across and within chunks', () => {
    const { framer, packets } = collect()
    const bytes = [0xc0, 0x00, 0x30, 0x03, 0x00, 0x01, 0x61, 0xd0, 0x00]
    for (const b of bytes) framer.push(Buffer.from([b]))
    framer.push(Buffer.from(bytes))
    expect(packets).toEqual([[0xc0, 0x00], [0x30, 0x03, 0x00, 0x01, 0x61], [0xd0, 0x00], [0xc0, 0x00], [0x30, 0x03, 0x00, 0x01, 0x61], [0xd0, 0x00]])
  })

  it('joins a big packet arriving in many chunks once', () => {
    const { framer, packets } = collect(100_000)
    const body = Buffer.alloc(20_000, 7)
    const packet = Buffer.concat([Buffer.from([0x30, 0xa0, 0x9c, 0x01]), body])
    for (let i = 0; i < packet.length; i += 1000) framer.push(packet.subarray(i, i + 1000))
    expect(packets).toHaveLength(1)
    expect(packets[0]).toHaveLength(packet.length)
  })

  it.each([
    ['five length bytes', [0x30, 0x80, 0x80, 0x80, 0x80, 0x01], 'bad-remaining-length'],
    ['a non-minimal length', [0x30, 0x80, 0x00], 'bad-remaining-length'],
    ['a declared size over the limit (header only received)', [0x30, 0xe9, 0x07], 'too-large'],
  ] as const)('refuses %s from the header alone', (_name, bytes, problem) => {
    const { framer, packets, problems } = collect()
    framer.push(Buffer.from(bytes))
    expect(problems).toEqual([problem])
    framer.push(Buffer.from([0xc0, 0x00]))
    expect(packets).toEqual([])
  })
})
