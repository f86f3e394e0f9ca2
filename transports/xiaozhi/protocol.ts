/**
 * The xiaozhi-esp32 WebSocket protocol as bytes and JSON (spec/xiaozhi.md), with no I/O: the
 * binary framings of protocol versions 1, 2 and 3 in both directions, and the JSON messages a
 * device sends (checked) and the server sends (built). Written from the firmware's own documents
 * (docs/websocket.md, docs/mcp-protocol.md) and its protocol code, never from a server's.
 */
import { FrameTooLarge, ProtocolError, ValidationFailed, type HarkError } from '../../core/extension.js'

export type ProtocolVersion = 1 | 2 | 3

/** Binary protocol 2 header: version u16, type u16, reserved u32, timestamp u32, payload size u32 (big-endian). */
export const V2_HEADER_BYTES = 16
/** Binary protocol 3 header: type u8, reserved u8, payload size u16 (big-endian). */
export const V3_HEADER_BYTES = 4
/** Payload type of a binary message: Opus audio (v2 also names 1 = JSON, which the firmware never sends). */
export const BINARY_TYPE_OPUS = 0
export const BINARY_TYPE_JSON = 1

/** What one binary message from a device holds. */
export type BinaryPayload =
  | { readonly kind: 'opus'; readonly opus: Uint8Array }
  | { readonly kind: 'json'; readonly text: Uint8Array }
  | { readonly kind: 'error'; readonly error: HarkError }

const malformed = (message: string): BinaryPayload => ({ kind: 'error', error: new ProtocolError({ message }) })

/**
 * Where the Opus packet of a well-formed audio message of protocol `version` starts, or -1 for
 * anything else (JSON in a v2 message, a malformed header: `readBinary` says which). The packet's
 * size is checked with the uplink's other limits (TerminalInput). The per-packet path: reads
 * bytes, allocates nothing.
 */
export const opusOffset = (version: ProtocolVersion, data: Uint8Array): number => {
  const n = data.length
  if (version === 1) return 0
  if (version === 3) {
    return n >= V3_HEADER_BYTES && data[0] === BINARY_TYPE_OPUS && ((data[2]! << 8) | data[3]!) === n - V3_HEADER_BYTES ? V3_HEADER_BYTES : -1
  }
  if (n < V2_HEADER_BYTES || data[0] !== 0 || data[1] !== 2 || data[2] !== 0 || data[3] !== BINARY_TYPE_OPUS) return -1
  const size = ((data[12]! << 24) | (data[13]! << 16) | (data[14]! << 8) | data[15]!) >>> 0
  return size === n - V2_HEADER_BYTES ? V2_HEADER_BYTES : -1
}

/** Read one binary message of protocol `version`; `data` is a view the caller may reuse afterwards. */
export const readBinary = (version: ProtocolVersion, data: Uint8Array): BinaryPayload => {
  let type = BINARY_TYPE_OPUS
  let payload = data
  if (version === 2) {
    if (data.length < V2_HEADER_BYTES) return malformed(`binary protocol 2 needs a ${V2_HEADER_BYTES}-byte header, got ${data.length} bytes`)
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
    if (view.getUint16(0) !== 2) return malformed(`binary protocol 2 header names version ${view.getUint16(0)}`)
    type = view.getUint16(2)
    const size = view.getUint32(12)
    if (size !== data.length - V2_HEADER_BYTES) return malformed(`binary protocol 2 payload size ${size} does not match the ${data.length - V2_HEADER_BYTES} bytes sent`)
    payload = data.subarray(V2_HEADER_BYTES)
  } else if (version === 3) {
    if (data.length < V3_HEADER_BYTES) return malformed(`binary protocol 3 needs a ${V3_HEADER_BYTES}-byte header, got ${data.length} bytes`)
    type = data[0]!
    const size = (data[2]! << 8) | data[3]!
    if (size !== data.length - V3_HEADER_BYTES) return malformed(`binary protocol 3 payload size ${size} does not match the ${data.length - V3_HEADER_BYTES} bytes sent`)
    payload = data.subarray(V3_HEADER_BYTES)
  }
  if (type === BINARY_TYPE_JSON && version === 2) return { kind: 'json', text: payload }
  if (type !== BINARY_TYPE_OPUS) return malformed(`unknown binary message type ${type}`)
  return { kind: 'opus', opus: payload }
}

