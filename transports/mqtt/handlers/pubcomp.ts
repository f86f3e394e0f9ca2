/** PUBCOMP: ends a QoS 2 flow the server never starts (see pubrec.ts); nothing to do but check it. */
import type { IPubcompPacket } from 'mqtt-packet'
import { MalformedPacket } from '../../../core/index.js'
import type { MqttConnection } from '../connection.js'

export const handlePubcomp = (c: MqttConnection, packet: IPubcompPacket): void => {
  if (c.version === 4 && packet.length !== 2) return c.fail(new MalformedPacket({ message: 'PUBCOMP must be 2 bytes long' }))
  if (packet.messageId === 0) return c.fail(new MalformedPacket({ message: 'packet identifier 0' }))
}
