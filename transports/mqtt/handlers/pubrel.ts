/** PUBREL: the terminal releases a QoS 2 publish we took; PUBCOMP ends the exchange. */
import type { IPubrelPacket } from 'mqtt-packet'
import { MalformedPacket } from '../../../core/index.js'
import type { MqttConnection } from '../connection.js'
import { PACKET_IDENTIFIER_NOT_FOUND } from './pubrec.js'

export const handlePubrel = (c: MqttConnection, packet: IPubrelPacket): void => {
  if (c.version === 4 && packet.length !== 2) return c.fail(new MalformedPacket({ message: 'PUBREL must be 2 bytes long' }))
  if (packet.messageId === 0) return c.fail(new MalformedPacket({ message: 'packet identifier 0' }))
  const known = c.awaitingRelease.delete(packet.messageId!)
  c.send(
    c.version === 5
      ? { cmd: 'pubcomp', messageId: packet.messageId!, reasonCode: known ? 0 : PACKET_IDENTIFIER_NOT_FOUND }
      : { cmd: 'pubcomp', messageId: packet.messageId! },
  )
}
