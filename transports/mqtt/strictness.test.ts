/**
 * MQTT 3.1.1 and 5.0 strictness, generated from tables rather than written case by case:
 *   - every first byte (packet type × flags) in each state: before CONNECT, after a 3.1.1 CONNECT,
 *     after a 5.0 CONNECT — refused on that byte alone, before any length byte is sent;
 *   - every packet type cut short inside its fields or with a byte left over (the remaining length
 *     must match the contents);
 *   - MQTT 5: packet type × property identifier × value class (valid, repeated, out of range, cut
 *     short, not a topic name), plus unknown identifiers and broken property lengths;
 *   - the must-close list of 3.1.1 / 5.0 for topic filters and control characters.
 * Each case sends raw bytes over its own TCP socket to a real engine and asserts the exact bytes
 * that come back — nothing, or one CONNACK / DISCONNECT with the reason code and a Reason String —
 * and that the server closes the socket; an accepted case gets its exact answer and a PINGRESP.
 * After every case a well-behaved mqtt.js client of the same engine is still served (the harness:
 * test/sequences.ts).
 *
 * The expectations are written here from the spec statements, independently of the tables the
 * server uses (fixedHeader.ts, properties.ts); only the list of properties is shared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROPERTY_TABLE, type PropertyRule, type PropertySet } from './properties.js'
import { connectDevice, startMqttEngine, type Device } from './test/helpers.js'
import {
  cat,
  field,
  hex,
  packet,
  propertySet,
  refusedAfterConnect,
  refusedConnect,
  Sequences,
  silent,
  u16,
  u32,
  utf8,
  type Bytes,
  type Case,
  type Outcome,
  type Version,
} from './test/sequences.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
let bystander: Device
let token = ''
const seq = new Sequences()

beforeAll(async () => {
  t = await startMqttEngine()
  t.seed.addClient('m', 'lobby')
  t.seed.addClient('bystander', 'lobby')
  token = await t.token('m')
  bystander = await connectDevice(t.port, 'bystander', { password: await t.token('bystander'), protocolVersion: 5 })
  await bystander.event('session')
  // mqtt.js writes a PUBLISH in pieces: without this, Nagle and delayed ACKs add ~40 ms to every check.
  ;(bystander.client.stream as import('node:net').Socket).setNoDelay(true)
  seq.attach({ port: t.port, token, bystander })
})
afterAll(async () => {
  await bystander.end()
  await t.stop()
})

const audio = 'hark/m/up/audio'
const connectBody = seq.connectBody.bind(seq)
const check = seq.check.bind(seq)
const stillWorking = seq.stillWorking.bind(seq)
const run = seq.run.bind(seq)

// ---- 1. the first byte ----------------------------------------------------------------------------

/**
 * The verdict on a first byte after CONNECT, from MQTT 3.1.1 §2.2 / 5.0 §2.1.2-2.1.3: type 0 is
 * reserved (malformed), 15 is reserved in 3.1.1; invalid flags are a Malformed Packet whatever
 * the type (§2.1.3) — SUBSCRIBE, UNSUBSCRIBE and PUBREL must carry flags 0010, PUBLISH must not
 * have QoS 3 [MQTT-3.3.1-4] nor DUP on QoS 0 [MQTT-3.3.1-2], the others flags 0000 [MQTT-2.2.2-1];
 * with valid flags, a second CONNECT [MQTT-3.1.0-2], a server-only packet and AUTH in 5.0 (without
 * an Authentication Method [MQTT-4.12.0-7]) are protocol errors.
 */
const firstByteVerdict = (v: Version, byte: number): number => {
  const type = byte >> 4
  const flags = byte & 0x0f
  if (type === 0 || (type === 15 && v === 4)) return 0x81
  if ([1, 2, 9, 11, 13, 15].includes(type)) return flags === 0 ? 0x82 : 0x81
  if (type === 3) return (flags & 0b0110) === 0b0110 || (flags & 0b1110) === 0b1000 ? 0x81 : 0
  if ([6, 8, 10].includes(type)) return flags === 0b0010 ? 0 : 0x81
  return flags === 0 ? 0 : 0x81
}

