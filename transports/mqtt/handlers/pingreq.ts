/** PINGREQ: answered with PINGRESP (any packet already counts for the keepalive; a body is refused while parsing). */
import type { IPingreqPacket } from 'mqtt-packet'
import { PINGRESP } from '../fixedHeader.js'
import type { PacketContext } from '../packetContext.js'

export const handlePingreq = (c: PacketContext, _packet: IPingreqPacket): void => {
  c.sendBytes(PINGRESP)
}
