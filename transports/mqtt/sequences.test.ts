/**
 * MQTT raw-packet sequences of the kind third-party conformance probes send (issue 33): which
 * answer wins when a packet is wrong in more than one way, what follows an error in a QoS 2 flow,
 * and what a packet pipelined behind CONNECT gets. The rule under test (spec/mqtt.md, "Which
 * check wins"): a packet is judged as data first, then against the protocol and what the server
 * offers, and only a valid packet is judged against the client's permissions; the verdict on
 * CONNECT comes before anything about the packets behind it.
 *
 * Each case is raw bytes over its own TCP socket to a real engine (test/sequences.ts), with the
 * exact bytes expected back; a bystander's connection is checked after each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectDevice, startMqttEngine, type Device } from './test/helpers.js'
import {
  cat,
  field,
  hex,
  packet,
  propertySet,
  refusedAfterConnect,
  Sequences,
  u16,
  utf8,
  type Bytes,
  type Case,
  type Outcome,
  type Version,
} from './test/sequences.js'
import type { Wire } from './test/wire.js'

/** Receive Maximum of the engine under test: small, so a full window takes a few packets. */
const RECEIVE_MAXIMUM = 4

let t: Awaited<ReturnType<typeof startMqttEngine>>
let bystander: Device
const seq = new Sequences()

beforeAll(async () => {
  t = await startMqttEngine({ maxInflight: RECEIVE_MAXIMUM })
  t.seed.addClient('m', 'lobby')
  t.seed.addClient('bystander', 'lobby')
  bystander = await connectDevice(t.port, 'bystander', { password: await t.token('bystander'), protocolVersion: 5 })
  await bystander.event('session')
  ;(bystander.client.stream as import('node:net').Socket).setNoDelay(true)
  seq.attach({ port: t.port, token: await t.token('m'), bystander })
})
afterAll(async () => {
  await bystander.end()
  await t.stop()
})

const NO_LOCAL = 0x04
/** A Subscription Identifier property (1). */
const SUBSCRIPTION_IDENTIFIER = [0x0b, 0x01]
const AUDIO_FRAME = [0x80, 1]

const subscribe = (v: Version, filters: ReadonlyArray<readonly [string, number]>, properties: Bytes = []) =>
  packet(0x82, cat(u16(5), v === 5 ? propertySet(properties) : [], ...filters.map(([filter, options]) => cat(field(filter), [options]))))
/** SUBACK of identifier 5 with these reason codes (MQTT 5: no properties). */
const suback = (v: Version, codes: number[]) => packet(0x90, cat(u16(5), v === 5 ? [0] : [], codes))
/** An MQTT 5 PUBLISH at QoS 2 (DUP when `dup`), no properties. */
const publish2 = (topic: string, id: number, payload: Bytes = AUDIO_FRAME, dup = false) =>
  packet(dup ? 0x3c : 0x34, cat(field(topic), u16(id), [0], payload))
/** An MQTT 5 acknowledgement: reason 0 without properties is the two-byte form, any other reason carries an empty property set. */
const ack = (first: number, id: number, reason = 0) => packet(first, reason === 0 ? u16(id) : cat(u16(id), [reason, 0]))
const PUBREC = 0x50
const PUBREL = 0x62
const PUBCOMP = 0x70
const NOT_FOUND = 0x92

const audio = 'hark/m/up/audio'
const control = 'hark/m/up/control'
const elsewhere = 'hark/other/up/audio'

/** The packet identifier of a PUBLISH at QoS 1 or 2 (after the fixed header and the topic). */
const publishIdentifier = (publish: Buffer): number => {
  let at = 1
  while ((publish[at]! & 0x80) !== 0) at++
  at++
  return publish.readUInt16BE(at + 2 + publish.readUInt16BE(at))
}

// ---- 1. SUBSCRIBE: validity before permission ---------------------------------------------------