describe('1. every first byte is judged before the length is read', () => {
  const bytes = Array.from({ length: 256 }, (_, b) => b)
  describe('before CONNECT: anything but 0x10 closes at once [MQTT-3.1.0-1, MQTT-2.2.2-2]', () => {
    run(bytes.filter((b) => b !== 0x10).map((b) => ({ name: `first byte 0x${hex([b])}`, version: 4, afterConnect: false, bytes: () => [b], outcome: silent })))
  })
  for (const v of [4, 5] as const) {
    describe(`after an MQTT ${v === 5 ? '5' : '3.1.1'} CONNECT`, () => {
      run(
        bytes
          .filter((b) => firstByteVerdict(v, b) !== 0)
          .map((b) => ({ name: `first byte 0x${hex([b])}`, version: v, afterConnect: true, bytes: () => [b], outcome: refusedAfterConnect(v, firstByteVerdict(v, b)) })),
      )
    })
  }
})

// ---- 2. the remaining length matches the contents -------------------------------------------------

interface Template {
  readonly name: string
  readonly first: number
  readonly body: (v: Version) => number[]
  /** The outcome of the body cut to `length` bytes (a shorter remaining length); null = not a case. */
  readonly cut: (v: Version, length: number) => Outcome | null
  /** Whether a byte after the last field is a case (not for PUBLISH, whose payload is the rest). */
  readonly trailing: boolean
  readonly afterConnect: boolean
}

/** How the server answers a valid acknowledgement of identifier 9 (it never sends QoS 2, so PUBREC / PUBREL name nothing of its own). */
const ackAnswer = (v: Version, first: number): Bytes[] => {
  if (first === 0x50) return [v === 5 ? [0x62, 0x04, 0x00, 0x09, 0x92, 0x00] : [0x62, 0x02, 0x00, 0x09]] // PUBREL, 0x92 not found
  if (first === 0x62) return [v === 5 ? [0x70, 0x04, 0x00, 0x09, 0x92, 0x00] : [0x70, 0x02, 0x00, 0x09]] // PUBCOMP, 0x92 not found
  return [] // PUBACK, PUBCOMP: nothing
}

const templates: Template[] = [
  {
    // With user name, password and a will, every prefix of the body lacks a field.
    name: 'CONNECT',
    first: 0x10,
    body: (v) => connectBody(v, { will: {}, password: 'x' }),
    // The version is known once the level byte (offset 6) arrived: then MQTT 5 hears CONNACK 0x81 [MQTT-3.1.4-1].
    cut: (v, length) => (length > 6 ? refusedConnect(v, 0x81) : silent),
    trailing: true,
    afterConnect: false,
  },
  {
    name: 'PUBLISH QoS 1',
    first: 0x32,
    body: (v) => cat(field(audio), u16(7), v === 5 ? [0] : [], [0x80, 1]),
    // Cut inside the variable header: malformed; inside the payload the frame is only too short (a protocol error).
    cut: (v, length) => (length < 2 + audio.length + 2 + (v === 5 ? 1 : 0) ? refusedAfterConnect(v, 0x81) : refusedAfterConnect(v, 0x82)),
    trailing: false,
    afterConnect: true,
  },
  ...(
    [
      ['PUBACK', 0x40],
      ['PUBREC', 0x50],
      ['PUBREL', 0x62],
      ['PUBCOMP', 0x70],
    ] as const
  ).map(
    ([name, first]): Template => ({
      name,
      first,
      // MQTT 5: identifier, reason code, and a Reason String property.
      body: (v) => (v === 5 ? cat(u16(9), [0x00], propertySet([0x1f, ...field('x')])) : u16(9)),
      // MQTT 5 allows the remaining length 2 (identifier only) and 3 (no properties) [§3.4.2.1, §3.4.2.2.1].
      cut: (v, length) => (v === 5 && (length === 2 || length === 3) ? { kind: 'answer', packets: ackAnswer(v, first) } : refusedAfterConnect(v, 0x81)),
      trailing: true,
      afterConnect: true,
    }),
  ),
  {
    name: 'SUBSCRIBE',
    first: 0x82,
    body: (v) => cat(u16(5), v === 5 ? [0] : [], field('hark/m/down/audio'), [0]),
    // Right after the identifier (and 5.0's properties) there are no filters: a protocol error [MQTT-3.8.3-3].
    cut: (v, length) => (length === (v === 5 ? 3 : 2) ? refusedAfterConnect(v, 0x82) : refusedAfterConnect(v, 0x81)),
    trailing: true,
    afterConnect: true,
  },
  {
    name: 'UNSUBSCRIBE',
    first: 0xa2,
    body: (v) => cat(u16(6), v === 5 ? [0] : [], field('hark/m/down/audio')),
    cut: (v, length) => (length === (v === 5 ? 3 : 2) ? refusedAfterConnect(v, 0x82) : refusedAfterConnect(v, 0x81)),
    trailing: true,
    afterConnect: true,
  },
  { name: 'PINGREQ', first: 0xc0, body: () => [], cut: () => null, trailing: true, afterConnect: true },
  {
    name: 'DISCONNECT',
    first: 0xe0,
    // MQTT 5: reason code and a Session Expiry Interval of 0.
    body: (v) => (v === 5 ? cat([0x00], propertySet([0x11, ...u32(0)])) : []),
    // Remaining length 0 (no reason code) and 1 (no properties) are valid in 5.0 [§3.14.2.1, §3.14.2.2.1].
    cut: (v, length) => (length <= 1 ? { kind: 'goodbye' } : refusedAfterConnect(v, 0x81)),
    trailing: true,
    afterConnect: true,
  },
]

