/**
 * CONNECT: protocol and version checks, the credential (password = client token or device
 * password `hkd_…`, verified by core), the user-name and client-identifier rules, the will, the
 * session (clean or resumed), keepalive, and the CONNACK that announces what this server offers.
 */
import type { IConnectPacket, IConnackPacket } from 'mqtt-packet'
import { generate } from '../generate.js'
import { LARGEST_PACKET_BYTES } from '../fixedHeader.js'
import {
  AuthenticationMethodUnsupported,
  ClientIdentifierInvalid,
  CredentialMissing,
  FrameTooLarge,
  Internal,
  MalformedPacket,
  ProtocolError,
  RetainNotSupported,
  TopicNotAuthorized,
  UsernameInvalid,
  isHarkError,
  type HarkError,
  type TerminalCredential,
} from '../../../core/extension.js'
import { sessionKey } from '../live.js'
import { OutboundEvents } from '../outboundEvents.js'
import type { PacketContext } from '../packetContext.js'
import { Subscriptions } from '../subscriptions.js'
import { isInNamespace, isValidTopicName, topicNamespace } from '../topics.js'

/** Topic aliases a MQTT 5 client may set (announced as Topic Alias Maximum). */
export const TOPIC_ALIAS_MAXIMUM = 32
const DEVICE_PASSWORD_PREFIX = 'hkd_'

/**
 * Look at a CONNECT's bytes before parsing: protocol name "MQTT", level 4 or 5 (its version), or
 * why not. "MQIsdp" (3.1) and unknown levels are refused with CONNACK 0x01; an unknown name is not
 * MQTT. Null when the packet ends before its protocol level: the parser reports it as malformed
 * and the connection closes without CONNACK.
 */
export const connectPreamble = (bytes: Buffer): 'unknown-protocol' | 'unsupported-level' | 4 | 5 | null => {
  let pos = 1
  while (pos < bytes.length && (bytes[pos]! & 0x80) !== 0) pos++
  pos++
  if (pos + 2 > bytes.length) return null
  const nameLength = bytes.readUInt16BE(pos)
  const name = bytes.toString('latin1', pos + 2, pos + 2 + nameLength)
  if (name !== 'MQTT' && name !== 'MQIsdp') return 'unknown-protocol'
  const levelAt = pos + 2 + nameLength
  if (levelAt >= bytes.length) return null
  const level = bytes[levelAt]
  if (name === 'MQIsdp' || (level !== 4 && level !== 5)) return 'unsupported-level'
  return level
}

export const handleConnect = (c: PacketContext, packet: IConnectPacket): void => {
  if (c.state !== 'awaiting-connect') {
    return c.fail(new ProtocolError({ message: 'a second CONNECT on one connection' }))
  }
  c.beginConnect(packet.protocolVersion === 5 ? 5 : 4)
  // Every packet to an MQTT 5 client, refusals included, stays within its Maximum Packet Size [MQTT-3.1.2-24].
  if (c.version === 5) c.clientMaxPacketBytes = Math.min(packet.properties?.maximumPacketSize ?? LARGEST_PACKET_BYTES, LARGEST_PACKET_BYTES)
  connect(c, packet).catch((e: unknown) => c.refuse(isHarkError(e) ? e : new Internal({ message: 'connect failed', cause: e })))
}

const problemOf = (c: PacketContext, packet: IConnectPacket): HarkError | null => {
  const v5 = c.version === 5
  if (!v5 && packet.password !== undefined && packet.username === undefined) {
    return new MalformedPacket({ message: 'password without a user name' }) // [MQTT-3.1.2-22]
  }
  if (!v5 && !packet.clean && packet.clientId === '') {
    return new ClientIdentifierInvalid({ message: 'an empty client identifier needs Clean Session = 1' }) // [MQTT-3.1.3-8]
  }
  // MQTT 5 properties were checked against the property table while parsing (properties.ts).
  if (v5 && packet.properties?.authenticationMethod !== undefined) {
    return new AuthenticationMethodUnsupported({ message: 'enhanced authentication is not offered; use the password' })
  }
  if (packet.will) {
    if ((packet.will.qos ?? 0) > 2) return new MalformedPacket({ message: 'will QoS 3' }) // [MQTT-3.1.2-14]
    if (!isValidTopicName(packet.will.topic)) return new MalformedPacket({ message: 'will topic is not a valid topic name' })
    if (v5 && packet.will.retain) return new RetainNotSupported({ message: 'retained messages are not supported' })
  }
  if (packet.password === undefined || packet.password.length === 0) {
    return new CredentialMissing({ message: 'the password must be a client token or a device password' })
  }
  return null
}

