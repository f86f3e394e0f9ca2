/** PINGREQ: answered with PINGRESP (any packet already counts for the keepalive; a body is refused while parsing). */
import type { IPingreqPacket } from 'mqtt-packet'
import type { MqttConnection } from '../connection.js'

/** The same two bytes in every version: encoded once, not per ping (the output copies them). */
export const PINGRESP = Buffer.from([0xd0, 0x00])
/** A whole PINGREQ (no body): recognised by its bytes, without the parser (connection.ts). */
export const PINGREQ_FIRST_BYTE = 0xc0

export const handlePingreq = (c: MqttConnection, _packet: IPingreqPacket): void => {
  c.sendBytes(PINGRESP)
}
