/**
 * PUBLISH from a terminal, as parsed by mqtt-packet. (The plain QoS 0 uplink audio PUBLISH never
 * gets here: the connection recognises it by its bytes — see `packet` in connection.ts.) Audio on
 * `hark/{clientId}/up/audio` at other QoS or with properties goes into the hub session; control
 * messages on `up/control` are JSON; anything else is refused: MQTT 5 QoS 1/2 with PUBACK/PUBREC
 * 0x87, otherwise by closing the connection (MQTT 5 with DISCONNECT 0x87). The topic is authorized
 * last, once the packet is valid and, at QoS 2, its place in the flow known (spec/mqtt.md, "Which
 * check wins").
 */
import type { IPublishPacket } from 'mqtt-packet'
import {
  MalformedPacket,
  ProtocolError,
  ReceiveMaximumExceeded,
  RetainNotSupported,
  TopicAliasInvalid,
  TopicNotAuthorized,
  wireCodes,
  wireCodesOf,
} from '../../../core/extension.js'
import { handleControl } from '../control.js'
import type { PacketContext } from '../packetContext.js'
import { isValidTopicName } from '../topics.js'
import { TOPIC_ALIAS_MAXIMUM } from './connect.js'

export const handlePublish = (c: PacketContext, packet: IPublishPacket): void => {
  // QoS 3 and DUP on QoS 0 were refused on the first byte (fixedHeader.ts); packet identifier 0 and
  // the properties (table of properties.ts, Subscription Identifier included) while parsing.
  const qos = packet.qos
  if (packet.retain && c.version === 5) {
    return c.fail(new RetainNotSupported({ message: 'retained messages are not supported (Retain Available = 0)' }))
  }
  let topic = packet.topic
  if (packet.properties !== undefined) {
    const resolved = resolveTopic(c, packet)
    if (resolved === null) return
    topic = resolved
  } else if (topic === '') {
    return c.fail(new ProtocolError({ message: 'empty topic name without a topic alias' }))
  }
  if (!isValidTopicName(topic)) return c.fail(new MalformedPacket({ message: 'topic name with a wildcard character' }))
  // A resent QoS 2 publish, or one past Receive Maximum, is so whatever its topic [MQTT-4.3.3-10, MQTT-3.3.4-7].
  if (qos === 2 && !admitQos2(c, packet)) return
  // Everything the terminal's topics take arrives as a Buffer from the parser.
  const payload = packet.payload as Buffer

  if (c.ns.isUpAudio(topic)) {
    c.uplinkAudio(payload, c.lastHeard)
    return acknowledge(c, packet, 0)
  }

  if (c.ns.isUpControl(topic)) {
    const refusal = handleControl(c, payload)
    if (refusal === 'closed') return
    return acknowledge(c, packet, refusal === null ? 0 : wireCodesOf(refusal).mqtt5)
  }

  if (c.version === 5 && qos > 0) return acknowledge(c, packet, wireCodes.TopicNotAuthorized.mqtt5)
  c.fail(new TopicNotAuthorized({ message: `publishing is allowed on ${c.ns.upAudio} and ${c.ns.upControl} only` }))
}

/** MQTT 5 topic alias (3.3.2.3.4, 3.3.4); null when the connection was failed. */
const resolveTopic = (c: PacketContext, packet: IPublishPacket): string | null => {
  const alias = packet.properties!.topicAlias
  if (alias === undefined) {
    if (packet.topic !== '') return packet.topic
    c.fail(new ProtocolError({ message: 'empty topic name without a topic alias' }))
    return null
  }
  if (alias === 0 || alias > TOPIC_ALIAS_MAXIMUM) {
    c.fail(new TopicAliasInvalid({ message: `topic alias must be 1..${TOPIC_ALIAS_MAXIMUM}` }))
    return null
  }
  if (packet.topic !== '') {
    c.topicAliases.set(alias, packet.topic)
    return packet.topic
  }
  const topic = c.topicAliases.get(alias)
  if (topic === undefined) {
    c.fail(new ProtocolError({ message: `topic alias ${alias} was never set` }))
    return null
  }
  return topic
}

/** QoS 2: false when this is a resent PUBLISH already taken (only PUBREC is repeated) or the window is full. */
const admitQos2 = (c: PacketContext, packet: IPublishPacket): boolean => {
  const id = packet.messageId!
  if (c.awaitingRelease.has(id)) {
    acknowledge(c, packet, 0)
    return false
  }
  if (c.version === 5 && c.awaitingRelease.size >= c.ctx.settings.maxInflight) {
    c.fail(new ReceiveMaximumExceeded({ message: 'more unreleased QoS 2 publishes than Receive Maximum' }))
    return false
  }
  c.awaitingRelease.add(id)
  return true
}

/** PUBACK (QoS 1) or PUBREC (QoS 2) with a reason code (MQTT 5 only carries it). */
const acknowledge = (c: PacketContext, packet: IPublishPacket, reasonCode: number): void => {
  if (packet.qos === 0) return
  const cmd = packet.qos === 1 ? 'puback' : 'pubrec'
  if (packet.qos === 2 && reasonCode >= 0x80) c.awaitingRelease.delete(packet.messageId!)
  c.send(c.version === 5 ? { cmd, messageId: packet.messageId!, reasonCode } : { cmd, messageId: packet.messageId! })
}
