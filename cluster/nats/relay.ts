/**
 * Audio between nodes (spec/cluster.md, Frames between nodes): an outbox per other node, filled by
 * the rooms' remote sinks and sent once per event-loop turn (wire.ts, a WriteBatch) on the direct
 * link to that node when it is up (relayLink.ts), else published on NATS; and the receiving side,
 * which walks a message from either and pushes each frame into the relayed member it belongs to.
 * It keeps the relay's counters for /metrics (metrics.ts), the bench and tests.
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
import { LinkListener, LinkSender, type LinkSink } from './relayLink.js'
import { readRelayMessage, RELAY_LENGTH_BYTES, RelayOutbox } from './wire.js'

/** What the relay has carried, as /metrics reports it. */
export interface RelayTotals {
  readonly messagesOut: number
  readonly framesOut: number
  readonly messagesIn: number
  readonly framesIn: number
  /** Of the messages out and in, those the direct links carried (the rest went over NATS). */
  readonly linkMessagesOut: number
  readonly linkMessagesIn: number
  readonly dropped: { readonly unknown_node: number; readonly unknown_source: number; readonly malformed: number; readonly publish_failed: number }
}

export class Relay implements LinkSink {
  private readonly batch: WriteBatch
  /** The sending end of the link to each peer (by node id), made with its outbox. */
  private readonly links = new Map<string, LinkSender>()
  /** The listener for the other nodes' links (null: `cluster.relayLink` off, or not listening yet). */
  private listener: LinkListener | null = null
  /**
   * Frames dropped on receipt: from a node this one does not know (`unknownNode`), for a source
   * that is not one of its relayed members here (`unknownSource`), the rest of a malformed
   * message (`malformed`).
   */
  readonly stats = { relayMessagesIn: 0, relayFramesIn: 0, linkMessagesIn: 0, unknownNode: 0, unknownSource: 0, malformed: 0 }
  /** Frames of peers this node forgot (their outboxes are gone with them), for /metrics. */
  private readonly retiredOut = { messages: 0, frames: 0, dropped: 0, linkMessages: 0 }
  private publishFailedLogged = false

  constructor(
    private readonly link: Link,
    private readonly peers: ReadonlyMap<string, Peer>,
  ) {
    this.batch = new WriteBatch(link.o.relayBatchMs ?? 0, (e) => this.publishFailed(e))
  }

  /**
   * The outbox of frames for a node newly heard: one message per turn, on the link to it when up,
   * else on NATS (`hark.audio.<to>.<from>`, the message without its length).
   */
  outboxFor(node: string): RelayOutbox {
    const subject = S.audio(node, this.link.nodeId)
    const sender = new LinkSender(this.link.nodeId, node, this.link.o.log, (peer, up) => {
      for (const watch of this.linkWatchers) watch(peer, up)
    })
    const former = this.links.get(node)
    if (former !== undefined) {
      this.retiredOut.linkMessages += former.messages
      former.close()
    }
    this.links.set(node, sender)
    return new RelayOutbox(
      (framed) => {
        if (!sender.send(framed)) this.link.nc.publish(subject, framed.subarray(RELAY_LENGTH_BYTES))
      },
      this.batch,
      this.link.o.relaySpacingMs ?? 0,
      (e) => this.publishFailed(e),
    )
  }

  /**
   * Listen for the other nodes' links on `host`, and on a Unix socket for those on this machine;
   * resolves with the addresses to advertise (`local` null: TCP only).
   */
  async listen(host: string): Promise<{ address: string; local: string | null }> {
    this.listener = new LinkListener(this)
    const address = await this.listener.listen(host)
    return { address, local: await this.listener.listenLocal() }
  }

  /** Dial the link to `peer` if it advertises one and the link is down (at its heartbeats and each tick). */
  linkTo(peer: Peer): void {
    this.links.get(peer.node)?.dial(peer.relay, peer.relayLocal)
  }

  /** The links this node sends on, and the one it listens with (tests). */
  linkState(): { up: string[]; accepted: number } {
    return { up: [...this.links].flatMap(([node, l]) => (l.isUp ? [node] : [])), accepted: this.listener?.accepted ?? 0 }
  }

  /** Told when a link of this node comes up or goes down (tests). */
  readonly linkWatchers = new Set<(peer: string, up: boolean) => void>()

  /** Cut every link in (tests: the senders fall back to NATS, and dial again at their next tick). */
  dropLinksIn(): void {
    this.listener?.dropAll()
  }

  /** A peer was forgotten: its outbox's counts stay in the totals, its link is closed. */
  retire(peer: Peer): void {
    peer.outbox.stop()
    this.retiredOut.messages += peer.outbox.messages
    this.retiredOut.frames += peer.outbox.frames
    this.retiredOut.dropped += peer.outbox.dropped
    const sender = this.links.get(peer.node)
    if (sender !== undefined) {
      this.retiredOut.linkMessages += sender.messages
      sender.close()
      this.links.delete(peer.node)
    }
  }

  /** Send what is queued and stop batching and linking (the node is stopping). */
  stop(): void {
    for (const peer of this.peers.values()) {
      peer.outbox.stop()
      try {
        peer.outbox.send()
      } catch (e) {
        // NATS already closed: those frames are lost (counted), the rest of the stop goes on.
        this.publishFailed(e)
      }
    }
    this.batch.stop()
    for (const sender of this.links.values()) sender.close()
    this.listener?.close()
  }

  /** Hot path: a message on a link from `from` (relayLink.ts). */
  linkIn(from: string, message: Uint8Array): void {
    this.stats.linkMessagesIn++
    try {
      this.relayIn(from, message)
    } catch (e) {
      // A socket's data handler has no caller to catch for it (NATS's client catches its callbacks'):
      // the message is lost, not the process.
      this.link.o.log.warn({ err: e, from }, 'cluster: a relay link message could not be delivered; dropped')
    }
  }

  /** A link sent bytes that are not a hello or a message: it was closed. */
  linkMalformed(from: string | null): void {
    this.stats.malformed++
    this.link.o.log.warn({ from }, 'cluster: a malformed relay link stream; the link was closed')
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
    let linkMessagesOut = this.retiredOut.linkMessages
    for (const sender of this.links.values()) linkMessagesOut += sender.messages
    const s = this.stats
    return {
      messagesOut: out.messages,
      framesOut: out.frames,
      messagesIn: s.relayMessagesIn,
      framesIn: s.relayFramesIn,
      linkMessagesOut,
      linkMessagesIn: s.linkMessagesIn,
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
