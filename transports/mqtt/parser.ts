/**
 * mqtt-packet's parser, made strict where it lets things through. We replace four of its
 * readers on our own instance (mqtt-packet 9, parser.js), so each check runs where the field is
 * read and nothing is parsed twice:
 *   - strings: mqtt-packet decodes every UTF-8 string (topics, filters, client identifier, user
 *     name, properties) with replacement characters. A string with ill-formed UTF-8 (invalid
 *     bytes, overlong forms, surrogates) or U+0000 is a malformed packet [MQTT-1.5.4-1, -2]; so is
 *     one with a control character U+0001–U+001F or U+007F–U+009F, which 3.1.1 §1.5.3 and 5.0
 *     §1.5.4 let a server refuse — one rule for every string of every packet.
 *   - packet identifiers: mqtt-packet reads a missing identifier as -1 and lets 0 through; both
 *     are malformed [MQTT-2.3.1-1].
 *   - MQTT 5 properties: checked against the property table first (properties.ts).
 *   - the end of the packet: every packet but PUBLISH (whose payload is the rest) must end with
 *     its last field; bytes left over are malformed — for CONNECT that is also a user name or a
 *     password without its flag [MQTT-3.1.2-18, -20 in 3.1.1].
 * Errors carry their MQTT 5 class: Malformed Packet (0x81) or Protocol Error (0x82).
 */
import { isUtf8 } from 'node:buffer'
import { parser as createParser, type Packet, type Parser } from 'mqtt-packet'
import { checkProperties, type PropertySet } from './properties.js'

/** The parser internals the checks need (mqtt-packet 9, parser.js). */
interface ParserInternals {
  _list: { slice(start: number, end: number): Buffer; length: number }
  _pos: number
  packet: { cmd: string; length: number; messageId?: number; clientId?: string }
  error: Error | null
  _parseNum(): number
  _emitError(error: Error): void
  _parseString(): string | null
  _parseMessageId(): boolean
  _parseProperties(): object | false
  _newPacket(): boolean
}

/** Our additions to the instance: the packet being parsed, as the framer handed it over. */
interface StrictInternals extends ParserInternals {
  hark: { bytes: Buffer; bodyStart: number }
}

/** A packet the parser refused, with the MQTT 5 class of the refusal. */
export class PacketError extends Error {
  constructor(
    message: string,
    readonly kind: 'malformed' | 'protocol',
  ) {
    super(message)
  }
}

/**
 * mqtt-packet's own refusals that MQTT 5 calls a Protocol Error (§3.8.3.1: "It is a Protocol
 * Error if the Maximum QoS field has the value 3", "… to send a Retain Handling value of 3");
 * every other refusal of it is a malformed packet.
 */
const MQTT_PACKET_PROTOCOL_ERRORS = new Set(['Invalid subscribe QoS, must be <= 2', 'Invalid retain handling, must be <= 2'])

export const classify = (error: Error): PacketError =>
  error instanceof PacketError ? error : new PacketError(error.message, MQTT_PACKET_PROTOCOL_ERRORS.has(error.message) ? 'protocol' : 'malformed')

/**
 * The first forbidden code point of a well-formed UTF-8 string, or -1: U+0000, U+0001–U+001F,
 * U+007F, and U+0080–U+009F (encoded C2 80–C2 9F).
 */
export const forbiddenCodePoint = (bytes: Uint8Array): number => {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (b < 0x20 || b === 0x7f) return b
    if (b === 0xc2 && i + 1 < bytes.length && bytes[i + 1]! <= 0x9f) return bytes[i + 1]!
  }
  return -1
}

