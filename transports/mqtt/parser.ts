/**
 * mqtt-packet's parser, made strict about strings. mqtt-packet decodes every UTF-8 string field
 * (topics, client identifier, user name, properties) with replacement characters instead of
 * refusing it; MQTT says a string with U+0000 or ill-formed UTF-8 (overlong forms, surrogates)
 * is a malformed packet that closes the connection [MQTT-1.5.4-1, -2]. We replace its one
 * string reader on our instance so every string field is checked where it is read.
 */
import { isUtf8 } from 'node:buffer'
import { parser as createParser, type Packet, type Parser } from 'mqtt-packet'

/** The parser internals the string check needs (mqtt-packet 9, parser.js). */
interface ParserInternals {
  _list: { slice(start: number, end: number): Buffer; length: number }
  _pos: number
  packet: { length: number }
  _parseNum(): number
  _emitError(error: Error): void
  _parseString(): string | null
}

export const INVALID_STRING = 'string is not well-formed UTF-8 or contains U+0000'

function parseCheckedString(this: ParserInternals): string | null {
  const length = this._parseNum()
  const end = length + this._pos
  if (length === -1 || end > this._list.length || end > this.packet.length) return null
  const bytes = this._list.slice(this._pos, end)
  this._pos = end
  if (bytes.indexOf(0) !== -1 || !isUtf8(bytes)) {
    this._emitError(new Error(INVALID_STRING))
    return null
  }
  return bytes.toString('utf8')
}

export interface StrictParser {
  /** Parse one whole packet (from the framer); `onPacket` or `onError` is called before it returns. */
  parse(bytes: Buffer): void
}

export const createStrictParser = (onPacket: (packet: Packet) => void, onError: (error: Error) => void): StrictParser => {
  const parser: Parser = createParser()
  ;(parser as unknown as ParserInternals)._parseString = parseCheckedString
  let failed = false
  parser.on('packet', (packet) => {
    if (!failed) onPacket(packet)
  })
  parser.on('error', (error: Error) => {
    // A bad string inside a field may make the caller report a second error: the first one counts.
    if (failed) return
    failed = true
    onError(error)
  })
  return {
    parse: (bytes) => {
      if (!failed) parser.parse(bytes)
    },
  }
}
