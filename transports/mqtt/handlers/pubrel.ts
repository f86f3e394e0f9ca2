/** PUBREL: the terminal releases a QoS 2 publish we took; PUBCOMP ends the exchange. */
import type { IPubrelPacket } from 'mqtt-packet'
import type { PacketContext } from '../packetContext.js'
import { PACKET_IDENTIFIER_NOT_FOUND } from './pubrec.js'

export const handlePubrel = (c: PacketContext, packet: IPubrelPacket): void => {
  const known = c.awaitingRelease.delete(packet.messageId!)
  c.send(
    c.version === 5
      ? { cmd: 'pubcomp', messageId: packet.messageId!, reasonCode: known ? 0 : PACKET_IDENTIFIER_NOT_FOUND }
      : { cmd: 'pubcomp', messageId: packet.messageId! },
  )
}
