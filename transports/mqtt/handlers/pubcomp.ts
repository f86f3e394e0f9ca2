/**
 * PUBCOMP: ends a QoS 2 flow the server never starts (see pubrec.ts); nothing to do. Length,
 * packet identifier and properties were checked while parsing (parser.ts).
 */
import type { IPubcompPacket } from 'mqtt-packet'
import type { MqttConnection } from '../connection.js'

export const handlePubcomp = (_c: MqttConnection, _packet: IPubcompPacket): void => {}
