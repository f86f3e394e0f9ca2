/**
 * DISCONNECT from the terminal: a normal goodbye, so no will — except MQTT 5 reason 0x04
 * (Disconnect with Will Message). MQTT 5 may shorten or extend the session expiry here, but not
 * turn a clean session (expiry 0) into a kept one [MQTT-3.14.2-2].
 */
import type { IDisconnectPacket } from 'mqtt-packet'
import { ProtocolError } from '../../../core/extension.js'
import type { PacketContext } from '../packetContext.js'

const DISCONNECT_WITH_WILL = 0x04

export const handleDisconnect = (c: PacketContext, packet: IDisconnectPacket): void => {
  // A 3.1.1 DISCONNECT with a body was refused while parsing (parser.ts).
  if (c.version === 4) return c.disconnected(false)
  const expiry = packet.properties?.sessionExpiryInterval
  if (expiry !== undefined) {
    if (c.sessionExpirySeconds === 0 && expiry > 0) {
      return c.fail(new ProtocolError({ message: 'a session that started with expiry 0 cannot be kept at DISCONNECT' }))
    }
    c.sessionExpirySeconds = Math.min(expiry, c.ctx.settings.maxSessionExpirySeconds)
  }
  c.disconnected(packet.reasonCode === DISCONNECT_WITH_WILL)
}
