/**
 * Packets a client never sends — CONNACK, SUBACK, UNSUBACK, PINGRESP (server to client only) and
 * AUTH (enhanced authentication is not offered) — are refused on their first byte by the framer
 * (fixedHeader.ts: Protocol Error with the flags of their type, Malformed Packet with any other)
 * and never parsed; should one get here, it is the same protocol error.
 */
import type { Packet } from 'mqtt-packet'
import { ProtocolError } from '../../../core/extension.js'
import type { PacketContext } from '../packetContext.js'

export const handleServerOnly = (c: PacketContext, packet: Packet): void =>
  c.fail(new ProtocolError({ message: `${packet.cmd.toUpperCase()} is not accepted from a client` }))
