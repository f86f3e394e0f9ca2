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

/** Where a parsed packet, or the refusal of one, goes: the connection it came from. */
export interface PacketReceiver {
  parsed(packet: Packet): void
  parseFailed(error: PacketError): void
}

const EMPTY = Buffer.alloc(0)

/** What mqtt-packet reads from its settings: the protocol version of the packets after CONNECT. */
const VERSION_SETTINGS = { 4: { protocolVersion: 4 }, 5: { protocolVersion: 5 } } as const

/**
 * One strict parser for every connection of a transport. The framer hands over whole packets,
 * so mqtt-packet's parser (with its buffer list, a stream of its own, and two event listeners:
 * ~2.7 KB per connection) holds nothing between two packets; each `parse` tells it the
 * connection's protocol version and where the result goes. A packet whose fields do not add up
 * leaves nothing behind either: the parser is reset for the next one.
 */
export class StrictParser {
  private parser!: Parser
  private internals!: SharedInternals
  /** The connection of the packet being parsed, and whether it was refused already. */
  private receiver: PacketReceiver | null = null
  private failed = false

  constructor() {
    this.fresh()
  }

  /**
   * A new mqtt-packet parser with the strict readers. Made once, and again after a refusal:
   * mqtt-packet's own reset after an error leaves state behind (a valid CONNECT after a refused
   * one fails), so a parser that refused a packet is never used again.
   */
  private fresh(): void {
    const parser: Parser = createParser()
    const internals = parser as unknown as SharedInternals
    for (const method of ['_parseString', '_parseMessageId', '_parseProperties', '_newPacket', '_parseNum', '_emitError'] as const) {
      if (typeof internals[method] !== 'function') throw new Error(`mqtt-packet changed: parser.${method} is gone (transports/mqtt/parser.ts)`)
    }
    internals._parseString = parseCheckedString
    internals._parseMessageId = parseCheckedMessageId
    internals._parseProperties = parseCheckedProperties
    internals._newPacket = checkedNewPacket
    internals.hark = { bytes: EMPTY, bodyStart: 0 }
    parser.on('packet', (packet: Packet) => {
      if (!this.failed) this.receiver!.parsed(packet)
    })
    parser.on('error', (error: Error) => {
      // A bad field may make mqtt-packet report a second error: the first one counts.
      if (this.failed) return
      this.failed = true
      this.receiver!.parseFailed(classify(error))
    })
    this.parser = parser
    this.internals = internals
  }

  /**
   * Parse one whole packet (from the framer; its variable header starts at `bodyStart`) of a
   * connection speaking `version` (CONNECT carries its own): `to.parsed` or `to.parseFailed` is
   * called before it returns.
   */
  parse(bytes: Buffer, bodyStart: number, version: 4 | 5, to: PacketReceiver): void {
    if (this.receiver !== null) {
      // Called again from inside a packet's handling: that packet's parse is not over, so this
      // one gets a parser of its own (no handler does this today; the guard keeps it correct).
      new StrictParser().parse(bytes, bodyStart, version, to)
      return
    }
    const internals = this.internals
    this.receiver = to
    this.failed = false
    internals.hark.bytes = bytes
    internals.hark.bodyStart = bodyStart
    internals.settings = VERSION_SETTINGS[version]
    try {
      this.parser.parse(bytes)
      if (!this.failed && (internals._list.length > 0 || internals._stateCounter !== 0)) {
        // Whole packet in, no packet out: a field claimed more bytes than the packet has.
        this.failed = true
        to.parseFailed(new PacketError('malformed packet (a field runs past the end of the packet)', 'malformed'))
      }
    } catch (e) {
      // mqtt-packet reading past a buffer it was handed: malformed, and the process stays up.
      if (!this.failed) {
        this.failed = true
        to.parseFailed(new PacketError(`malformed packet (${(e as Error).message})`, 'malformed'))
      }
    } finally {
      this.receiver = null
      if (this.failed || internals.error !== null) this.fresh()
      else {
        // Hold nothing of this connection's (a CONNECT becomes mqtt-packet's settings) until the next packet.
        internals.settings = VERSION_SETTINGS[4]
        internals.hark.bytes = EMPTY
      }
    }
  }
}

/** The internals a shared parser also reads: its state between packets. */
interface SharedInternals extends StrictInternals {
  _stateCounter: number
  settings: object
}