describe('1. SUBSCRIBE: the packet is judged before the filters are authorized', () => {
  const v5 = (name: string, bytes: () => Bytes, outcome: Outcome): Case => ({ name, version: 5, afterConnect: true, bytes, outcome })
  seq.run([
    // [MQTT-3.8.3-4]: "It is a Protocol Error to set the No Local bit to 1 on a Shared Subscription".
    v5('No Local on a shared subscription in the own namespace', () => subscribe(5, [['$share/g/hark/m/down/audio', NO_LOCAL]]), refusedAfterConnect(5, 0x82)),
    v5('No Local on a shared subscription outside the namespace', () => subscribe(5, [['$share/g/hark/other/down/audio', NO_LOCAL | 1]]), refusedAfterConnect(5, 0x82)),
    v5('No Local on a shared subscription behind a valid filter', () => subscribe(5, [['hark/m/down/audio', 0], ['$share/g/#', NO_LOCAL]]), refusedAfterConnect(5, 0x82)),
    v5('No Local on a shared subscription, with a Subscription Identifier', () => subscribe(5, [['$share/g/hark/m/#', NO_LOCAL]], SUBSCRIPTION_IDENTIFIER), refusedAfterConnect(5, 0x82)),
    // §3.2.2.3.13: Shared Subscription Available = 0, and a SUBSCRIBE with one is a Protocol Error: DISCONNECT 0x9E.
    v5('a shared subscription in the own namespace', () => subscribe(5, [['$share/g/hark/m/down/audio', 0]]), refusedAfterConnect(5, 0x9e)),
    v5('a shared subscription outside the namespace', () => subscribe(5, [['hark/m/down/audio', 0], ['$share/g/hark/other/#', 1]]), refusedAfterConnect(5, 0x9e)),
    // Already so before issue 33: a broken filter closes first, a Subscription Identifier before any authorization.
    v5('a shared subscription with No Local and a filter that is not one', () => subscribe(5, [['$share/g/hark/m/#', NO_LOCAL], ['a/#/b', 0]]), refusedAfterConnect(5, 0x81)),
    v5('a Subscription Identifier with a filter outside the namespace', () => subscribe(5, [['hark/other/#', 0]], SUBSCRIPTION_IDENTIFIER), refusedAfterConnect(5, 0xa1)),
    v5('No Local on a filter of its own', () => subscribe(5, [['hark/m/down/audio', NO_LOCAL]]), { kind: 'answer', packets: [suback(5, [0])] }),
    v5('No Local on a filter outside the namespace', () => subscribe(5, [['hark/other/#', NO_LOCAL]]), { kind: 'answer', packets: [suback(5, [0x87])] }),
    // MQTT 3.1.1 has no shared subscriptions: `$share/…` is a filter outside the namespace like any other.
    { name: 'a $share/ filter', version: 4, afterConnect: true, bytes: () => subscribe(4, [['$share/g/hark/m/down/audio', 0]]), outcome: { kind: 'answer', packets: [suback(4, [0x80])] } },
  ])
})

// ---- 2. PUBLISH QoS 2: the flow's state before the topic's permission -----------------------------

describe('2. PUBLISH at QoS 2: the packet identifier and Receive Maximum are checked before the topic is authorized', () => {
  it('an identifier not yet released is a duplicate whatever its topic: PUBREC again, and PUBREL completes the first [MQTT-4.3.3-10]', async () => {
    const wire = await seq.session(5)
    await seq.answer(wire, publish2(audio, 5), [ack(PUBREC, 5)])
    await seq.answer(wire, publish2(elsewhere, 5), [ack(PUBREC, 5)])
    await seq.answer(wire, ack(PUBREL, 5), [ack(PUBCOMP, 5)])
    await wire.destroy()
    await seq.stillWorking()
  })

  it(`more unreleased QoS 2 publishes than Receive Maximum (${RECEIVE_MAXIMUM}) is DISCONNECT 0x93, whatever the topic of the one too many`, async () => {
    const wire = await seq.session(5)
    for (let id = 1; id <= RECEIVE_MAXIMUM; id++) await seq.answer(wire, publish2(audio, id), [ack(PUBREC, id)])
    await seq.closes(wire, publish2(elsewhere, RECEIVE_MAXIMUM + 1), refusedAfterConnect(5, 0x93))
    await seq.stillWorking()
  })

  it('a QoS 2 publish refused with PUBREC 0x87 holds no place in the Receive Maximum window (§4.9)', async () => {
    const wire = await seq.session(5)
    for (let id = 1; id < RECEIVE_MAXIMUM; id++) await seq.answer(wire, publish2(audio, id), [ack(PUBREC, id)])
    await seq.answer(wire, publish2(elsewhere, 50), [ack(PUBREC, 50, 0x87)])
    await seq.answer(wire, publish2(audio, 51), [ack(PUBREC, 51)])
    await wire.destroy()
    await seq.stillWorking()
  })
})