describe('2. the remaining length must match the contents, for every packet type', () => {
  for (const v of [4, 5] as const) {
    const cases: Case[] = []
    for (const tpl of templates) {
      const body = tpl.body(v)
      for (let length = 0; length < body.length; length++) {
        const outcome = tpl.cut(v, length)
        if (outcome) cases.push({ name: `${tpl.name} cut to ${length} of ${body.length} bytes`, version: v, afterConnect: tpl.afterConnect, bytes: () => packet(tpl.first, body.slice(0, length)), outcome })
      }
      if (tpl.trailing) {
        const outcome = tpl.first === 0x10 ? refusedConnect(v, 0x81) : refusedAfterConnect(v, 0x81)
        cases.push({ name: `${tpl.name} with a byte after its last field`, version: v, afterConnect: tpl.afterConnect, bytes: () => packet(tpl.first, [...body, 0]), outcome })
      }
    }
    // 3.1.1: a user name or password without its flag is bytes after the last field [MQTT-3.1.2-18, -20].
    const withoutFlags = (mask: number) => () => {
      const body = connectBody(v)
      body[7] = body[7]! & ~mask
      return body
    }
    const noPasswordFlag = withoutFlags(0x40)
    const noUsernameFlag = withoutFlags(0xc0)
    cases.push(
      { name: 'CONNECT with a password but no password flag', version: v, afterConnect: false, bytes: () => packet(0x10, noPasswordFlag()), outcome: refusedConnect(v, 0x81) },
      { name: 'CONNECT with a user name and password but neither flag', version: v, afterConnect: false, bytes: () => packet(0x10, noUsernameFlag()), outcome: refusedConnect(v, 0x81) },
    )
    describe(`MQTT ${v === 5 ? '5' : '3.1.1'}`, () => run(cases))
  }
})

// ---- 3. MQTT 5 properties: packet type × property × value class --------------------------------

/** The property sets a client sends (AUTH is refused on its first byte: enhanced authentication is not offered). */
const CLIENT_SETS: ReadonlyArray<PropertySet> = ['connect', 'will', 'publish', 'puback', 'pubrec', 'pubrel', 'pubcomp', 'subscribe', 'unsubscribe', 'disconnect']

/** A packet from the client (first byte and body) that carries `properties` as the property set of `set`. */
const withProperties = (set: PropertySet, properties: Bytes): { first: number; body: number[]; afterConnect: boolean } => {
  switch (set) {
    case 'connect':
      return { first: 0x10, body: connectBody(5, { properties }), afterConnect: false }
    case 'will':
      return { first: 0x10, body: connectBody(5, { will: { properties } }), afterConnect: false }
    case 'publish':
      return { first: 0x32, body: cat(field(audio), u16(7), propertySet(properties), [0x80, 1]), afterConnect: true }
    case 'puback':
    case 'pubrec':
    case 'pubrel':
    case 'pubcomp': {
      const first = { puback: 0x40, pubrec: 0x50, pubrel: 0x62, pubcomp: 0x70 }[set]
      return { first, body: cat(u16(9), [0x00], propertySet(properties)), afterConnect: true }
    }
    case 'subscribe':
      return { first: 0x82, body: cat(u16(5), propertySet(properties), field('hark/m/down/audio'), [0]), afterConnect: true }
    case 'unsubscribe':
      return { first: 0xa2, body: cat(u16(6), propertySet(properties), field('hark/m/down/audio')), afterConnect: true }
    case 'disconnect':
      return { first: 0xe0, body: cat([0x00], propertySet(properties)), afterConnect: true }
    default:
      throw new Error(`not sent by a client: ${set}`)
  }
}

