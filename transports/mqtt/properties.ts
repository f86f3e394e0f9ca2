/**
 * MQTT 5 properties, checked as data: the property table of MQTT 5.0 §2.2.2.2 (Table 2-4) —
 * identifier, data type, the packets it may appear in, whether it may repeat, the values it may
 * take — and one validator that every property set a client sends goes through (CONNECT, will
 * properties, PUBLISH, PUBACK, PUBREC, PUBREL, PUBCOMP, SUBSCRIBE, UNSUBSCRIBE, DISCONNECT).
 *
 * It reads the raw bytes before mqtt-packet builds its object (parser.ts), because mqtt-packet
 * accepts a property in any packet, reads a byte property as a boolean (so Payload Format
 * Indicator 2 becomes `true`) and lets a value run past the property length. What it finds:
 *   - Malformed Packet (0x81): a property length that is not a minimal variable byte integer or
 *     runs past the packet; an unknown identifier or one not valid for the packet [§2.2.2.2]; a
 *     value cut short by the property length; a Response Topic that is not a topic name.
 *   - Protocol Error (0x82): a property repeated that may appear once; a value outside its range
 *     (each property's section: "It is a Protocol Error … to have a value other than 0 or 1", "…
 *     for it to have the value 0"); Authentication Data without an Authentication Method
 *     [§3.1.2.11.10, §3.15.2.2.3]; a Subscription Identifier in a client's PUBLISH [MQTT-3.3.4-6].
 * The string rules (UTF-8, U+0000, control characters) are applied where mqtt-packet reads each
 * string (parser.ts).
 */

export type PropertyType = 'byte' | 'u16' | 'u32' | 'varint' | 'string' | 'binary' | 'pair'

/** Where a property set appears: a packet type, or the will properties inside CONNECT. */
export const PROPERTY_SETS = [
  'connect',
  'will',
  'connack',
  'publish',
  'puback',
  'pubrec',
  'pubrel',
  'pubcomp',
  'subscribe',
  'suback',
  'unsubscribe',
  'unsuback',
  'disconnect',
  'auth',
] as const
export type PropertySet = (typeof PROPERTY_SETS)[number]

export interface PropertyRule {
  readonly id: number
  /** The name mqtt-packet gives it. */
  readonly name: string
  readonly type: PropertyType
  /** The property sets it is valid in (§2.2.2.2, Table 2-4). */
  readonly in: ReadonlyArray<PropertySet>
  /** May appear more than once (User Property; Subscription Identifier only from server to client). */
  readonly repeatable?: boolean
  /** Allowed values of a numeric property; outside is a Protocol Error. */
  readonly min?: number
  readonly max?: number
  /** The value is a topic name (Response Topic): not empty, no wildcard [MQTT-3.3.2-14, MQTT-4.7.3-1]. */
  readonly topicName?: boolean
}

const ACKS: ReadonlyArray<PropertySet> = ['puback', 'pubrec', 'pubrel', 'pubcomp']

