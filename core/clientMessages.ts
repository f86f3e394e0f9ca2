/**
 * Terminal protocol v1: reading the control messages a terminal sends, the same way on every
 * transport (WebSocket text frames, MQTT control publishes, WebRTC data channel messages), and
 * answering them. spec/terminal-protocol.md documents the rules:
 *
 *   - not JSON, not an object, or no string `type`  → fatal: close with protocol_error
 *   - larger than MAX_CONTROL_MESSAGE_BYTES          → fatal: close with frame_too_large
 *   - unknown `type`, or a known one with a bad field → an `error` event (validation_failed), stays open
 */
import { FrameTooLarge, ProtocolError, ValidationFailed, wireCodesOf, type HarkError } from './errors.js'
import { MAX_CONTROL_MESSAGE_BYTES, type ClientMessage, type ServerEvent } from './events.js'
import type { TerminalSession } from './session.js'

export type ClientMessageResult =
  | { readonly ok: true; readonly message: ClientMessage }
  /** Close the connection with `error`. */
  | { readonly ok: false; readonly fatal: true; readonly error: HarkError }
  /** Answer with `event` (an error event) and carry on. */
  | { readonly ok: false; readonly fatal: false; readonly error: HarkError; readonly event: ServerEvent }

const MAX_ID_CHARS = 64

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

const errorEvent = (error: HarkError, id: string | number | null): ServerEvent => ({
  type: 'error',
  code: wireCodesOf(error).code,
  message: error.message,
  id,
})

const recoverable = (error: HarkError, id: string | number | null): ClientMessageResult => ({
  ok: false,
  fatal: false,
  error,
  event: errorEvent(error, id),
})

/** Read one control message; `byteLength` is its size on the wire (UTF-8 bytes). */
export const parseClientMessage = (text: string, byteLength: number): ClientMessageResult => {
  if (byteLength > MAX_CONTROL_MESSAGE_BYTES) {
    return {
      ok: false,
      fatal: true,
      error: new FrameTooLarge({ message: `control message of ${byteLength} bytes exceeds ${MAX_CONTROL_MESSAGE_BYTES}` }),
    }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, fatal: true, error: new ProtocolError({ message: 'control message is not valid JSON' }) }
  }
  if (!isObject(value) || typeof value.type !== 'string' || value.type.length === 0) {
    return { ok: false, fatal: true, error: new ProtocolError({ message: 'control message must be a JSON object with a string "type"' }) }
  }
  const rawId = value.id
  let id: string | number | null = null
  if (rawId !== undefined && rawId !== null) {
    if ((typeof rawId === 'string' && rawId.length <= MAX_ID_CHARS) || (typeof rawId === 'number' && Number.isFinite(rawId))) id = rawId
    else return recoverable(new ValidationFailed({ field: 'id', message: `"id" must be a string of at most ${MAX_ID_CHARS} characters or a finite number` }), null)
  }
  switch (value.type) {
    case 'ping':
      return { ok: true, message: { type: 'ping', id } }
    case 'audio.mode': {
      const mode = value.audioMode
      if (mode !== 'forward' && mode !== 'mixed') {
        return recoverable(new ValidationFailed({ field: 'audioMode', message: '"audioMode" must be "forward" or "mixed"' }), id)
      }
      return { ok: true, message: { type: 'audio.mode', audioMode: mode, id } }
    }
    case 'mcp.ready':
      return { ok: true, message: { type: 'mcp.ready', id } }
    case 'mcp': {
      const payload = value.payload
      if (!isObject(payload) || payload.jsonrpc !== '2.0') {
        return recoverable(new ValidationFailed({ field: 'payload', message: '"payload" must be a JSON-RPC 2.0 object ({"jsonrpc": "2.0", …})' }), id)
      }
      return { ok: true, message: { type: 'mcp', payload, id } }
    }
    default:
      return recoverable(new ValidationFailed({ field: 'type', message: `unknown message type "${value.type.slice(0, 64)}"` }), id)
  }
}

/** Act on a well-formed control message; `reply` sends an event back to this terminal only. */
export const answerClientMessage = (
  message: ClientMessage,
  session: TerminalSession,
  reply: (event: ServerEvent) => void,
  serverTime: number,
): void => {
  switch (message.type) {
    case 'ping':
      reply({ type: 'pong', id: message.id, serverTime })
      return
    case 'audio.mode':
      // The session confirms with an `audio.mode` event.
      session.setAudioMode(message.audioMode)
      return
    // To the room as the xiaozhi transport tells a device's: a participant.event agents hear in onEvent.
    case 'mcp.ready':
      session.tellRoom({ kind: 'mcp.ready' })
      return
    case 'mcp':
      session.tellRoom({ kind: 'mcp', payload: message.payload })
      return
  }
}
