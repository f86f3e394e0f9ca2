/**
 * Audio between nodes (spec/cluster.md, Frames between nodes): an outbox per other node, filled by
 * the rooms' remote sinks and published once per event-loop turn (wire.ts, a WriteBatch), and the
 * receiving side, which walks a message and pushes each frame into the relayed member it belongs
 * to. It keeps the relay's counters for /metrics (metrics.ts), the bench and tests.
 *
 * The per-frame path is `RelayOutbox.append` on the sending node and `relayIn` on the receiving
 * one (a DataView walk, a Map lookup, the room router): no actor, no Effect, no JSON, no closure
 * per message.
 */
import type { RelayedMember } from '../../core/cluster/relayed.js'
import { WriteBatch } from '../../core/dataplane/writeBatch.js'
import type { Link } from './link.js'
import type { Peer } from './peers.js'
import { S } from './protocol.js'
import { readRelayMessage, RelayOutbox } from './wire.js'

/** What the relay has carried, as /metrics reports it. */
export interface RelayTotals {
  readonly messagesOut: number
  readonly framesOut: number
  readonly messagesIn: number
  readonly framesIn: number
  readonly dropped: { readonly unknown_node: number; readonly unknown_source: number; readonly malformed: number; readonly publish_failed: number }
}

export class Relay {
  private readonly batch: WriteBatch
  /**
   * Frames dropped on receipt: from a node this one does not know (`unknownNode`), for a source
   * that is not one of its relayed members here (`unknownSource`), the rest of a malformed
   * message (`malformed`).
   */
  readonly stats = { relayMessagesIn: 0, relayFramesIn: 0, unknownNode: 0, unknownSource: 0, malformed: 0 }
  /** Frames of peers this node forgot (their outboxes are gone with them), for /metrics. */
  private readonly retiredOut = { messages: 0, frames: 0, dropped: 0 }
  private publishFailedLogged = false

  constructor(
    private readonly link: Link,
    private readonly peers: ReadonlyMap<string, Peer>,
  ) {
    this.batch = new WriteBatch(link.o.relayBatchMs ?? 0, (e) => this.publishFailed(e))
  }

  /** The outbox of frames for a node newly heard: one NATS message per turn, on `hark.audio.<to>.<from>`. */
  outboxFor(node: string): RelayOutbox {
    const subject = S.audio(node, this.link.nodeId)
    return new RelayOutbox((message) => this.link.nc.publish(subject, message), this.batch)
  }

  /** A peer was forgotten: its outbox's counts stay in the totals. */
  retire(peer: Peer): void {
    this.retiredOut.messages += peer.outbox.messages
    this.retiredOut.frames += peer.outbox.frames
    this.retiredOut.dropped += peer.outbox.dropped
  }

  /** Send what is queued and stop batching (the node is stopping). */
  stop(): void {
    for (const peer of this.peers.values()) peer.outbox.flush()
    this.batch.stop()
  }

  /** A relay message could not be published (its frames are counted as dropped): logged once per process; the counter keeps counting. */
  private publishFailed(e: unknown): void {
    if (this.publishFailedLogged) return
    this.publishFailedLogged = true
    this.link.o.log.warn({ nodeId: this.link.nodeId, err: e }, 'cluster: relay messages cannot be published; their frames are dropped')
  }

  /** Relay totals of this node: frames and messages out (per remote node added up) and in, and drops by reason. */
  totals(): RelayTotals {
    const out = { ...this.retiredOut }
    for (const peer of this.peers.values()) {
      out.messages += peer.outbox.messages
      out.frames += peer.outbox.frames
      out.dropped += peer.outbox.dropped
    }
    const s = this.stats
    return {
      messagesOut: out.messages,
      framesOut: out.frames,
      messagesIn: s.relayMessagesIn,
      framesIn: s.relayFramesIn,
      dropped: { unknown_node: s.unknownNode, unknown_source: s.unknownSource, malformed: s.malformed, publish_failed: out.dropped },
    }
  }

  /** The sending peer's sources and the arrival time of the message being read (no closure per message). */
  private relaySources: Map<number, RelayedMember> = new Map()
  private relayNow = 0
  private relayPeer: Peer | null = null
  private readonly relayFrame = (key: number, uplink: Uint8Array): void => {
    const member = this.relaySources.get(key)
    if (member !== undefined) member.push(uplink, this.relayNow)
    else this.droppedUnknownSource(key)
  }
  private static readonly countFrame = (): void => {}

  /** Sources frames were dropped for, per node (logged once each; cleared when the node is forgotten). */
  private readonly unknownLogged = new Set<string>()
  private droppedUnknownSource(key: number): void {
    this.stats.unknownSource++
    const peer = this.relayPeer!
    peer.resync = true
    const id = `${peer.node}\0${key}`
    if (this.unknownLogged.has(id) || this.unknownLogged.size >= 1000) return
    this.unknownLogged.add(id)
    const tag = Math.floor(key / 65536)
    this.link.o.log.warn(
      { nodeId: this.link.nodeId, from: peer.node, tag, sourceId: key % 65536 },
      'cluster: relayed frames for a source this node does not know; dropped (logged once per source)',
    )
  }

  /** Hot path: one relay message from `from` (wire.ts). */
  relayIn(from: string, data: Uint8Array): void {
    const peer = this.peers.get(from)
    this.stats.relayMessagesIn++
    if (peer === undefined) {
      // Not a node this one knows (not heard yet, or forgotten): count its frames, drop them.
      const read = readRelayMessage(data, Relay.countFrame)
      this.stats.unknownNode += read < 0 ? -1 - read : read
      return
    }
    this.relaySources = peer.sources
    this.relayPeer = peer
    this.relayNow = performance.now()
    const read = readRelayMessage(data, this.relayFrame)
    if (read < 0) {
      this.stats.malformed++
      this.link.o.log.warn({ from }, 'cluster: a malformed relay message; the rest of it was dropped')
    }
    this.stats.relayFramesIn += read < 0 ? -1 - read : read
  }
}
