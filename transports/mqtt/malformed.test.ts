/**
 * Everything the MQTT spec says must close the connection does, and closes only that one:
 * each case is sent as raw bytes on its own socket while a well-behaved mqtt.js client in the
 * same room keeps talking. MQTT 5 connections hear the DISCONNECT reason first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectBytes, connectDevice, packetBytes, RawClient, startMqttEngine, varint, type Device } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
let bystander: Device
let pings = 0

beforeAll(async () => {
  t = await startMqttEngine()
  t.seed.addClient('m', 'lobby')
  t.seed.addClient('bystander', 'lobby')
  bystander = await connectDevice(t.port, 'bystander', { password: await t.token('bystander'), protocolVersion: 5 })
  await bystander.event('session')
})
afterAll(async () => {
  await bystander.end()
  await t.stop()
})

const s = (text: string | Buffer): Buffer => {
  const b = typeof text === 'string' ? Buffer.from(text) : text
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b])
}
const raw = (...parts: Array<Buffer | number[]>) => Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))))
/** v5 bodies carry a property length after the variable header. */
const props = (v: 4 | 5, bytes: number[] = []) => (v === 5 ? [...varint(bytes.length), ...bytes] : [])

const audio = 'hark/m/up/audio'

interface Case {
  readonly name: string
  /** Sent instead of CONNECT (true) or after a successful CONNECT (false). */
  readonly beforeConnect: boolean
  readonly bytes: (v: 4 | 5) => Buffer
  /** MQTT 5 DISCONNECT reason expected before the close (after CONNECT only). */
  readonly v5Reason?: number
  /** MQTT 5 CONNACK reason expected before the close (a broken CONNECT whose level 5 could be read). */
  readonly v5Connack?: number
  readonly versions?: ReadonlyArray<4 | 5>
}

