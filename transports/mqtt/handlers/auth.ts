/** AUTH (MQTT 5 enhanced authentication) is not offered: receiving one is a protocol error. */
import type { IAuthPacket } from 'mqtt-packet'
import { ProtocolError } from '../../../core/index.js'
import type { MqttConnection } from '../connection.js'

export const handleAuth = (c: MqttConnection, _packet: IAuthPacket): void =>
  c.fail(new ProtocolError({ message: 'AUTH is not offered; authenticate with the CONNECT password' }))
