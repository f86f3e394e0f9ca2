/**
 * What every connection of one transport shares, made once by the transport (transport.ts) and
 * read by each connection (connection.ts); the packet handlers see only their part of it
 * (HandlerServices, packetContext.ts).
 */
import type {
  ClockShape,
  DropCell,
  HarkError,
  Logger,
  TerminalHub,
  TerminalInputOptions,
  TerminalLink,
  WriteBatch,
} from '../../core/extension.js'
import type { KeepaliveSweeps } from './keepalive.js'
import type { HandlerServices } from './packetContext.js'
import type { StrictParser } from './parser.js'
import type { SessionStore } from './sessionStore.js'
import type { WillDelivery } from './will.js'

/** Name in presence, metrics and logs. */
export const TRANSPORT_NAME = 'mqtt'

/** Plain counters read by the metrics collectors (never a prom-client call per frame). */
export interface MqttCounters {
  /** Downlink audio not sent: the socket was backed up, or the frame exceeded the client's maximum. */
  readonly audioBackpressure: DropCell
  /** Uplink audio over the rate limit. */
  readonly audioRate: DropCell
  /** Events larger than the client's Maximum Packet Size. */
  eventsDropped: number
  /** Writes to sockets (one per flush: everything a connection had queued, in one buffer). */
  writes: number
}

export interface ConnectionContext extends HandlerServices {
  readonly hub: TerminalHub
  readonly clock: ClockShape
  /** What every connection's TerminalInput shares (the clock, the rate drop cell). */
  readonly input: TerminalInputOptions
  readonly log: Logger
  /** Writes at the end of the turn: control packets, and audio of a receiver not written to lately. */
  readonly scheduler: WriteBatch
  /**
   * The audio budget (`mqtt.audioBatchMs`; null at 0): audio to a receiver that had audio
   * written less than the budget ago waits here, at most the budget, for the frames after it.
   */
  readonly audioHold: WriteBatch | null
  /** The one packet parser of the transport (parser.ts): it keeps nothing between packets. */
  readonly parser: StrictParser
  readonly sessions: SessionStore
  /** The shared keepalive timers (keepalive.ts). */
  readonly keepalive: KeepaliveSweeps
  readonly wills: WillDelivery
  readonly counters: MqttCounters
  /** A connection was refused at CONNECT or closed for breaking the protocol. */
  onRefused(error: HarkError): void
  onProtocolError(error: HarkError): void
  /** The socket is gone. */
  onClosed(connection: TerminalLink): void
}
