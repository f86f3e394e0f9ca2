/**
 * Control messages a terminal publishes on `hark/{clientId}/up/control`: the JSON messages of
 * terminal protocol v1, read and answered by core (core/clientMessages.ts) exactly as on the
 * WebSocket. What is fatal there closes the MQTT connection here (MQTT 5: DISCONNECT with the
 * reason); a refused but well-formed message gets an `error` event and the session goes on.
 */
import { isUtf8 } from 'node:buffer'
import { answerClientMessage, parseClientMessage } from '../../core/clientMessages.js'
import { ProtocolError, RateLimited, type HarkError } from '../../core/errors.js'
import type { MqttConnection } from './connection.js'
import { CONTROL_MESSAGES_PER_SECOND } from '../../core/events.js'

/**
 * Apply one control payload. Returns null when it was taken, the error when it was refused with
 * an `error` event (the session goes on), or 'closed' when the connection was failed for it.
 */
export const handleControl = (c: MqttConnection, payload: Buffer): HarkError | null | 'closed' => {
  if (!c.controlRate.take(performance.now())) {
    c.fail(new RateLimited({ message: `more than ${CONTROL_MESSAGES_PER_SECOND} control messages per second`, retryAfterSeconds: 1 }))
    return 'closed'
  }
  if (!isUtf8(payload)) {
    c.fail(new ProtocolError({ message: 'control message is not valid UTF-8' }))
    return 'closed'
  }
  const result = parseClientMessage(payload.toString('utf8'), payload.length)
  if (result.ok) {
    answerClientMessage(result.message, c.session!, (event) => c.sendEvent(event), c.ctx.host.clock.now())
    return null
  }
  if (result.fatal) {
    c.fail(result.error)
    return 'closed'
  }
  c.sendEvent(result.event)
  return result.error
}
