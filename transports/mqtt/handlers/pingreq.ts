/** PINGREQ: answered with PINGRESP (any packet already counts for the keepalive). */
import type { IPingreqPacket } from 'mqtt-packet'
import { MalformedPacket } from '../../../core/index.js'
import type { MqttConnection } from '../connection.js'

export const handlePingreq = (c: MqttConnection, packet: IPingreqPacket): void => {
  if (packet.length !== 0) return c.fail(new MalformedPacket({ message: 'PINGREQ has no body' }))
  c.send({ cmd: 'pingresp' })
}
