/**
 * The opening handshake of every WebSocket upgrade on the gateway (/v1/connect and the routes),
 * checked before anything else is done with the request (RFC 6455 §4.2.1). uWS itself upgrades
 * any GET whose Sec-WebSocket-Key is 24 characters long, whatever the other headers say.
 *
 * One rule here protects the process, not the protocol: uWS (20.30, and its sources to this day)
 * marks a request whose first `Connection` line is five characters long (`close`) as "close after
 * the response", and an upgrade completed later, outside the request's own read, then ends with
 * the socket closed under it: 101 sent, then a use of freed memory (SIGSEGV). Such a request is
 * refused before it can be upgraded.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import { ProtocolError } from '../../core/extension.js'

/** A refused handshake: the error for the envelope, its HTTP status and any header the RFC wants. */
export interface HandshakeRefusal {
  readonly error: ProtocolError
  readonly status: 400 | 426
  readonly headers?: Readonly<Record<string, string>>
}

/** The protocol version this server speaks (RFC 6455 §4.4: a 426 names it). */
const VERSION = '13'
/** 16 random bytes, base64: 22 characters and the padding. */
const KEY = /^[A-Za-z0-9+/]{22}==$/

/** The comma-separated tokens of every line of a header, lower-cased, empty ones left out. */
const tokensOf = (lines: readonly string[]): string[] =>
  lines.flatMap((line) => line.split(',')).map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0)

const refuse = (message: string, status: 400 | 426 = 400, headers?: Record<string, string>): HandshakeRefusal => ({
  error: new ProtocolError({ message }),
  status,
  ...(headers ? { headers } : {}),
})

/**
 * The headers of `req` by lower-case name, every line kept in order (a name may repeat). Read it
 * before the first await: uWS invalidates `req` when the handler returns.
 */
export const headerLines = (req: HttpRequest): Map<string, string[]> => {
  const headers = new Map<string, string[]>()
  req.forEach((name, value) => {
    const values = headers.get(name)
    if (values) values.push(value)
    else headers.set(name, [value])
  })
  return headers
}

/** Null when the handshake may proceed; otherwise why not. */
export const checkHandshake = (headers: ReadonlyMap<string, readonly string[]>): HandshakeRefusal | null => {
  const connection = headers.get('connection') ?? []
  const options = tokensOf(connection)
  if (options.includes('close')) return refuse('a WebSocket upgrade cannot ask to close the connection (Connection: close)')
  if (!options.includes('upgrade')) return refuse('a WebSocket upgrade needs Connection: Upgrade')
  if (connection[0]!.length === 5) {
    return refuse('this server reads a five-character first Connection line as "close": send Connection: Upgrade first')
  }
  if (!tokensOf(headers.get('upgrade') ?? []).includes('websocket')) return refuse('a WebSocket upgrade needs Upgrade: websocket')
  const version = headers.get('sec-websocket-version') ?? []
  if (version.length !== 1 || version[0]!.trim() !== VERSION) {
    return refuse(`unsupported WebSocket version (this server speaks ${VERSION})`, 426, { 'sec-websocket-version': VERSION })
  }
  const key = headers.get('sec-websocket-key') ?? []
  if (key.length !== 1 || !KEY.test(key[0]!.trim())) {
    return refuse('Sec-WebSocket-Key must be one base64-encoded 16-byte value')
  }
  return null
}

/**
 * Complete an upgrade decided after an await (the token check), inside the response's own cork,
 * as uWS documents: uncorked, an upgrade whose request uWS marked "close" is closed under it, and
 * every write of the 101 is a syscall of its own.
 */
export const upgradeCorked = (res: HttpResponse, upgrade: () => void): void => {
  res.cork(upgrade)
}
