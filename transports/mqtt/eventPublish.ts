/**
 * The PUBLISH of one event on a terminal's down/events topic: its JSON at QoS 0, or at QoS 1 with
 * a packet identifier (outboundEvents.ts); MQTT 5 marks the payload as UTF-8 (Payload Format
 * Indicator). Events are control plane: encoded by mqtt-packet, not by a template.
 */
import type { IPublishPacket } from 'mqtt-packet'
import { generate } from './generate.js'
import { varintSize } from './varint.js'

/** The event PUBLISH to `topic`: QoS 1 with `messageId`, QoS 0 without. */
export const eventPublish = (topic: string, payload: Buffer, version: 4 | 5, messageId?: number): Buffer => {
  const packet: IPublishPacket = { cmd: 'publish', topic, payload, qos: messageId === undefined ? 0 : 1, dup: false, retain: false }
  if (messageId !== undefined) packet.messageId = messageId
  if (version === 5) packet.properties = { payloadFormatIndicator: true }
  return generate(packet, { protocolVersion: version })
}

/** Size of that PUBLISH, without encoding it (topic, identifier at QoS 1, MQTT 5's Payload Format Indicator). */
export const eventPublishSize = (topic: string, payloadBytes: number, qos: number, version: 4 | 5): number => {
  const remaining = 2 + topic.length + (qos > 0 ? 2 : 0) + (version === 5 ? 3 : 0) + payloadBytes
  return 1 + varintSize(remaining) + remaining
}
