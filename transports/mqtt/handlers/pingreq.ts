/** PINGREQ: answered with PINGRESP (any packet already counts for the keepalive; a body is refused while parsing). */
import type { IPingreqPacket } from 'mqtt-packet'
import type { MqttConnection } from '../connection.js'
import { PINGRESP } from '../fixedHeader.js'

export const handlePingreq = (c: MqttConnection, _packet: IPingreqPacket): void => {
  c.sendBytes(PINGRESP)
}