async function connect(c: PacketContext, packet: IConnectPacket): Promise<void> {
  const problem = problemOf(c, packet)
  if (problem) return c.refuse(problem)
  const secret = packet.password!.toString('utf8')
  const credential: TerminalCredential = secret.startsWith(DEVICE_PASSWORD_PREFIX) ? { devicePassword: secret } : { token: secret }
  const identity = await c.ctx.authenticate(credential)
  if (c.state !== 'authenticating') return // the socket went away meanwhile

  const v5 = c.version === 5
  const { settings, sessions, live, wills } = c.ctx
  if (packet.username !== undefined && packet.username !== '' && packet.username !== identity.clientId) {
    return c.refuse(new UsernameInvalid({ message: 'the user name must be empty or the clientId of the credential' }))
  }
  if (packet.clientId !== '' && packet.clientId !== identity.clientId) {
    return c.refuse(new ClientIdentifierInvalid({ message: 'the client identifier must be empty or the clientId of the credential' }))
  }
  const ns = topicNamespace(identity.clientId)
  if (packet.will && !isInNamespace(ns, packet.will.topic)) {
    return c.refuse(new TopicNotAuthorized({ message: `the will topic must start with ${ns.prefix}` }))
  }

  const props = packet.properties ?? {}
  const requestedExpiry = v5 ? (props.sessionExpiryInterval ?? 0) : packet.clean ? 0 : settings.maxSessionExpirySeconds
  const sessionExpirySeconds = Math.min(requestedExpiry, settings.maxSessionExpirySeconds)
  const keepalive = packet.keepalive ?? 0
  const serverKeepAlive = v5 && (keepalive === 0 || keepalive > settings.maxKeepAliveSeconds) ? settings.maxKeepAliveSeconds : null

  // Session Present is set once the session is found below; it does not change the size.
  const connack: IConnackPacket = v5
    ? {
        cmd: 'connack',
        sessionPresent: false,
        reasonCode: 0,
        properties: {
          receiveMaximum: settings.maxInflight,
          maximumPacketSize: settings.maxPacketBytes,
          topicAliasMaximum: TOPIC_ALIAS_MAXIMUM,
          retainAvailable: false,
          wildcardSubscriptionAvailable: true,
          subscriptionIdentifiersAvailable: false,
          sharedSubscriptionAvailable: false,
          ...(packet.clientId === '' ? { assignedClientIdentifier: identity.clientId } : {}),
          ...(requestedExpiry !== sessionExpirySeconds ? { sessionExpiryInterval: sessionExpirySeconds } : {}),
          ...(serverKeepAlive !== null ? { serverKeepAlive } : {}),
        },
      }
    : { cmd: 'connack', sessionPresent: false, returnCode: 0 }
  // MQTT 5: a CONNACK larger than the client's Maximum Packet Size cannot be sent [MQTT-3.1.2-24]; it
  // is discarded [MQTT-3.1.2-25], and a connection without CONNACK is no use: it is closed, before it
  // touches the client's session, will or room.
  const connackBytes = generate(connack, { protocolVersion: c.version }).length
  if (connackBytes > c.clientMaxPacketBytes) {
    return c.refuse(
      new FrameTooLarge({ message: `the CONNACK (${connackBytes} bytes) exceeds the client's Maximum Packet Size (${c.clientMaxPacketBytes})` }),
      false,
    )
  }

  const key = sessionKey(identity)
  wills.cancel(key)

  // A live connection of the same client hands its session over; otherwise the store may have one.
  let stored = live.get(identity.workspaceId, identity.clientId)?.handOverSession() ?? sessions.take(key)
  if (packet.clean || stored?.protocolVersion !== c.version) stored = undefined
  connack.sessionPresent = stored !== undefined

  const inflightLimit = Math.min(settings.maxInflight, v5 ? (props.receiveMaximum ?? 65_535) : settings.maxInflight)
  const outbound = stored?.outbound ?? new OutboundEvents(inflightLimit, settings.maxQueuedEvents)
  outbound.setLimit(inflightLimit)

  const will = packet.will
    ? {
        topic: packet.will.topic,
        payload: Buffer.from(packet.will.payload),
        delaySeconds: v5 ? (packet.will.properties?.willDelayInterval ?? 0) : 0,
      }
    : null

  c.admit(identity, {
    ns,
    connack,
    subscriptions: new Subscriptions(ns, stored?.filters),
    outbound,
    keepaliveSeconds: serverKeepAlive ?? keepalive,
    will,
    sessionExpirySeconds,
  })
}
