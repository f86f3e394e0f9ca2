/**
 * What a packet handler (handlers/) has of its connection: the small surface the connection
 * implements (connection.ts), so that the handlers are written against this and never import it.
 */
import type { Packet } from 'mqtt-packet'
import type {
  EventSink,
  HarkError,
  TerminalCredential,
  TerminalIdentity,
  TerminalInput,
  TerminalSession,
} from '../../core/extension.js'
import type { LiveConnections } from './live.js'
import type { EventEncoder, OutboundEvents } from './outboundEvents.js'
import type { SessionStore, StoredSession } from './sessionStore.js'
import type { MqttSettings } from './settings.js'
import type { Subscriptions } from './subscriptions.js'
import type { TopicNamespace } from './topics.js'
import type { WillDelivery, WillMessage } from './will.js'

export type ConnectionState = 'awaiting-connect' | 'authenticating' | 'open' | 'closing'

/** A live connection as the next CONNECT of its client sees it: it hands its session over. */
export interface SessionHolder {
  /** The session state to take over (if it keeps any); this connection then keeps none when it ends. */
  handOverSession(): StoredSession | undefined
}

/** What the handlers use of the parts every connection of the transport shares. */
export interface HandlerServices {
  readonly settings: MqttSettings
  /** Check a CONNECT's credential (token or device password). */
  readonly authenticate: (credential: TerminalCredential) => Promise<TerminalIdentity>
  readonly sessions: Pick<SessionStore, 'take'>
  readonly wills: Pick<WillDelivery, 'cancel'>
  /** Open connections by workspace and client id. */
  readonly live: LiveConnections<SessionHolder>
}

/** What an accepted CONNECT sets up (handlers/connect.ts). */
export interface Admission {
  readonly ns: TopicNamespace
  readonly connack: Packet
  readonly subscriptions: Subscriptions
  readonly outbound: OutboundEvents
  readonly keepaliveSeconds: number
  readonly will: WillMessage | null
  readonly sessionExpirySeconds: number
}

/**
 * One connection as its packet handlers see it. The connection answers (EventSink) the control
 * messages it publishes, and encodes (EventEncoder) the events its PUBACKs let go.
 */
export interface PacketContext extends EventSink, EventEncoder {
  readonly ctx: HandlerServices
  readonly state: ConnectionState
  /** 4 = MQTT 3.1.1, 5 = MQTT 5.0; known once CONNECT is parsed. */
  readonly version: 4 | 5
  /** The client's Maximum Packet Size (MQTT 5), set at CONNECT; bigger packets to it are dropped. */
  clientMaxPacketBytes: number
  /** 0 = clean session: nothing is kept after the connection (MQTT 5 DISCONNECT may change it). */
  sessionExpirySeconds: number
  /** When the last packet arrived (performance.now()): the receive time of its audio. */
  readonly lastHeard: number

  // Set when CONNECT is accepted (admit).
  readonly ns: TopicNamespace
  readonly subscriptions: Subscriptions
  readonly outbound: OutboundEvents
  readonly session: TerminalSession | null
  /** The checks of what the terminal publishes (up/audio, up/control). */
  readonly input: TerminalInput
  /** MQTT 5 topic aliases set by the client (alias → topic). */
  readonly topicAliases: Map<number, string>
  /** Identifiers of QoS 2 publishes received and not yet released by PUBREL. */
  readonly awaitingRelease: Set<number>

  /** CONNECT arrived: what follows is held until it is decided. */
  beginConnect(version: 4 | 5): void
  /** CONNECT accepted: CONNACK, then the hub session. */
  admit(identity: TerminalIdentity, setup: Admission): void
  /** CONNECT refused: CONNACK with the version's code for `error` (unless `answer` is false), then close. */
  refuse(error: HarkError, answer?: boolean): void
  /** Queue a control packet; false when it exceeds the client's Maximum Packet Size (discarded). */
  send(packet: Packet): boolean
  /** Queue an encoded packet; one over the client's Maximum Packet Size is dropped and counted. */
  sendBytes(bytes: Uint8Array): void
  /** One uplink audio frame into the room, received at `now`. */
  uplinkAudio(payload: Buffer, now: number): void
  /** The client broke the protocol: MQTT 5 hears why, then the connection closes (will included). */
  fail(error: HarkError): void
  /** The client said DISCONNECT (`withWill`: MQTT 5 reason 0x04). */
  disconnected(withWill: boolean): void
}