function parseCheckedString(this: ParserInternals): string | null {
  const length = this._parseNum()
  const end = length + this._pos
  if (length === -1 || end > this._list.length || end > this.packet.length) return null
  const bytes = this._list.slice(this._pos, end)
  this._pos = end
  if (!isUtf8(bytes)) {
    this._emitError(new PacketError('string is not well-formed UTF-8', 'malformed'))
    return null
  }
  const forbidden = forbiddenCodePoint(bytes)
  if (forbidden !== -1) {
    const codePoint = `U+${forbidden.toString(16).toUpperCase().padStart(4, '0')}`
    this._emitError(new PacketError(forbidden === 0 ? 'string contains U+0000' : `string contains the control character ${codePoint}`, 'malformed'))
    return null
  }
  return bytes.toString('utf8')
}

function parseCheckedMessageId(this: ParserInternals): boolean {
  const id = this._parseNum()
  this.packet.messageId = id
  if (id > 0) return true
  this._emitError(new PacketError(id === 0 ? 'packet identifier 0' : 'packet too short for its packet identifier', 'malformed'))
  this._pos = this.packet.length // nothing more to read
  return false
}

/** mqtt-packet's own readers, which the checked ones call once a check passed. */
const original = Object.getPrototypeOf(createParser()) as ParserInternals

function parseCheckedProperties(this: StrictInternals): object | false {
  const { packet } = this
  // DISCONNECT may end before its property length (Remaining Length < 2: no properties, §3.14.2.2.1).
  if (this._pos >= packet.length && packet.cmd === 'disconnect') return {}
  const set: PropertySet = packet.cmd === 'connect' && packet.clientId !== undefined ? 'will' : (packet.cmd as PropertySet)
  const { bytes, bodyStart } = this.hark
  const problem = checkProperties(bytes, bodyStart + this._pos, bodyStart + packet.length, set)
  if (problem === null) return original._parseProperties.call(this)
  this._emitError(new PacketError(problem.message, problem.kind))
  this._pos = packet.length // nothing more to read
  return {}
}

function checkedNewPacket(this: ParserInternals): boolean {
  const { packet } = this
  if (packet.cmd !== 'publish' && this._pos !== packet.length) {
    this._emitError(new PacketError(`${packet.cmd.toUpperCase()}: the remaining length (${packet.length}) does not match its contents (${this._pos} bytes)`, 'malformed'))
    return false
  }
  return original._newPacket.call(this)
}

export interface StrictParser {
  /**
   * Parse one whole packet (from the framer; its variable header starts at `bodyStart`):
   * `onPacket` or `onError` is called before it returns.
   */
  parse(bytes: Buffer, bodyStart: number): void
}

export const createStrictParser = (onPacket: (packet: Packet) => void, onError: (error: PacketError) => void): StrictParser => {
  const parser: Parser = createParser()
  const internals = parser as unknown as StrictInternals
  for (const method of ['_parseString', '_parseMessageId', '_parseProperties', '_newPacket', '_parseNum', '_emitError'] as const) {
    if (typeof internals[method] !== 'function') throw new Error(`mqtt-packet changed: parser.${method} is gone (transports/mqtt/parser.ts)`)
  }
  internals._parseString = parseCheckedString
  internals._parseMessageId = parseCheckedMessageId
  internals._parseProperties = parseCheckedProperties
  internals._newPacket = checkedNewPacket
  internals.hark = { bytes: Buffer.alloc(0), bodyStart: 0 }
  let failed = false
  parser.on('packet', (packet) => {
    if (!failed) onPacket(packet)
  })
  parser.on('error', (error: Error) => {
    // A bad field may make mqtt-packet report a second error: the first one counts.
    if (failed) return
    failed = true
    onError(classify(error))
  })
  return {
    parse: (bytes, bodyStart) => {
      if (failed) return
      internals.hark.bytes = bytes
      internals.hark.bodyStart = bodyStart
      try {
        parser.parse(bytes)
      } catch (e) {
        // mqtt-packet reading past a buffer it was handed: malformed, and the process stays up.
        if (!failed) {
          failed = true
          onError(new PacketError(`malformed packet (${(e as Error).message})`, 'malformed'))
        }
      }
    },
  }
}
