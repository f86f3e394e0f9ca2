/**
 * SUBSCRIBE: filters inside the terminal's namespace are granted (QoS 2 requests get 1; audio is
 * always sent at QoS 0); anything else gets a failure code in SUBACK — 0x80 on MQTT 3.1.1, 0x87
 * (outside the namespace) or 0x8F (not a valid filter) on MQTT 5. Wildcards work inside the namespace.
 */
import type { ISubscribePacket } from 'mqtt-packet'
import { MalformedPacket, ProtocolError, SubscriptionIdentifiersUnsupported, wireCodes } from '../../../core/index.js'
import type { MqttConnection } from '../connection.js'
import { isInNamespace, isValidTopicFilter } from '../topics.js'
import { duplicateProperty } from './properties.js'

/** The one failure code MQTT 3.1.1 has in SUBACK. */
export const SUBACK_FAILURE_311 = 0x80

export const handleSubscribe = (c: MqttConnection, packet: ISubscribePacket): void => {
  if (packet.messageId === 0) return c.fail(new MalformedPacket({ message: 'packet identifier 0' }))
  if (packet.subscriptions.length === 0) {
    return c.fail(new ProtocolError({ message: 'SUBSCRIBE without a topic filter' })) // [MQTT-3.8.3-3]
  }
  if (packet.properties) {
    const duplicate = duplicateProperty(packet.properties)
    if (duplicate) return c.fail(new ProtocolError({ message: `property ${duplicate} given more than once` }))
    if (packet.properties.subscriptionIdentifier !== undefined) {
      return c.fail(new SubscriptionIdentifiersUnsupported({ message: 'subscription identifiers are not supported' }))
    }
  }
  const v5 = c.version === 5
  const granted = packet.subscriptions.map(({ topic, qos }) => {
    if (!isValidTopicFilter(topic)) return v5 ? wireCodes.TopicFilterInvalid.mqtt5 : SUBACK_FAILURE_311
    if (!isInNamespace(c.ns, topic)) return v5 ? wireCodes.TopicNotAuthorized.mqtt5 : SUBACK_FAILURE_311
    return c.subscriptions.add(topic, qos)
  })
  c.send({ cmd: 'suback', messageId: packet.messageId!, granted })
}
