/**
 * PUBREC: the server never sends QoS 2, so a PUBREC names no packet of ours. One with a reason
 * below 0x80 is answered with PUBREL (MQTT 5: reason 0x92, Packet Identifier not found) so the
 * client's flow can end; one with 0x80 or above already ended its flow and gets nothing: PUBREL
 * follows only a PUBREC below 0x80 [MQTT-4.3.3-4], and the identifier is free again (§4.3.3).
 */
import type { IPubrecPacket } from 'mqtt-packet'
import type { PacketContext } from '../packetContext.js'

export const PACKET_IDENTIFIER_NOT_FOUND = 0x92
/** Reason codes from 0x80 up are failures (MQTT 5 §2.4). */
export const FIRST_FAILURE_CODE = 0x80

export const handlePubrec = (c: PacketContext, packet: IPubrecPacket): void => {
  // MQTT 3.1.1 has no reason code; mqtt-packet leaves it out of a 5.0 PUBREC of remaining length 2 (Success).
  if ((packet.reasonCode ?? 0) >= FIRST_FAILURE_CODE) return
  c.send(
    c.version === 5
      ? { cmd: 'pubrel', messageId: packet.messageId!, reasonCode: PACKET_IDENTIFIER_NOT_FOUND }
      : { cmd: 'pubrel', messageId: packet.messageId! },
  )
}