// ---- 3. QoS 2 flows after an error --------------------------------------------------------------

describe('3. QoS 2 flows after an error code', () => {
  // §3.5.2.1: the PUBREC reason codes of 0x80 and above. §4.3.3: the sender sends PUBREL only for a
  // PUBREC below 0x80 [MQTT-4.3.3-4]; with 0x80 or above the flow ends and the identifier is free.
  const PUBREC_ERRORS = [0x80, 0x83, 0x87, 0x90, 0x91, 0x97, 0x99]
  seq.run([
    ...PUBREC_ERRORS.map((code): Case => ({
      name: `PUBREC with reason 0x${hex([code])}`,
      version: 5,
      afterConnect: true,
      bytes: () => ack(PUBREC, 9, code),
      outcome: { kind: 'answer', packets: [] },
    })),
    {
      name: 'PUBREC with reason 0x80 and a Reason String',
      version: 5,
      afterConnect: true,
      bytes: () => packet(PUBREC, cat(u16(9), [0x80], propertySet([0x1f, ...field('no')]))),
      outcome: { kind: 'answer', packets: [] },
    },
    // Below 0x80 the flow goes on — and names nothing of the server's, which never sends QoS 2.
    { name: 'PUBREC with reason 0x10 (No matching subscribers)', version: 5, afterConnect: true, bytes: () => ack(PUBREC, 9, 0x10), outcome: { kind: 'answer', packets: [ack(PUBREL, 9, NOT_FOUND)] } },
    { name: 'PUBREL with reason 0x92 for an identifier never received', version: 5, afterConnect: true, bytes: () => ack(PUBREL, 9, NOT_FOUND), outcome: { kind: 'answer', packets: [ack(PUBCOMP, 9, NOT_FOUND)] } },
    { name: 'PUBCOMP with reason 0x92', version: 5, afterConnect: true, bytes: () => ack(PUBCOMP, 9, NOT_FOUND), outcome: { kind: 'answer', packets: [] } },
  ])

  it('after PUBREC 0x87 the identifier is released: PUBREL gets PUBCOMP 0x92, the same PUBLISH again is a new message [MQTT-4.3.3-9]', async () => {
    const wire = await seq.session(5)
    await seq.answer(wire, publish2(elsewhere, 7), [ack(PUBREC, 7, 0x87)])
    await seq.answer(wire, ack(PUBREL, 7), [ack(PUBCOMP, 7, NOT_FOUND)])
    await seq.answer(wire, publish2(elsewhere, 7, AUDIO_FRAME, true), [ack(PUBREC, 7, 0x87)])
    await wire.destroy()
    await seq.stillWorking()
  })

  it('a PUBACK with an error code acknowledges its event all the same: the next event takes its place in the window [MQTT-4.4.0-2]', async () => {
    const wire = await seq.open()
    // Receive Maximum 1: the `session` event fills the window until it is acknowledged.
    wire.write(packet(0x10, seq.connectBody(5, { properties: [0x21, ...u16(1)] })))
    expect(hex((await wire.packet()).subarray(0, 4))).toMatch(/^20..0000$/)
    const session = await wire.packet()
    expect(session[0]).toBe(0x32)
    wire.write(packet(0x30, cat(field(control), [0], utf8('{"type":"ping","id":"after"}'))))
    wire.write(ack(0x40, publishIdentifier(session), 0x80))
    const pong = await wire.packet()
    expect(pong.toString('utf8')).toContain('"type":"pong"')
    await wire.destroy()
    await seq.stillWorking()
  })

  it('a control message refused with PUBREC 0x99 is a new message when it comes again, and its PUBREL names nothing', async () => {
    const wire = await seq.session(5)
    const refused = utf8('{"type":"nope","id":1}')
    await seq.answer(wire, publish2(control, 8, refused), [ack(PUBREC, 8, 0x99)])
    await seq.answer(wire, publish2(control, 8, refused, true), [ack(PUBREC, 8, 0x99)])
    await seq.answer(wire, ack(PUBREL, 8), [ack(PUBCOMP, 8, NOT_FOUND)])
    await wire.destroy()
    await seq.stillWorking()
  })
})