/** Header bytes in front of each downlink Opus packet. */
export const downlinkHeaderBytes = (version: ProtocolVersion): number =>
  version === 2 ? V2_HEADER_BYTES : version === 3 ? V3_HEADER_BYTES : 0

/**
 * Write the downlink framing of `opus` into `out` (at least header + packet bytes) and return the
 * bytes to send. Version 1 returns the packet itself. `timestamp` (ms) goes into the v2 header.
 */
export const writeBinary = (version: ProtocolVersion, opus: Uint8Array, out: Uint8Array, timestamp: number): Uint8Array => {
  if (version === 1) return opus
  const header = downlinkHeaderBytes(version)
  if (version === 2) {
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength)
    view.setUint16(0, 2)
    view.setUint16(2, BINARY_TYPE_OPUS)
    view.setUint32(4, 0)
    view.setUint32(8, timestamp >>> 0)
    view.setUint32(12, opus.length)
  } else {
    out[0] = BINARY_TYPE_OPUS
    out[1] = 0
    out[2] = opus.length >>> 8
    out[3] = opus.length & 0xff
  }
  out.set(opus, header)
  return out.subarray(0, header + opus.length)
}

// ---- JSON from the device ----

export type ListenMode = 'auto' | 'manual' | 'realtime'

/** The device's audio parameters from its hello, and what the server answers with. */
export interface AudioParams {
  readonly format: 'opus'
  readonly sample_rate: number
  readonly channels: number
  readonly frame_duration: number
}

export interface DeviceHello {
  readonly type: 'hello'
  readonly version: ProtocolVersion
  readonly transport: 'websocket'
  readonly features: Readonly<Record<string, unknown>>
  readonly audio_params: AudioParams
}

export type DeviceMessage =
  | DeviceHello
  | { readonly type: 'listen'; readonly state: 'start'; readonly mode: ListenMode }
  | { readonly type: 'listen'; readonly state: 'stop' }
  | { readonly type: 'listen'; readonly state: 'detect'; readonly text: string | null }
  | { readonly type: 'abort'; readonly reason: string | null }
  | { readonly type: 'mcp'; readonly payload: Readonly<Record<string, unknown>> }
  | { readonly type: 'goodbye' }
  /** The IoT descriptors and states of firmware before v1.8.0 (replaced by MCP): accepted, not used. */
  | { readonly type: 'iot' }

/**
 * Reading a text message: a message, or an error that closes the connection (`fatal`: not JSON,
 * no type) or is answered with an `error` message while the session goes on.
 */
export type DeviceMessageResult =
  | { readonly ok: true; readonly message: DeviceMessage }
  | { readonly ok: false; readonly fatal: boolean; readonly error: HarkError }

/** Frame durations (ms) a device may announce; the server answers with the same one. */
export const FRAME_DURATIONS: ReadonlyArray<number> = [20, 40, 60]
/** Largest text message a device may send (MCP tool lists included). */
export const MAX_TEXT_BYTES = 8192

const isObject = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === 'object' && !Array.isArray(u)
const field = (name: string, message: string): DeviceMessageResult => ({ ok: false, fatal: false, error: new ValidationFailed({ field: name, message }) })
const fatal = (message: string): DeviceMessageResult => ({ ok: false, fatal: true, error: new ProtocolError({ message }) })

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Check a device's hello against the protocol version of its connection. */
const readHello = (m: Record<string, unknown>, version: ProtocolVersion): DeviceMessageResult => {
  const fail = (message: string): DeviceMessageResult => ({ ok: false, fatal: true, error: new ProtocolError({ message }) })
  if (m.transport !== 'websocket') return fail('hello: transport must be "websocket"')
  if (m.version !== undefined && m.version !== version) {
    return fail(`hello: version ${JSON.stringify(m.version)} differs from the Protocol-Version header (${version})`)
  }
  const a = m.audio_params
  if (!isObject(a)) return fail('hello: audio_params must be an object')
  if (a.format !== 'opus') return fail('hello: audio_params.format must be "opus"')
  if (a.sample_rate !== 16000) return fail('hello: audio_params.sample_rate must be 16000')
  if (a.channels !== 1) return fail('hello: audio_params.channels must be 1')
  const frame = a.frame_duration ?? 60
  if (typeof frame !== 'number' || !FRAME_DURATIONS.includes(frame)) {
    return fail(`hello: audio_params.frame_duration must be one of ${FRAME_DURATIONS.join(', ')}`)
  }
  const features = isObject(m.features) ? m.features : {}
  return {
    ok: true,
    message: { type: 'hello', version, transport: 'websocket', features, audio_params: { format: 'opus', sample_rate: 16000, channels: 1, frame_duration: frame } },
  }
}

