import { describe, expect, it } from 'vitest'
import { FIRST_BYTE } from './fixedHeader.js'
import { PacketFramer, type FramingProblem } from './framer.js'

/** A table that lets every first byte through (framing alone). */
const ANY_FIRST_BYTE = new Uint8Array(256)

const collect = (max = 1000, table: Uint8Array = ANY_FIRST_BYTE) => {
  const packets: number[][] = []
  const problems: Array<[FramingProblem, number]> = []
  const framer = new PacketFramer(max, table, {
    packet: (b) => {
      packets.push([...b])
      return true
    },
    problem: (p, detail) => {
      problems.push([p, detail])
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
    expect(problems.map(([p]) => p)).toEqual([problem])
    framer.push(Buffer.from([0xc0, 0x00]))
    expect(packets).toEqual([])
  })

  it('refuses a first byte its table refuses before any length byte arrived, and goes on with the next table', () => {
    const before = collect(1000, FIRST_BYTE.beforeConnect)
    before.framer.push(Buffer.from([0x20]))
    expect(before.problems).toEqual([['first-byte', 0x20]])

    const v5 = collect(1000, FIRST_BYTE[5])
    v5.framer.push(Buffer.from([0xc0, 0x00, 0xf0]))
    expect(v5.packets).toEqual([[0xc0, 0x00]])
    expect(v5.problems).toEqual([['first-byte', 0xf0]])

    const switching = collect(1000, FIRST_BYTE.beforeConnect)
    switching.framer.push(Buffer.from([0x10, 0x00]))
    switching.framer.setFirstByteTable(FIRST_BYTE[4])
    switching.framer.push(Buffer.from([0xc0, 0x00, 0x10]))
    expect(switching.packets).toEqual([[0x10, 0x00], [0xc0, 0x00]])
    expect(switching.problems).toEqual([['first-byte', 0x10]])
  })
})