/** How the server answers each packet above when it is valid. */
const accepted = (set: PropertySet): Outcome => {
  switch (set) {
    case 'connect':
    case 'will':
      return { kind: 'connected' }
    case 'publish':
      return { kind: 'answer', packets: [[0x40, 0x02, 0x00, 0x07]] } // PUBACK
    case 'pubrec':
      return { kind: 'answer', packets: ackAnswer(5, 0x50) }
    case 'pubrel':
      return { kind: 'answer', packets: ackAnswer(5, 0x62) }
    case 'subscribe':
      return { kind: 'answer', packets: [[0x90, 0x04, 0x00, 0x05, 0x00, 0x00]] } // SUBACK, QoS 0 granted
    case 'unsubscribe':
      return { kind: 'answer', packets: [[0xb0, 0x04, 0x00, 0x06, 0x00, 0x11]] } // UNSUBACK, no subscription existed
    case 'disconnect':
      return { kind: 'goodbye' }
    default:
      return { kind: 'answer', packets: [] } // PUBACK, PUBCOMP
  }
}

/** The refusal with `reason` in the terms of the packet: CONNACK for CONNECT (and its will), DISCONNECT after. */
const refused = (set: PropertySet, reason: number): Outcome => (set === 'connect' || set === 'will' ? refusedConnect(5, reason) : refusedAfterConnect(5, reason))

/** A valid value of each property, as bytes (values a connection can go on with). */
const validValue = (rule: PropertyRule): number[] => {
  switch (rule.type) {
    case 'byte':
      return [rule.min ?? 0]
    case 'u16':
      return u16(rule.name === 'topicAlias' ? 1 : rule.name === 'receiveMaximum' ? 16 : 0)
    case 'u32':
      return u32(rule.name === 'maximumPacketSize' ? 65_535 : 0)
    case 'varint':
      return [0x01]
    case 'string':
      return field(rule.topicName ? 'a/b' : 'x')
    case 'binary':
      return field([1, 2])
    case 'pair':
      return cat(field('k'), field('v'))
  }
}

/** The value cut short: what remains of it inside the property length. */
const cutValue = (rule: PropertyRule): number[] => {
  switch (rule.type) {
    case 'byte':
      return []
    case 'u16':
      return [0]
    case 'u32':
      return [0, 0, 0]
    case 'varint':
      return [0x80]
    case 'string':
    case 'binary':
      return [0x00, 0x03, 0x78]
    case 'pair':
      return cat(field('k'), [0x00, 0x03, 0x78])
  }
}

/** Values outside the range the spec gives (each property's section: "It is a Protocol Error … to have a value other than 0 or 1", "… the value 0"). */
const outOfRange = (rule: PropertyRule): number[][] => {
  const values: number[] = []
  if (rule.min !== undefined && rule.min > 0) values.push(rule.min - 1)
  if (rule.type === 'byte' && rule.max !== undefined) values.push(rule.max + 1, 0xff)
  return values.map((n) => (rule.type === 'byte' ? [n] : rule.type === 'u16' ? u16(n) : rule.type === 'u32' ? u32(n) : [n]))
}

/**
 * A valid property present once in `set`: the §2.2.2.2 table says whether it may be there (if not:
 * Malformed Packet), then what Hark does with what it does not offer.
 */
const presentOnce = (set: PropertySet, rule: PropertyRule): Outcome => {
  if (!rule.in.includes(set)) return refused(set, 0x81)
  if (set === 'connect' && rule.name === 'authenticationMethod') return refused(set, 0x8c) // enhanced authentication is not offered
  if (set === 'connect' && rule.name === 'authenticationData') return refused(set, 0x82) // without an Authentication Method (§3.1.2.11.10)
  if (set === 'publish' && rule.name === 'subscriptionIdentifier') return refused(set, 0x82) // [MQTT-3.3.4-6]
  if (set === 'subscribe' && rule.name === 'subscriptionIdentifier') return refused(set, 0xa1) // Subscription Identifiers Available = 0
  return accepted(set)
}