/** Read one text message of a device (UTF-8 bytes). */
export const readDeviceMessage = (bytes: Uint8Array, version: ProtocolVersion): DeviceMessageResult => {
  if (bytes.length > MAX_TEXT_BYTES) return { ok: false, fatal: true, error: new FrameTooLarge({ message: `text message of ${bytes.length} bytes exceeds ${MAX_TEXT_BYTES}` }) }
  let parsed: unknown
  try {
    parsed = JSON.parse(utf8.decode(bytes))
  } catch {
    return fatal('text message is not JSON')
  }
  if (!isObject(parsed)) return fatal('text message must be a JSON object')
  const type = parsed.type
  if (typeof type !== 'string' || type.length === 0) return fatal('text message has no "type"')
  switch (type) {
    case 'hello':
      return readHello(parsed, version)
    case 'listen': {
      const state = parsed.state
      if (state === 'start') {
        const mode = parsed.mode ?? 'auto'
        if (mode !== 'auto' && mode !== 'manual' && mode !== 'realtime') return field('mode', 'listen: mode must be "auto", "manual" or "realtime"')
        return { ok: true, message: { type: 'listen', state, mode } }
      }
      if (state === 'stop') return { ok: true, message: { type: 'listen', state } }
      if (state === 'detect') return { ok: true, message: { type: 'listen', state, text: typeof parsed.text === 'string' ? parsed.text : null } }
      return field('state', 'listen: state must be "start", "stop" or "detect"')
    }
    case 'abort':
      return { ok: true, message: { type: 'abort', reason: typeof parsed.reason === 'string' ? parsed.reason : null } }
    case 'mcp':
      if (!isObject(parsed.payload) || parsed.payload.jsonrpc !== '2.0') return field('payload', 'mcp: payload must be a JSON-RPC 2.0 object')
      return { ok: true, message: { type: 'mcp', payload: parsed.payload } }
    case 'goodbye':
      return { ok: true, message: { type: 'goodbye' } }
    case 'iot':
      return { ok: true, message: { type: 'iot' } }
    default:
      return field('type', `unknown message type ${JSON.stringify(type.slice(0, 64))}`)
  }
}

// ---- JSON to the device ----

export const serverHello = (sessionId: string, frameDuration: number): string =>
  JSON.stringify({
    type: 'hello',
    transport: 'websocket',
    session_id: sessionId,
    audio_params: { format: 'opus', sample_rate: 16000, channels: 1, frame_duration: frameDuration },
  })

export const ttsMessage = (sessionId: string, state: 'start' | 'stop'): string => JSON.stringify({ session_id: sessionId, type: 'tts', state })
export const sentenceMessage = (sessionId: string, text: string): string =>
  JSON.stringify({ session_id: sessionId, type: 'tts', state: 'sentence_start', text })
export const sttMessage = (sessionId: string, text: string): string => JSON.stringify({ session_id: sessionId, type: 'stt', text })
export const llmMessage = (sessionId: string, emotion: string, text: string): string =>
  JSON.stringify({ session_id: sessionId, type: 'llm', emotion, text })
export const mcpMessage = (sessionId: string, payload: Readonly<Record<string, unknown>>): string =>
  JSON.stringify({ session_id: sessionId, type: 'mcp', payload })
/** A refused message, told to the device (which logs it) while the session goes on. */
export const errorMessage = (sessionId: string | null, code: string, message: string): string =>
  JSON.stringify({ session_id: sessionId, type: 'error', code, message })
