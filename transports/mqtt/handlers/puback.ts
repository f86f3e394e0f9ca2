/** PUBACK: the terminal took a QoS 1 event; its inflight slot goes to the next queued event. */
import type { IPubackPacket } from 'mqtt-packet'
import { MalformedPacket } from '../../../core/index.js'
import type { MqttConnection } from '../connection.js'

export const handlePuback = (c: MqttConnection, packet: IPubackPacket): void => {
  if (c.version === 4 && packet.length !== 2) return c.fail(new MalformedPacket({ message: 'PUBACK must be 2 bytes long' }))
  if (packet.messageId === 0) return c.fail(new MalformedPacket({ message: 'packet identifier 0' }))
  for (const next of c.outbound.acknowledge(packet.messageId!, c.encodeEvent)) c.sendBytes(next)
}
