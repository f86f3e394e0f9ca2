/** CONNACK, SUBACK, UNSUBACK and PINGRESP only ever travel server → client: from a client they are a protocol error. */
import type { Packet } from 'mqtt-packet'
import { ProtocolError } from '../../../core/index.js'
import type { MqttConnection } from '../connection.js'

export const handleServerOnly = (c: MqttConnection, packet: Packet): void =>
  c.fail(new ProtocolError({ message: `${packet.cmd.toUpperCase()} is sent by servers only` }))
