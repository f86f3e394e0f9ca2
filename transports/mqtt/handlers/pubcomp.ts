/**
 * PUBCOMP: ends a QoS 2 flow the server never starts (see pubrec.ts); nothing to do. Length,
 * packet identifier and properties were checked while parsing (parser.ts).
 */
import type { IPubcompPacket } from 'mqtt-packet'
import type { PacketContext } from '../packetContext.js'

export const handlePubcomp = (_c: PacketContext, _packet: IPubcompPacket): void => {}
