import { writeToStream } from 'mqtt-packet'
import { describe, expect, it } from 'vitest'
import { generate } from './generate.js'

describe('generate without mqtt-packet\'s number cache', () => {
  it('leaves the cache off and still writes 16-bit numbers big-endian', () => {
    expect(writeToStream.cacheNumbers).toBe(false)
    expect([...generate({ cmd: 'puback', messageId: 0x1234 }, { protocolVersion: 4 })]).toEqual([0x40, 0x02, 0x12, 0x34])
    const publish = generate({ cmd: 'publish', topic: 'a/b', payload: Buffer.from('x'), qos: 1, messageId: 65535, dup: false, retain: false }, { protocolVersion: 4 })
    expect([...publish]).toEqual([0x32, 0x08, 0x00, 0x03, 0x61, 0x2f, 0x62, 0xff, 0xff, 0x78])
  })
})