describe('3. MQTT 5 properties: packet type × property × value class (§2.2.2.2)', () => {
  for (const set of CLIENT_SETS) {
    const cases: Case[] = []
    const add = (name: string, properties: Bytes, outcome: Outcome) => {
      const { afterConnect } = withProperties(set, properties)
      const bytes = () => {
        const { first, body } = withProperties(set, properties)
        return packet(first, body)
      }
      cases.push({ name: `${set.toUpperCase()}: ${name}`, version: 5, afterConnect, bytes, outcome })
    }
    for (const rule of PROPERTY_TABLE) {
      const id = `${rule.name} (0x${hex([rule.id])})`
      const once = [rule.id, ...validValue(rule)]
      add(`${id} once`, once, presentOnce(set, rule))
      if (!rule.in.includes(set)) continue
      add(`${id} twice`, [...once, ...once], rule.repeatable ? presentOnce(set, rule) : refused(set, 0x82))
      for (const value of outOfRange(rule)) add(`${id} = ${hex(value)}`, [rule.id, ...value], refused(set, 0x82))
      add(`${id} cut short by the property length`, [rule.id, ...cutValue(rule)], refused(set, 0x81))
      if (rule.topicName) {
        add(`${id} with a wildcard`, [rule.id, ...field('a/#')], refused(set, 0x81))
        add(`${id} empty`, [rule.id, ...field('')], refused(set, 0x81))
      }
    }
    // Topic Alias 0 or above Topic Alias Maximum (32): "Topic Alias invalid" (§3.3.4).
    if (set === 'publish') for (const alias of [0, 33]) add(`topicAlias = ${alias}`, [0x23, ...u16(alias)], refused(set, 0x94))
    for (const unknown of [0x00, 0x04, 0x10, 0x14, 0x20, 0x2b, 0x7f]) add(`unknown identifier 0x${hex([unknown])}`, [unknown, 0x00], refused(set, 0x81))
    add('an identifier of two bytes (0x80 0x01)', [0x80, 0x01, 0x00], refused(set, 0x81))
    // Property lengths that do not hold: beyond the packet, or not a minimal variable byte integer [MQTT-1.5.5-1].
    const { afterConnect } = withProperties(set, [])
    // Where the (empty) property length of each packet is, in its body.
    const at = set === 'connect' ? 10 : set === 'will' ? 10 + 1 + 3 : set === 'publish' ? 2 + audio.length + 2 : set === 'disconnect' ? 1 : set === 'subscribe' || set === 'unsubscribe' ? 2 : 3
    const withLength = (length: number[]) => () => {
      const { first, body } = withProperties(set, [])
      return packet(first, [...body.slice(0, at), ...length, ...body.slice(at + 1)])
    }
    cases.push(
      { name: `${set.toUpperCase()}: property length beyond the packet`, version: 5, afterConnect, bytes: withLength([0xff, 0x7f]), outcome: refused(set, 0x81) },
      { name: `${set.toUpperCase()}: property length not minimally encoded (0x80 0x00)`, version: 5, afterConnect, bytes: withLength([0x80, 0x00]), outcome: refused(set, 0x81) },
    )
    describe(set.toUpperCase(), () => run(cases))
  }
})

// ---- 4. topic filters, control characters, subscription options, acknowledgements -----------------

/** Filters that are not filters: empty [MQTT-4.7.3-1], `#` not alone as the last level [MQTT-4.7.1-2], `+` not a whole level [MQTT-4.7.1-3]. */
const NOT_FILTERS = ['', '#/a', 'a/#/b', 'a#', 'a/b#', '+a', 'a+', 'ab/+e', 'hark/m/#/x', 'hark/m/down/+x']

/** Control characters U+0001–U+001F and U+007F–U+009F (3.1.1 §1.5.3, 5.0 §1.5.4): one rule for every string. */
const CONTROL_CHARACTERS = [0x01, 0x09, 0x0a, 0x1f, 0x7f, 0x80, 0x85, 0x9f].map((cp) => String.fromCodePoint(cp))

const subscribe = (v: Version, filters: string[], options = 0) =>
  packet(0x82, cat(u16(5), v === 5 ? [0] : [], ...filters.map((f) => cat(field(f), [options]))))
