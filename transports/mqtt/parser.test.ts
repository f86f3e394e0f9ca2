import { generate, type Packet } from 'mqtt-packet'
import { describe, expect, it } from 'vitest'
import { StrictParser, type PacketError } from './parser.js'

/** A connection as the parser sees it: where its packets and refusals go. */
const receiver = () => {
  const got: string[] = []
  return {
    got,
    parsed: (p: Packet) => got.push(p.cmd === 'publish' ? `publish ${p.topic}` : p.cmd),
    parseFailed: (e: PacketError) => got.push(`refused: ${e.message}`),
  }
}

/** The framer's view of a whole packet: its bytes and where its variable header starts. */
const whole = (packet: Packet, version: 4 | 5): [Buffer, number] => {
  const bytes = generate(packet, { protocolVersion: version })
  let i = 1
  while (bytes[i]! & 0x80) i++
  return [bytes, i + 1]
}

const connect = (version: 4 | 5): Packet => ({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: version, clean: true, clientId: 'c', keepalive: 60 })

describe('one strict parser for every connection', () => {
  it('routes each packet to its own connection, in that connection\'s protocol version', () => {
    const parser = new StrictParser()
    const a = receiver()
    const b = receiver()
    parser.parse(...whole(connect(4), 4), 4, a)
    parser.parse(...whole(connect(5), 5), 5, b)
    // An MQTT 5 PUBLISH has a property list where 3.1.1 has none: each is read in its own version.
    parser.parse(...whole({ cmd: 'publish', topic: 'x/5', payload: Buffer.from('p'), qos: 0, dup: false, retain: false, properties: {} }, 5), 5, b)
    parser.parse(...whole({ cmd: 'publish', topic: 'x/4', payload: Buffer.from('p'), qos: 0, dup: false, retain: false }, 4), 4, a)
    expect(a.got).toEqual(['connect', 'publish x/4'])
    expect(b.got).toEqual(['connect', 'publish x/5'])
  })

  it('a refused packet of one connection leaves nothing behind for the next', () => {
    const parser = new StrictParser()
    const bad = receiver()
    const good = receiver()
    const [connectBytes, start] = whole(connect(4), 4)
    const reserved = Buffer.from(connectBytes)
    reserved[start + 7] = reserved[start + 7]! | 0x01 // the reserved connect flag
    parser.parse(reserved, start, 4, bad)
    parser.parse(connectBytes, start, 4, good)
    // A field that claims more than the packet holds (a 9-byte client id in a 1-byte one).
    const short = Buffer.from(connectBytes)
    short[start + 11] = 9
    parser.parse(short, start, 4, bad)
    parser.parse(...whole({ cmd: 'pingreq' }, 4), 4, good)
    expect(bad.got).toEqual(['refused: Connect flag bit 0 must be 0, but got 1', expect.stringMatching(/^refused: /)])
    expect(good.got).toEqual(['connect', 'pingreq'])
  })
})
