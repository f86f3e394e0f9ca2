/**
 * UNSUBSCRIBE: removes subscriptions, including the ones made at CONNECT (a terminal that wants
 * events only unsubscribes from its down/audio topic). MQTT 5 gets a reason code per filter. A
 * filter that is not a filter at all closes the connection, as in SUBSCRIBE.
 */
import type { IUnsubscribePacket } from 'mqtt-packet'
import { ProtocolError, wireCodes } from '../../../core/extension.js'
import type { PacketContext } from '../packetContext.js'
import { filterProblem, isInNamespace } from '../topics.js'

const UNSUBACK_SUCCESS = 0x00
const UNSUBACK_NO_SUBSCRIPTION = 0x11

export const handleUnsubscribe = (c: PacketContext, packet: IUnsubscribePacket): void => {
  if (packet.unsubscriptions.length === 0) {
    return c.fail(new ProtocolError({ message: 'UNSUBSCRIBE without a topic filter' })) // [MQTT-3.10.3-2]
  }
  for (const filter of packet.unsubscriptions) {
    const problem = filterProblem(filter)
    if (problem) return c.fail(problem)
  }
  const codes = packet.unsubscriptions.map((filter) => {
    if (!isInNamespace(c.ns, filter)) return wireCodes.TopicNotAuthorized.mqtt5
    return c.subscriptions.remove(filter) ? UNSUBACK_SUCCESS : UNSUBACK_NO_SUBSCRIPTION
  })
  c.send(
    c.version === 5
      ? { cmd: 'unsuback', messageId: packet.messageId!, granted: codes }
      : { cmd: 'unsuback', messageId: packet.messageId!, granted: [] },
  )
}
