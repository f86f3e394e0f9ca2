/**
 * SUBSCRIBE: filters inside the terminal's namespace are granted (QoS 2 requests get 1; audio is
 * always sent at QoS 0); a filter outside it gets a failure code in SUBACK — 0x80 on MQTT 3.1.1,
 * 0x87 (Not authorized) on MQTT 5. Wildcards work inside the namespace. A filter that is not a
 * filter at all (empty, or a misplaced wildcard) makes the packet malformed: the connection closes.
 */
import type { ISubscribePacket } from 'mqtt-packet'
import { ProtocolError, SubscriptionIdentifiersUnsupported, wireCodes } from '../../../core/index.js'
import type { MqttConnection } from '../connection.js'
import { filterProblem, isInNamespace } from '../topics.js'

/** The one failure code MQTT 3.1.1 has in SUBACK. */
export const SUBACK_FAILURE_311 = 0x80

export const handleSubscribe = (c: MqttConnection, packet: ISubscribePacket): void => {
  // The packet identifier, the options and the properties were checked while parsing (parser.ts).
  if (packet.subscriptions.length === 0) {
    return c.fail(new ProtocolError({ message: 'SUBSCRIBE without a topic filter' })) // [MQTT-3.8.3-3]
  }
  for (const { topic } of packet.subscriptions) {
    const problem = filterProblem(topic)
    if (problem) return c.fail(problem)
  }
  if (packet.properties?.subscriptionIdentifier !== undefined) {
    return c.fail(new SubscriptionIdentifiersUnsupported({ message: 'subscription identifiers are not supported' }))
  }
  const v5 = c.version === 5
  const granted = packet.subscriptions.map(({ topic, qos }) =>
    isInNamespace(c.ns, topic) ? c.subscriptions.add(topic, qos) : v5 ? wireCodes.TopicNotAuthorized.mqtt5 : SUBACK_FAILURE_311,
  )
  c.send({ cmd: 'suback', messageId: packet.messageId!, granted })
}
