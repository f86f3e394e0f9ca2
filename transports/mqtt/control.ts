/**
 * Control messages a terminal publishes on `hark/{clientId}/up/control`: the same JSON messages
 * a WebSocket terminal sends as text frames (spec/terminal-protocol.md). A message that is not
 * JSON or not a known message gets an `error` event back; the connection stays up, since the
 * MQTT packet itself was well-formed.
 */
import type { AudioMode, ServerEvent } from '../../core/events.js'
import { MalformedJson, ValidationFailed, publicMessage, wireCodesOf, type HarkError } from '../../core/errors.js'
import type { TerminalSession } from '../../core/terminals.js'

export type ClientMessage =
  | { readonly type: 'ping'; readonly id: string | number | null }
  | { readonly type: 'audio.mode'; readonly audioMode: AudioMode }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** Decode one control payload, or the error that refuses it. */
export const decodeControl = (payload: Buffer): ClientMessage | HarkError => {
  let value: unknown
  try {
    value = JSON.parse(payload.toString('utf8'))
  } catch {
    return new MalformedJson({ message: 'control message is not valid JSON' })
  }
  if (!isRecord(value) || typeof value.type !== 'string') {
    return new ValidationFailed({ field: 'type', message: 'control message must be a JSON object with a string "type"' })
  }
  switch (value.type) {
    case 'ping': {
      const id = value.id ?? null
      if (id !== null && typeof id !== 'string' && typeof id !== 'number') {
        return new ValidationFailed({ field: 'id', message: 'ping id must be a string or a number' })
      }
      return { type: 'ping', id }
    }
    case 'audio.mode':
      if (value.audioMode !== 'forward' && value.audioMode !== 'mixed') {
        return new ValidationFailed({ field: 'audioMode', message: 'audioMode must be "forward" or "mixed"' })
      }
      return { type: 'audio.mode', audioMode: value.audioMode }
    default:
      return new ValidationFailed({ field: 'type', message: `unknown control message type "${value.type.slice(0, 64)}"` })
  }
}

/** Apply a control payload to the session; returns the error when it was refused (also sent as an event). */
export const applyControl = (
  payload: Buffer,
  session: TerminalSession,
  send: (event: ServerEvent) => void,
  now: () => number,
): HarkError | null => {
  const message = decodeControl(payload)
  if ('_tag' in message) {
    send({ type: 'error', code: wireCodesOf(message).code, message: publicMessage(message) })
    return message
  }
  switch (message.type) {
    case 'ping':
      send({ type: 'pong', id: message.id, serverTime: now() })
      return null
    case 'audio.mode':
      session.setAudioMode(message.audioMode)
      return null
  }
}
