/**
 * PUBREC: the server never sends QoS 2, so a PUBREC names no packet of ours; it is answered with
 * PUBREL (MQTT 5: reason 0x92, Packet Identifier not found) so the client's flow can end.
 */
import type { IPubrecPacket } from 'mqtt-packet'
import type { MqttConnection } from '../connection.js'

export const PACKET_IDENTIFIER_NOT_FOUND = 0x92

export const handlePubrec = (c: MqttConnection, packet: IPubrecPacket): void => {
  c.send(
    c.version === 5
      ? { cmd: 'pubrel', messageId: packet.messageId!, reasonCode: PACKET_IDENTIFIER_NOT_FOUND }
      : { cmd: 'pubrel', messageId: packet.messageId! },
  )
}
