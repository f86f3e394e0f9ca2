/** PUBACK: the terminal took a QoS 1 event; its inflight slot goes to the next queued event. */
import type { IPubackPacket } from 'mqtt-packet'
import type { PacketContext } from '../packetContext.js'

// Length, packet identifier and properties were checked while parsing (parser.ts).
export const handlePuback = (c: PacketContext, packet: IPubackPacket): void => {
  for (const next of c.outbound.acknowledge(packet.messageId!, c)) c.sendBytes(next)
}
