/**
 * Control messages a terminal publishes on `hark/{clientId}/up/control`: the JSON messages of
 * terminal protocol v1, read and answered by core (core/terminalInput.ts) exactly as on the
 * WebSocket. What is fatal there closes the MQTT connection here (MQTT 5: DISCONNECT with the
 * reason); a refused but well-formed message gets an `error` event and the session goes on.
 */
import type { HarkError } from '../../core/extension.js'
import type { PacketContext } from './packetContext.js'

/**
 * Apply one control payload. Returns null when it was taken, the error when it was refused with
 * an `error` event (the session goes on), or 'closed' when the connection was failed for it.
 */
export const handleControl = (c: PacketContext, payload: Buffer): HarkError | null | 'closed' => {
  const refusal = c.input.control(c.session, payload, c)
  if (refusal === null) return null
  if (!refusal.fatal) return refusal.error
  c.fail(refusal.error)
  return 'closed'
}
