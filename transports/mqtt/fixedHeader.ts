/**
 * The first byte of every packet a client sends (packet type and flags, MQTT 3.1.1 §2.2 / 5.0
 * §2.1.2-2.1.3), judged as data before anything else is read: the framer looks the byte up in
 * the table of the connection's state and refuses a packet on that byte alone, before its
 * remaining length — so a reserved type, a server-only packet or anything but CONNECT as the
 * first packet closes the connection at once instead of waiting for a body.
 */
import { MalformedPacket, ProtocolError } from '../../core/extension.js'

export const FIRST_BYTE_OK = 0

/** A whole PINGREQ (no body) is recognised by its two bytes, without the parser (connection.ts). */
export const PINGREQ_FIRST_BYTE = 0xc0

/**
 * The largest packet MQTT can frame: the first byte, four bytes of Remaining Length and
 * 268,435,455 bytes after them. A client that sets no Maximum Packet Size (or a larger one) is
 * sent packets up to this: a small integer field on every connection, where Infinity made V8
 * keep a boxed number each (16 B per device).
 */
export const LARGEST_PACKET_BYTES = 1 + 4 + 268_435_455
/** PINGRESP is the same two bytes in every version: encoded once, not per ping (the output copies them). */
export const PINGRESP = Buffer.from([0xd0, 0x00])
/** Reserved type or invalid flags, of any type: Malformed Packet (0x81) [MQTT-2.1.3-1, MQTT-3.3.1-4]. */
export const FIRST_BYTE_MALFORMED = 1
/** A packet a client may not send in this state, with the flags of its type: Protocol Error (0x82). */
export const FIRST_BYTE_PROTOCOL = 2

export interface PacketTypeRule {
  readonly type: number
  readonly name: string
  /** Required low nibble; 'publish' = DUP, QoS and RETAIN (QoS 3 and DUP on QoS 0 are malformed). */
  readonly flags: number | 'publish'
  /** Whether a client may send it once CONNECT was received, per version. */
  readonly fromClient: { readonly 4: boolean; readonly 5: boolean }
  /** Why a client may not send it (the message of the close). */
  readonly refusal?: string
}

/**
 * MQTT 5.0 Table 2-1 / 3.1.1 Table 2.1 from the server's side. AUTH needs an Authentication
 * Method in CONNECT, which Hark never accepts, so it is never allowed [MQTT-4.12.0-7]; in 3.1.1
 * type 15 is reserved.
 */
export const PACKET_TYPES: ReadonlyArray<PacketTypeRule> = [
  { type: 0, name: 'reserved packet type 0', flags: 0, fromClient: { 4: false, 5: false }, refusal: 'packet type 0 is reserved' },
  { type: 1, name: 'CONNECT', flags: 0, fromClient: { 4: false, 5: false }, refusal: 'a second CONNECT on one connection' },
  { type: 2, name: 'CONNACK', flags: 0, fromClient: { 4: false, 5: false }, refusal: 'CONNACK is sent by servers only' },
  { type: 3, name: 'PUBLISH', flags: 'publish', fromClient: { 4: true, 5: true } },
  { type: 4, name: 'PUBACK', flags: 0, fromClient: { 4: true, 5: true } },
  { type: 5, name: 'PUBREC', flags: 0, fromClient: { 4: true, 5: true } },
  { type: 6, name: 'PUBREL', flags: 0b0010, fromClient: { 4: true, 5: true } },
  { type: 7, name: 'PUBCOMP', flags: 0, fromClient: { 4: true, 5: true } },
  { type: 8, name: 'SUBSCRIBE', flags: 0b0010, fromClient: { 4: true, 5: true } },
  { type: 9, name: 'SUBACK', flags: 0, fromClient: { 4: false, 5: false }, refusal: 'SUBACK is sent by servers only' },
  { type: 10, name: 'UNSUBSCRIBE', flags: 0b0010, fromClient: { 4: true, 5: true } },
  { type: 11, name: 'UNSUBACK', flags: 0, fromClient: { 4: false, 5: false }, refusal: 'UNSUBACK is sent by servers only' },
  { type: 12, name: 'PINGREQ', flags: 0, fromClient: { 4: true, 5: true } },
  { type: 13, name: 'PINGRESP', flags: 0, fromClient: { 4: false, 5: false }, refusal: 'PINGRESP is sent by servers only' },
  { type: 14, name: 'DISCONNECT', flags: 0, fromClient: { 4: true, 5: true } },
  { type: 15, name: 'AUTH', flags: 0, fromClient: { 4: false, 5: false }, refusal: 'AUTH is not offered: authenticate with the CONNECT password' },
]

/** Which refusal a type gets after CONNECT: reserved types are malformed, the rest protocol errors. */
const isReservedType = (type: number, version: 4 | 5) => type === 0 || (type === 15 && version === 4)

const flagsValid = (rule: PacketTypeRule, flags: number): boolean => {
  if (rule.flags !== 'publish') return flags === rule.flags
  const qos = (flags >> 1) & 3
  return qos !== 3 && !(qos === 0 && (flags & 0b1000) !== 0)
}

const tableFor = (state: 4 | 5 | 'before-connect'): Uint8Array => {
  const table = new Uint8Array(256)
  for (let byte = 0; byte < 256; byte++) {
    const rule = PACKET_TYPES[byte >> 4]!
    if (state === 'before-connect') {
      // The first packet must be CONNECT [MQTT-3.1.0-1], with its reserved flags clear.
      table[byte] = byte === 0x10 ? FIRST_BYTE_OK : FIRST_BYTE_MALFORMED
    } else if (isReservedType(rule.type, state) || !flagsValid(rule, byte & 0x0f)) {
      // The byte as data first: invalid flags are a Malformed Packet whatever the type [MQTT-2.1.3-1].
      table[byte] = FIRST_BYTE_MALFORMED
    } else {
      table[byte] = rule.fromClient[state] ? FIRST_BYTE_OK : FIRST_BYTE_PROTOCOL
    }
  }
  return table
}

/** The verdict on each possible first byte, per connection state. */
export const FIRST_BYTE = {
  beforeConnect: tableFor('before-connect'),
  4: tableFor(4),
  5: tableFor(5),
} as const

/** Why a first byte was refused (only read when a connection is closed for it). */
export const firstByteRefusal = (byte: number, state: 4 | 5 | 'before-connect'): string => {
  const rule = PACKET_TYPES[byte >> 4]!
  if (state === 'before-connect') return byte >> 4 === 1 ? 'CONNECT with reserved fixed-header flags' : `first packet is ${rule.name}, not CONNECT`
  if (isReservedType(rule.type, state)) return rule.type === 15 ? 'packet type 15 is reserved in MQTT 3.1.1' : rule.refusal!
  if (flagsValid(rule, byte & 0x0f)) return rule.refusal!
  if (rule.flags === 'publish') {
    return ((byte >> 1) & 3) === 3 ? 'PUBLISH with QoS 3' : 'DUP set on a QoS 0 PUBLISH'
  }
  return `${rule.name} with reserved fixed-header flags ${(byte & 0x0f).toString(2).padStart(4, '0')}`
}

/** The error a refused first byte closes the connection with: Protocol Error for a type not allowed now, else Malformed Packet. */
export const firstByteError = (byte: number, state: 4 | 5 | 'before-connect'): MalformedPacket | ProtocolError => {
  const message = firstByteRefusal(byte, state)
  return state !== 'before-connect' && FIRST_BYTE[state][byte] === FIRST_BYTE_PROTOCOL
    ? new ProtocolError({ message })
    : new MalformedPacket({ message })
}