const unsubscribe = (v: Version, filters: string[]) => packet(0xa2, cat(u16(6), v === 5 ? [0] : [], ...filters.map((f) => field(f))))
const publishTo = (v: Version, topic: string) => packet(0x30, cat(field(topic), v === 5 ? [0] : [], [0x80, 1]))

describe('4. filters, control characters, subscription options and acknowledgements', () => {
  for (const v of [4, 5] as const) {
    const cases: Case[] = []
    const after = (name: string, bytes: () => Bytes, outcome: Outcome) => cases.push({ name, version: v, afterConnect: true, bytes, outcome })
    for (const filter of NOT_FILTERS) {
      after(`SUBSCRIBE to "${filter}"`, () => subscribe(v, [filter]), refusedAfterConnect(v, 0x81))
      after(`SUBSCRIBE to hark/m/down/audio and "${filter}"`, () => subscribe(v, ['hark/m/down/audio', filter]), refusedAfterConnect(v, 0x81))
      after(`UNSUBSCRIBE from "${filter}"`, () => unsubscribe(v, [filter]), refusedAfterConnect(v, 0x81))
    }
    for (const c of CONTROL_CHARACTERS) {
      const name = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
      cases.push(
        { name: `${name} in the client identifier`, version: v, afterConnect: false, bytes: () => packet(0x10, connectBody(v, { clientId: `m${c}` })), outcome: refusedConnect(v, 0x81) },
        { name: `${name} in the user name`, version: v, afterConnect: false, bytes: () => packet(0x10, connectBody(v, { username: `m${c}` })), outcome: refusedConnect(v, 0x81) },
        { name: `${name} in the will topic`, version: v, afterConnect: false, bytes: () => packet(0x10, connectBody(v, { will: { topic: `hark/m/${c}` } })), outcome: refusedConnect(v, 0x81) },
      )
      after(`${name} in a SUBSCRIBE filter`, () => subscribe(v, [`hark/m/${c}`]), refusedAfterConnect(v, 0x81))
      after(`${name} in an UNSUBSCRIBE filter`, () => unsubscribe(v, [`hark/m/${c}`]), refusedAfterConnect(v, 0x81))
      after(`${name} in a PUBLISH topic`, () => publishTo(v, `hark/m/up/${c}`), refusedAfterConnect(v, 0x81))
    }
    // The edges of the rule: U+007E and U+00A0 are characters like any other.
    for (const c of ['~', '\u00a0']) {
      after(`U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} in a SUBSCRIBE filter`, () => subscribe(v, [`hark/m/${c}`]), {
        kind: 'answer',
        packets: [v === 5 ? [0x90, 0x04, 0x00, 0x05, 0x00, 0x00] : [0x90, 0x03, 0x00, 0x05, 0x00]],
      })
    }
    // Subscription options: QoS 3 and Retain Handling 3 are Protocol Errors in 5.0 (§3.8.3.1), reserved bits malformed [MQTT-3.8.3-5]; 3.1.1 allows bits 0-1 only [MQTT-3-8.3-4].
    after('SUBSCRIBE with Maximum QoS 3', () => subscribe(v, ['hark/m/down/audio'], 0x03), refusedAfterConnect(v, 0x82))
    for (const bit of v === 5 ? [6, 7] : [2, 3, 4, 5, 6, 7]) {
      after(`SUBSCRIBE with reserved option bit ${bit}`, () => subscribe(v, ['hark/m/down/audio'], 1 << bit), refusedAfterConnect(v, 0x81))
    }
    if (v === 5) after('SUBSCRIBE with Retain Handling 3', () => subscribe(v, ['hark/m/down/audio'], 0x30), refusedAfterConnect(v, 0x82))
    // Acknowledgement reason codes that are not theirs (§3.4.2.1 - §3.7.2.1).
    if (v === 5) {
      for (const [name, first, codes] of [
        ['PUBACK', 0x40, [0x01, 0x04, 0x92, 0xff]],
        ['PUBREC', 0x50, [0x01, 0x04, 0x92, 0xff]],
        ['PUBREL', 0x62, [0x01, 0x10, 0x80, 0xff]],
        ['PUBCOMP', 0x70, [0x01, 0x10, 0x80, 0xff]],
      ] as const) {
        for (const code of codes) after(`${name} with reason code 0x${hex([code])}`, () => packet(first, cat(u16(9), [code])), refusedAfterConnect(v, 0x81))
      }
      after('DISCONNECT with reason code 0x03', () => packet(0xe0, [0x03, 0x00]), refusedAfterConnect(v, 0x81))
      after('a DISCONNECT that keeps a session that started with expiry 0', () => packet(0xe0, cat([0x00], propertySet([0x11, ...u32(60)]))), refusedAfterConnect(v, 0x82))
    }
    describe(`MQTT ${v === 5 ? '5' : '3.1.1'}`, () => run(cases))
  }
})