const cases: Case[] = [
  // Before or instead of CONNECT: closed without a word.
  { name: 'a packet before CONNECT', beforeConnect: true, bytes: () => raw([0xc0, 0x00]) },
  { name: 'CONNECT with a remaining length of 5 bytes', beforeConnect: true, bytes: () => raw([0x10, 0xff, 0xff, 0xff, 0xff, 0x01]) },
  { name: 'CONNECT with reserved fixed-header flags set', beforeConnect: true, bytes: (v) => { const b = connectBytes({ version: v, clientId: 'm', username: 'm', password: 'x' }); b[0] = 0x11; return b } },
  { name: 'CONNECT with the reserved connect flag set', beforeConnect: true, bytes: () => packetBytes(0x10, raw(s('MQTT'), [4, 0x03, 0, 60], s('m'))) },
  { name: 'CONNECT with will QoS 3', beforeConnect: true, bytes: () => packetBytes(0x10, raw(s('MQTT'), [4, 0x1e, 0, 60], s('m'), s('hark/m/will'), s('x'))) },
  { name: 'CONNECT with U+0000 in the client identifier', beforeConnect: true, bytes: (v) => connectBytes({ version: v, clientId: 'm\u0000x', username: 'm', password: 'x' }), v5Connack: 0x81 },
  { name: 'CONNECT with invalid UTF-8 in the user name', beforeConnect: true, bytes: () => packetBytes(0x10, raw(s('MQTT'), [4, 0xc2, 0, 60], s('m'), s(Buffer.from([0xc3, 0x28])), s('x'))) },
  { name: 'CONNECT with a UTF-16 surrogate (ED A0 80) in the client identifier', beforeConnect: true, bytes: () => packetBytes(0x10, raw(s('MQTT'), [4, 0x02, 0, 60], s(Buffer.from([0x6d, 0xed, 0xa0, 0x80])))) },
  { name: 'CONNECT larger than maxPacketBytes', beforeConnect: true, bytes: () => raw([0x10, ...varint(1_000_000)], Buffer.alloc(64)) },
  { name: 'CONNECT cut short inside a string', beforeConnect: true, bytes: () => packetBytes(0x10, raw(s('MQTT'), [4, 0x02, 0, 60], [0, 9, 0x6d])) },

  // After CONNECT.
  { name: 'a second CONNECT', beforeConnect: false, bytes: (v) => connectBytes({ version: v, clientId: 'm', username: 'm', password: 'x' }), v5Reason: 0x82 },
  { name: 'a remaining length of 5 bytes', beforeConnect: false, bytes: () => raw([0x30, 0x80, 0x80, 0x80, 0x80, 0x01]), v5Reason: 0x81 },
  { name: 'a remaining length not minimally encoded', beforeConnect: false, bytes: () => raw([0xc0, 0x80, 0x00]), v5Reason: 0x81 },
  { name: 'a PUBLISH larger than maxPacketBytes', beforeConnect: false, bytes: () => raw([0x30, ...varint(1_000_000)], s(audio)), v5Reason: 0x95 },
  { name: 'PUBLISH with QoS 3', beforeConnect: false, bytes: (v) => packetBytes(0x36, raw(s(audio), [0, 1], props(v), [0x80, 1])), v5Reason: 0x81 },
  { name: 'PUBLISH QoS 1 with packet identifier 0', beforeConnect: false, bytes: (v) => packetBytes(0x32, raw(s(audio), [0, 0], props(v), [0x80, 1])), v5Reason: 0x81 },
  { name: 'PUBLISH QoS 0 with DUP set', beforeConnect: false, bytes: (v) => packetBytes(0x38, raw(s(audio), props(v), [0x80, 1])), v5Reason: 0x81 },
  { name: 'PUBLISH with U+0000 in the topic', beforeConnect: false, bytes: (v) => packetBytes(0x30, raw(s('hark/m/up/\u0000audio'), props(v), [0x80, 1])), v5Reason: 0x81 },
  { name: 'PUBLISH with invalid UTF-8 in the topic', beforeConnect: false, bytes: (v) => packetBytes(0x30, raw(s(Buffer.from([0x68, 0xff, 0xfe])), props(v), [0x80, 1])), v5Reason: 0x81 },
  { name: 'PUBLISH with an overlong UTF-8 form in the topic', beforeConnect: false, bytes: (v) => packetBytes(0x30, raw(s(Buffer.from([0x68, 0xc0, 0xaf])), props(v), [0x80, 1])), v5Reason: 0x81 },
  { name: 'PUBLISH to a topic name with a wildcard', beforeConnect: false, bytes: (v) => packetBytes(0x30, raw(s('hark/m/up/#'), props(v), [0x80, 1])), v5Reason: 0x81 },
  { name: 'PUBLISH with an empty topic and no alias', beforeConnect: false, bytes: (v) => packetBytes(0x30, raw(s(''), props(v), [0x80, 1])), v5Reason: 0x82 },
  { name: 'an audio frame over 1 + 1500 bytes', beforeConnect: false, bytes: (v) => packetBytes(0x30, raw(s(audio), props(v), Buffer.alloc(1502, 1))), v5Reason: 0x95 },
  { name: 'an audio frame without Opus bytes', beforeConnect: false, bytes: (v) => packetBytes(0x30, raw(s(audio), props(v), [0x80])), v5Reason: 0x82 },
  { name: 'SUBSCRIBE with reserved flags clear', beforeConnect: false, bytes: (v) => packetBytes(0x80, raw([0, 1], props(v), s('hark/m/down/audio'), [0])), v5Reason: 0x81 },
  { name: 'SUBSCRIBE with packet identifier 0', beforeConnect: false, bytes: (v) => packetBytes(0x82, raw([0, 0], props(v), s('hark/m/down/audio'), [0])), v5Reason: 0x81 },
  { name: 'SUBSCRIBE without a topic filter', beforeConnect: false, bytes: (v) => packetBytes(0x82, raw([0, 1], props(v))), v5Reason: 0x82 },
  { name: 'SUBSCRIBE asking for QoS 3 (MQTT 5: a Protocol Error, §3.8.3.1)', beforeConnect: false, bytes: (v) => packetBytes(0x82, raw([0, 1], props(v), s('hark/m/down/audio'), [3])), v5Reason: 0x82 },
  { name: 'UNSUBSCRIBE with reserved flags clear', beforeConnect: false, bytes: (v) => packetBytes(0xa0, raw([0, 1], props(v), s('hark/m/down/audio'))), v5Reason: 0x81 },
  { name: 'PINGREQ with a body', beforeConnect: false, bytes: () => raw([0xc0, 0x01, 0x00]), v5Reason: 0x81 },
  { name: 'PUBREL with reserved flags clear', beforeConnect: false, bytes: () => raw([0x60, 0x02, 0x00, 0x01]), v5Reason: 0x81 },
  { name: 'reserved packet type 0', beforeConnect: false, bytes: () => raw([0x00, 0x00]), v5Reason: 0x81 },
  { name: 'a CONNACK from the client', beforeConnect: false, bytes: (v) => raw([0x20, v === 5 ? 0x03 : 0x02, 0x00, 0x00, ...(v === 5 ? [0] : [])]), v5Reason: 0x82 },
  { name: 'AUTH (not in MQTT 3.1.1; not offered in 5)', beforeConnect: false, bytes: (v) => raw([0xf0, v === 5 ? 0x02 : 0x00, ...(v === 5 ? [0x00, 0x00] : [])]), v5Reason: 0x82 },
  // Invalid flags are a Malformed Packet whatever the type (§2.1.3): judged before who may send it.
  { name: 'a SUBACK from the client with reserved flags 0001', beforeConnect: false, bytes: (v) => raw([0x91, v === 5 ? 0x04 : 0x03, 0x00, 0x01, ...(v === 5 ? [0] : []), 0x00]), v5Reason: 0x81 },
  { name: 'a PINGRESP from the client with reserved flags 1000', beforeConnect: false, bytes: () => raw([0xd8, 0x00]), v5Reason: 0x81 },
  { name: 'AUTH with reserved flags 0010', beforeConnect: false, versions: [5], bytes: () => raw([0xf2, 0x02, 0x00, 0x00]), v5Reason: 0x81 },
  { name: 'a second CONNECT with reserved flags 0001', beforeConnect: false, bytes: (v) => { const b = connectBytes({ version: v, clientId: 'm', username: 'm', password: 'x' }); b[0] = 0x11; return b }, v5Reason: 0x81 },
  { name: 'a topic alias of 0', beforeConnect: false, versions: [5], bytes: () => packetBytes(0x30, raw(s(audio), [3, 0x23, 0, 0], [0x80, 1])), v5Reason: 0x94 },
  { name: 'a topic alias above the maximum', beforeConnect: false, versions: [5], bytes: () => packetBytes(0x30, raw(s(audio), [3, 0x23, 0, 200], [0x80, 1])), v5Reason: 0x94 },
  { name: 'an empty topic with an alias never set', beforeConnect: false, versions: [5], bytes: () => packetBytes(0x30, raw(s(''), [3, 0x23, 0, 1], [0x80, 1])), v5Reason: 0x82 },
  { name: 'a property given twice', beforeConnect: false, versions: [5], bytes: () => packetBytes(0x30, raw(s(audio), [6, 0x23, 0, 1, 0x23, 0, 2], [0x80, 1])), v5Reason: 0x82 },
  { name: 'a retained PUBLISH (Retain Available = 0)', beforeConnect: false, versions: [5], bytes: () => packetBytes(0x31, raw(s(audio), [0], [0x80, 1])), v5Reason: 0x9a },
]

