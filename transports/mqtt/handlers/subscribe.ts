/**
 * SUBSCRIBE: filters inside the terminal's namespace are granted (QoS 2 requests get 1; audio is
 * always sent at QoS 0); a filter outside it gets a failure code in SUBACK — 0x80 on MQTT 3.1.1,
 * 0x87 (Not authorized) on MQTT 5. Wildcards work inside the namespace. The packet is judged
 * whole before any filter is authorized (spec/mqtt.md, "Which check wins"): a filter that is not a
 * filter at all (empty, or a misplaced wildcard), No Local on a shared subscription, or a feature
 * CONNACK said is not offered (Subscription Identifiers, shared subscriptions) closes the connection.
 */
import type { ISubscribePacket } from 'mqtt-packet'
import {
  ProtocolError,
  SharedSubscriptionsUnsupported,
  SubscriptionIdentifiersUnsupported,
  wireCodes,
  type HarkError,
} from '../../../core/extension.js'
import type { PacketContext } from '../packetContext.js'
import { filterProblem, isInNamespace } from '../topics.js'

/** The one failure code MQTT 3.1.1 has in SUBACK. */
export const SUBACK_FAILURE_311 = 0x80

/** MQTT 5 §4.8.2: a Shared Subscription's filter starts with `$share/` (3.1.1 has none: there it is an ordinary filter). */
const isShared = (filter: string): boolean => filter.startsWith('$share/')

export const handleSubscribe = (c: PacketContext, packet: ISubscribePacket): void => {
  const problem = problemOf(c.version, packet)
  if (problem) return c.fail(problem)
  const v5 = c.version === 5
  const granted = packet.subscriptions.map(({ topic, qos }) =>
    isInNamespace(c.ns, topic) ? c.subscriptions.add(topic, qos) : v5 ? wireCodes.TopicNotAuthorized.mqtt5 : SUBACK_FAILURE_311,
  )
  c.send({ cmd: 'suback', messageId: packet.messageId!, granted })
}

/**
 * What makes the whole packet invalid, in the order of the rule: the packet as data, then the
 * protocol, then what the server offers. The packet identifier, the options and the properties
 * were checked while parsing (parser.ts).
 */
const problemOf = (version: 4 | 5, packet: ISubscribePacket): HarkError | null => {
  const subscriptions = packet.subscriptions
  if (subscriptions.length === 0) return new ProtocolError({ message: 'SUBSCRIBE without a topic filter' }) // [MQTT-3.8.3-3]
  for (const { topic } of subscriptions) {
    const problem = filterProblem(topic)
    if (problem) return problem
  }
  if (version === 4) return null
  for (const { topic, nl } of subscriptions) {
    if (nl === true && isShared(topic)) return new ProtocolError({ message: `No Local set on the shared subscription "${topic}"` }) // [MQTT-3.8.3-4]
  }
  if (packet.properties?.subscriptionIdentifier !== undefined) {
    return new SubscriptionIdentifiersUnsupported({ message: 'subscription identifiers are not supported' })
  }
  for (const { topic } of subscriptions) {
    // Shared Subscription Available = 0 in CONNACK: a SUBSCRIBE with one is a Protocol Error, DISCONNECT 0x9E (§3.2.2.3.13).
    if (isShared(topic)) return new SharedSubscriptionsUnsupported({ message: `shared subscriptions are not supported ("${topic}")` })
  }
  return null
}