/** MQTT 5.0 §2.2.2.2, Table 2-4, with the value rules of each property's own section. */
export const PROPERTY_TABLE: ReadonlyArray<PropertyRule> = [
  { id: 0x01, name: 'payloadFormatIndicator', type: 'byte', in: ['publish', 'will'], min: 0, max: 1 },
  { id: 0x02, name: 'messageExpiryInterval', type: 'u32', in: ['publish', 'will'] },
  { id: 0x03, name: 'contentType', type: 'string', in: ['publish', 'will'] },
  { id: 0x08, name: 'responseTopic', type: 'string', in: ['publish', 'will'], topicName: true },
  { id: 0x09, name: 'correlationData', type: 'binary', in: ['publish', 'will'] },
  { id: 0x0b, name: 'subscriptionIdentifier', type: 'varint', in: ['publish', 'subscribe'], min: 1, max: 268_435_455 },
  { id: 0x11, name: 'sessionExpiryInterval', type: 'u32', in: ['connect', 'connack', 'disconnect'] },
  { id: 0x12, name: 'assignedClientIdentifier', type: 'string', in: ['connack'] },
  { id: 0x13, name: 'serverKeepAlive', type: 'u16', in: ['connack'] },
  { id: 0x15, name: 'authenticationMethod', type: 'string', in: ['connect', 'connack', 'auth'] },
  { id: 0x16, name: 'authenticationData', type: 'binary', in: ['connect', 'connack', 'auth'] },
  { id: 0x17, name: 'requestProblemInformation', type: 'byte', in: ['connect'], min: 0, max: 1 },
  { id: 0x18, name: 'willDelayInterval', type: 'u32', in: ['will'] },
  { id: 0x19, name: 'requestResponseInformation', type: 'byte', in: ['connect'], min: 0, max: 1 },
  { id: 0x1a, name: 'responseInformation', type: 'string', in: ['connack'] },
  { id: 0x1c, name: 'serverReference', type: 'string', in: ['connack', 'disconnect'] },
  { id: 0x1f, name: 'reasonString', type: 'string', in: ['connack', ...ACKS, 'suback', 'unsuback', 'disconnect', 'auth'] },
  { id: 0x21, name: 'receiveMaximum', type: 'u16', in: ['connect', 'connack'], min: 1, max: 65_535 },
  { id: 0x22, name: 'topicAliasMaximum', type: 'u16', in: ['connect', 'connack'] },
  // Topic Alias 0 or above the maximum is "Topic Alias invalid" (0x94), which needs the connection's maximum: handlers/publish.ts.
  { id: 0x23, name: 'topicAlias', type: 'u16', in: ['publish'] },
  { id: 0x24, name: 'maximumQoS', type: 'byte', in: ['connack'], min: 0, max: 1 },
  { id: 0x25, name: 'retainAvailable', type: 'byte', in: ['connack'], min: 0, max: 1 },
  {
    id: 0x26,
    name: 'userProperties',
    type: 'pair',
    in: ['connect', 'connack', 'publish', 'will', ...ACKS, 'subscribe', 'suback', 'unsubscribe', 'unsuback', 'disconnect', 'auth'],
    repeatable: true,
  },
  { id: 0x27, name: 'maximumPacketSize', type: 'u32', in: ['connect', 'connack'], min: 1, max: 0xffff_ffff },
  { id: 0x28, name: 'wildcardSubscriptionAvailable', type: 'byte', in: ['connack'], min: 0, max: 1 },
  { id: 0x29, name: 'subscriptionIdentifiersAvailable', type: 'byte', in: ['connack'], min: 0, max: 1 },
  { id: 0x2a, name: 'sharedSubscriptionAvailable', type: 'byte', in: ['connack'], min: 0, max: 1 },
]

export const AUTHENTICATION_METHOD = 0x15
export const AUTHENTICATION_DATA = 0x16
export const SUBSCRIPTION_IDENTIFIER = 0x0b

export interface PropertyProblem {
  readonly kind: 'malformed' | 'protocol'
  readonly message: string
}

const RULES: Array<PropertyRule | undefined> = new Array(128)
for (const rule of PROPERTY_TABLE) RULES[rule.id] = rule

/** Per property set: which identifiers are valid there (a byte per identifier; all identifiers are < 128). */
const VALID = Object.fromEntries(
  PROPERTY_SETS.map((set) => {
    const valid = new Uint8Array(128)
    for (const rule of PROPERTY_TABLE) if (rule.in.includes(set)) valid[rule.id] = 1
    return [set, valid]
  }),
) as { readonly [S in PropertySet]: Uint8Array }

/** Scratch: how often each identifier was seen in the set being checked (checks never nest). */
const seen = new Uint8Array(128)

const hex = (n: number) => `0x${n.toString(16).padStart(2, '0')}`
const malformed = (message: string): PropertyProblem => ({ kind: 'malformed', message })
const protocol = (message: string): PropertyProblem => ({ kind: 'protocol', message })
const cutShort = (rule: PropertyRule) => malformed(`the value of ${rule.name} runs past the property length`)

/** The value of the last variable byte integer `readVarint` read (no object per read). */
let varintValue = 0