const stillWorking = async () => {
  const id = `p${++pings}`
  await bystander.client.publishAsync(bystander.ns.upControl, JSON.stringify({ type: 'ping', id }), { qos: 1 })
  await bystander.event('pong', (e) => e.id === id)
  expect(bystander.client.connected).toBe(true)
}

describe('malformed input closes only its own connection', () => {
  const rows = cases.flatMap((c) => (c.versions ?? [4, 5]).map((v) => [`MQTT ${v === 5 ? '5' : '3.1.1'}: ${c.name}`, v, c] as const))
  it.each(rows)('%s', async (_name, version, c) => {
    const client = await RawClient.open(t.port, version)
    if (!c.beforeConnect) {
      const connack = await client.connect('m', await t.token('m'))
      expect(connack.returnCode ?? connack.reasonCode).toBe(0)
    }
    const before = client.packets.items.length
    client.write(c.bytes(version))
    await client.closed
    const after = client.packets.items.slice(before)
    if (c.beforeConnect) expect(after).toEqual(version === 5 && c.v5Connack !== undefined ? [expect.objectContaining({ cmd: 'connack', reasonCode: c.v5Connack })] : [])
    else if (version === 5) expect(after.find((p) => p.cmd === 'disconnect')).toMatchObject({ reasonCode: c.v5Reason })
    else expect(after.filter((p) => p.cmd === 'disconnect')).toEqual([])
    await stillWorking()
  })

  it('survives mutated packets (seeded bit flips and truncations of valid ones) on 40 connections', async () => {
    let seed = 0x5eed
    const random = () => {
      // mulberry32: a deterministic sequence, so a failure can be replayed.
      seed = (seed + 0x6d2b79f5) | 0
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296
    }
    const valid = (v: 4 | 5): Buffer[] => [
      packetBytes(0x30, raw(s(audio), props(v), [0x80, 1, 2, 3])),
      packetBytes(0x32, raw(s('hark/m/up/control'), [0, 7], props(v), Buffer.from('{"type":"ping","id":1}'))),
      packetBytes(0x82, raw([0, 2], props(v), s('hark/m/down/#'), [1])),
      packetBytes(0xa2, raw([0, 3], props(v), s('hark/m/down/audio'))),
      raw([0xc0, 0x00]),
      raw([0x40, 0x02, 0x00, 0x01]),
    ]
    for (let i = 0; i < 40; i++) {
      const version = i % 2 === 0 ? 4 : 5
      const client = await RawClient.open(t.port, version)
      await client.connect('m', await t.token('m'))
      for (let k = 0; k < 6; k++) {
        const packets = valid(version)
        const packet = Buffer.from(packets[Math.floor(random() * packets.length)]!)
        const flips = 1 + Math.floor(random() * 3)
        for (let f = 0; f < flips; f++) { const at = Math.floor(random() * packet.length); packet[at] = packet[at]! ^ (1 << Math.floor(random() * 8)) }
        client.write(random() < 0.2 ? packet.subarray(0, Math.floor(random() * packet.length)) : packet)
      }
      client.socket.end()
      await client.closed
    }
    await stillWorking()
  })

  it('the listener keeps accepting and the bystander saw each one leave', async () => {
    const fresh = await connectDevice(t.port, 'm', { password: await t.token('m') })
    expect(await fresh.event('session')).toMatchObject({ room: 'lobby' })
    await fresh.end()
    await stillWorking()
  })
})