// ---- 4. packets pipelined behind CONNECT -------------------------------------------------------

/** Every packet the server sent until it closed the connection. */
const packetsUntilClosed = async (wire: Wire): Promise<Buffer[]> => {
  await wire.closedWithin()
  const packets: Buffer[] = []
  for (;;) {
    try {
      packets.push(await wire.packet())
    } catch {
      return packets
    }
  }
}

describe('4. a packet pipelined behind CONNECT is judged after CONNECT is answered', () => {
  const connectAnd = (v: Version, after: Bytes, password?: string) =>
    cat(packet(0x10, seq.connectBody(v, password === undefined ? {} : { password })), after)

  /** CONNACK 0 first; then `pings` PINGRESPs and event PUBLISHes (session, session.closing); MQTT 5 ends with DISCONNECT `reason`. */
  const expectAcceptedThenClosed = (v: Version, packets: Buffer[], reason: number, pings = 0) => {
    expect(hex(packets[0]!.subarray(0, 4))).toMatch(/^20..0000$/)
    const between = v === 5 ? packets.slice(1, -1) : packets.slice(1)
    if (v === 5) expect([packets.at(-1)![0], packets.at(-1)![2]]).toEqual([0xe0, reason])
    expect(between.filter((p) => hex(p) === 'd000')).toHaveLength(pings)
    const events = between.filter((p) => hex(p) !== 'd000')
    expect(events.map((p) => p[0]! & 0xf0)).toEqual(events.map(() => 0x30))
  }

  for (const v of [4, 5] as const) {
    const name = `MQTT ${v === 5 ? '5' : '3.1.1'}`
    it(`${name}: CONNECT and a reserved packet type in one write: CONNACK 0, then ${v === 5 ? 'DISCONNECT 0x81' : 'closed'}`, async () => {
      const wire = await seq.open()
      wire.write(connectAnd(v, [0x00, 0x00]))
      expectAcceptedThenClosed(v, await packetsUntilClosed(wire), 0x81)
      await seq.stillWorking()
    })

    it(`${name}: CONNECT and a second CONNECT in one write: CONNACK 0, then ${v === 5 ? 'DISCONNECT 0x82 [MQTT-3.1.0-2]' : 'closed'}`, async () => {
      const wire = await seq.open()
      wire.write(connectAnd(v, packet(0x10, seq.connectBody(v))))
      expectAcceptedThenClosed(v, await packetsUntilClosed(wire), 0x82)
      await seq.stillWorking()
    })

    it(`${name}: a refused CONNECT with a malformed packet behind it gets its CONNACK refusal only`, async () => {
      const wire = await seq.open()
      wire.write(connectAnd(v, [0x00, 0x00], 'not-a-token'))
      const packets = await packetsUntilClosed(wire)
      expect(packets).toHaveLength(1)
      expect(hex(packets[0]!.subarray(0, 4))).toMatch(v === 5 ? /^20..0086$/ : /^20020004$/)
      await seq.stillWorking()
    })
  }

  it('MQTT 5: more than 256 packets behind a CONNECT being decided: CONNACK 0, the 256 answered, then DISCONNECT 0x82', async () => {
    const wire = await seq.open()
    wire.write(connectAnd(5, Array.from({ length: 257 }, () => [0xc0, 0x00]).flat()))
    expectAcceptedThenClosed(5, await packetsUntilClosed(wire), 0x82, 256)
    await seq.stillWorking()
  })

  it('MQTT 5: CONNECT and a SUBSCRIBE with No Local on a shared subscription: CONNACK 0, then DISCONNECT 0x82', async () => {
    const wire = await seq.open()
    wire.write(connectAnd(5, subscribe(5, [['$share/g/hark/m/#', NO_LOCAL]])))
    expectAcceptedThenClosed(5, await packetsUntilClosed(wire), 0x82)
    await seq.stillWorking()
  })
})