/**
 * Read a variable byte integer at `pos` (before `end`) into `varintValue`; returns the position
 * after it, or -1 when it is longer than 4 bytes, not minimally encoded [MQTT-1.5.5-1] or cut short.
 */
const readVarint = (buf: Uint8Array, pos: number, end: number): number => {
  let value = 0
  let multiplier = 1
  for (let n = 0; n < 4 && pos < end; n++) {
    const byte = buf[pos++]!
    value += (byte & 0x7f) * multiplier
    multiplier *= 128
    if ((byte & 0x80) === 0) {
      if (byte === 0 && n > 0) return -1
      varintValue = value
      return pos
    }
  }
  return -1
}

/**
 * Check the property set that starts (with its Property Length) at `pos` and must end by `end`
 * (the end of the packet). Null when it is valid; mqtt-packet then builds the object.
 */
export const checkProperties = (buf: Uint8Array, pos: number, end: number, set: PropertySet): PropertyProblem | null => {
  const start = readVarint(buf, pos, end)
  if (start === -1) return malformed(`${set} property length is not a valid variable byte integer`)
  const stop = start + varintValue
  if (stop > end) return malformed(`${set} property length runs past the end of the packet`)
  const valid = VALID[set]
  seen.fill(0)
  let p = start
  while (p < stop) {
    const id = buf[p++]!
    const rule = id < 128 && valid[id] === 1 ? RULES[id]! : undefined
    if (rule === undefined) {
      const known = id < 128 ? RULES[id] : undefined
      return malformed(known ? `property ${known.name} (${hex(id)}) is not valid in ${set}` : `unknown property identifier ${hex(id)} in ${set}`)
    }
    if (seen[id]! > 0 && rule.repeatable !== true) return protocol(`property ${rule.name} given more than once`)
    seen[id] = seen[id]! + 1
    let value = 0
    switch (rule.type) {
      case 'byte':
        if (p + 1 > stop) return cutShort(rule)
        value = buf[p]!
        p += 1
        break
      case 'u16':
        if (p + 2 > stop) return cutShort(rule)
        value = (buf[p]! << 8) | buf[p + 1]!
        p += 2
        break
      case 'u32':
        if (p + 4 > stop) return cutShort(rule)
        value = buf[p]! * 0x100_0000 + ((buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!)
        p += 4
        break
      case 'varint': {
        p = readVarint(buf, p, stop)
        if (p === -1) return malformed(`the value of ${rule.name} is not a valid variable byte integer`)
        value = varintValue
        break
      }
      case 'string':
      case 'binary': {
        if (p + 2 > stop) return cutShort(rule)
        const n = (buf[p]! << 8) | buf[p + 1]!
        if (p + 2 + n > stop) return cutShort(rule)
        if (rule.topicName === true && !isTopicNameBytes(buf, p + 2, p + 2 + n)) {
          return malformed(`${rule.name} must be a topic name: not empty, without wildcards`)
        }
        p += 2 + n
        break
      }
      case 'pair':
        for (let k = 0; k < 2; k++) {
          if (p + 2 > stop) return cutShort(rule)
          const n = (buf[p]! << 8) | buf[p + 1]!
          if (p + 2 + n > stop) return cutShort(rule)
          p += 2 + n
        }
        break
    }
    if ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max)) {
      return protocol(`property ${rule.name} has the value ${value}, outside ${rule.min}..${rule.max}`)
    }
  }
  if (seen[AUTHENTICATION_DATA]! > 0 && seen[AUTHENTICATION_METHOD] === 0) {
    return protocol('Authentication Data without an Authentication Method')
  }
  if (set === 'publish' && seen[SUBSCRIPTION_IDENTIFIER]! > 0) {
    return protocol('a client must not send a Subscription Identifier in PUBLISH')
  }
  return null
}

/** A topic name's bytes: at least one, no `+` or `#`. */
const isTopicNameBytes = (buf: Uint8Array, start: number, end: number): boolean => {
  if (end === start) return false
  for (let i = start; i < end; i++) if (buf[i] === 0x2b || buf[i] === 0x23) return false
  return true
}