// ---- 5. a client's Maximum Packet Size (§3.1.2.11.4) ------------------------------------------------

describe('5. MQTT 5 Maximum Packet Size smaller than what the server must send (§3.1.2.11.4)', () => {
  /** CONNECT of `m` with these properties (and optionally another password). */
  const connectWith = (properties: number[], password?: string) => () => packet(0x10, connectBody(5, { properties, ...(password ? { password } : {}) }))
  const maximum = (n: number) => [0x27, ...u32(n)]
  // The CONNACK Hark sends `m` here: flags, reason, and 19 bytes of properties (Receive Maximum, Maximum
  // Packet Size, Topic Alias Maximum, Retain / Wildcard / Subscription Identifier / Shared Subscription Available).
  const CONNACK_BYTES = 24

  it('a CONNACK one byte too large for the client is not sent: the connection closes without one [MQTT-3.1.2-24, -25]', async () => {
    await check(5, false, connectWith(maximum(CONNACK_BYTES - 1))(), silent)
  })

  it('a CONNACK that just fits is sent', async () => {
    await check(5, false, connectWith(maximum(CONNACK_BYTES))(), { kind: 'connected' })
  })

  it('a refusal leaves its Reason String out when it would not fit [MQTT-3.2.2-19], and is not sent at all when even that is too large', async () => {
    for (const [limit, expected] of [
      [5, '2003008600'],
      [4, ''],
    ] as const) {
      const wire = await seq.open()
      wire.write(connectWith(maximum(limit), 'not-a-token')())
      await wire.closedWithin()
      expect(hex(wire.bytes)).toBe(expected)
      await stillWorking()
    }
  })

  it('a DISCONNECT leaves its Reason String out when it would not fit [MQTT-3.14.2-3]', async () => {
    const wire = await seq.open()
    wire.write(connectWith(maximum(CONNACK_BYTES))())
    expect(hex((await wire.packet()).subarray(0, 4))).toBe('20160000')
    const mark = wire.received
    wire.write([0x00]) // reserved packet type: DISCONNECT 0x81
    await wire.closedWithin()
    expect(hex(wire.since(mark))).toBe('e0028100')
    await stillWorking()
  })

  it('an event too large for the client is dropped as if delivered: it holds no inflight slot, the next event that fits arrives [MQTT-3.1.2-25]', async () => {
    const wire = await seq.open()
    // Receive Maximum 1: one undelivered event holding the only slot would stop every later one.
    wire.write(connectWith([...maximum(120), 0x21, ...u16(1)])())
    expect(hex((await wire.packet()).subarray(0, 4))).toBe('20160000')
    wire.write(packet(0x30, cat(field('hark/m/up/control'), [0], utf8('{"type":"ping","id":"small"}'))))
    const event = await wire.packet()
    expect(event[0]! & 0xf0).toBe(0x30)
    expect(event.length).toBeLessThanOrEqual(120)
    expect(event.toString('utf8')).toContain('"type":"pong"')
    await wire.destroy()
    await stillWorking()
  })
})

describe('the engine after all of the above', () => {
  it('the bystander was never disturbed and a new client still connects', async () => {
    await bystander.client.publishAsync(bystander.ns.upControl, JSON.stringify({ type: 'ping', id: 'last' }), { qos: 1 })
    expect(await bystander.event('pong', (e) => e.id === 'last')).toMatchObject({ id: 'last' })
    expect(bystander.disconnects.items).toEqual([])
    const fresh = await connectDevice(t.port, 'm', { password: token, protocolVersion: 5 })
    expect(await fresh.event('session')).toMatchObject({ room: 'lobby' })
    await fresh.end()
  })
})
