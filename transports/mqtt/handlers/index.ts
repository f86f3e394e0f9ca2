/**
 * One handler per MQTT packet type (the aedes layout), each written against the connection's
 * PacketContext (packetContext.ts); the connection dispatches on `cmd`.
 */
import type { Packet } from 'mqtt-packet'
import type { PacketContext } from '../packetContext.js'
import { handleConnect } from './connect.js'
import { handleDisconnect } from './disconnect.js'
import { handlePingreq } from './pingreq.js'
import { handlePuback } from './puback.js'
import { handlePubcomp } from './pubcomp.js'
import { handlePublish } from './publish.js'
import { handlePubrec } from './pubrec.js'
import { handlePubrel } from './pubrel.js'
import { handleServerOnly } from './serverOnly.js'
import { handleSubscribe } from './subscribe.js'
import { handleUnsubscribe } from './unsubscribe.js'

export type PacketHandlers = {
  readonly [C in Packet['cmd']]: (c: PacketContext, packet: Extract<Packet, { cmd: C }>) => void
}

export const handlers: PacketHandlers = {
  connect: handleConnect,
  publish: handlePublish,
  puback: handlePuback,
  pubrec: handlePubrec,
  pubrel: handlePubrel,
  pubcomp: handlePubcomp,
  subscribe: handleSubscribe,
  unsubscribe: handleUnsubscribe,
  pingreq: handlePingreq,
  disconnect: handleDisconnect,
  auth: handleServerOnly,
  connack: handleServerOnly,
  suback: handleServerOnly,
  unsuback: handleServerOnly,
  pingresp: handleServerOnly,
}
