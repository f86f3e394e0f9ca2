/**
 * The other nodes of the cluster, as this node hears them: a peer per node heard on `hark.hb`
 * (or in a room unit), told apart by incarnation, forgotten after the lease TTL of silence or at
 * its `hark.bye`. A peer carries what the other parts keep of it: its room units (directory.ts),
 * its relayed sources and the outbox of frames for it (relay.ts).
 */
import type { RelayedMember } from '../../core/cluster/relayed.js'
import type { Link } from './link.js'
import { S, type Heartbeat, type Unit } from './protocol.js'
import type { RelayOutbox } from './wire.js'

export interface Peer {
  readonly node: string
  readonly incarnation: string
  lastSeen: number
  endpoints: Record<string, number>
  /** Its room units by room key (directory.ts). */
  readonly units: Map<string, Unit>
  /** relayKey(tag, sourceId) -> the relayed member its frames go to. */
  readonly sources: Map<number, RelayedMember>
  readonly outbox: RelayOutbox
  /** Where it accepts relay links (its heartbeat's `relay`); null: none advertised. */
  relay: string | null
  /** Its Unix socket listener for nodes on its machine (its heartbeat's `relayLocal`); null: none. */
  relayLocal: string | null
  /** Frames of a source this node does not know came from it: ask it for its units at the next tick. */
  resync: boolean
}

/**
 * Whether a tick judges which peers fell silent. Not at a tick that came more than two ticks late:
 * this node's event loop was blocked, and the others' heartbeats are still waiting in its socket
 * (they are read before the next tick). But at least every other tick: a node late at every tick
 * (a loop blocked again and again) must still forget a node that died.
 */
export const judgesSilence = (sinceLastTickMs: number, tickMs: number, deferredLast: boolean): boolean =>
  deferredLast || sinceLastTickMs <= 2 * tickMs

export class Peers {
  readonly all = new Map<string, Peer>()
  /** Storage origins of the other nodes (a shared database: their changes are theirs to announce). */
  private readonly origins = new Set<string>()
  /** The last tick did not judge silence (it came late): the next one does, late or not. */
  private judgingDeferred = false

  constructor(
    private readonly link: Link,
    /** The outbox of frames for a node newly heard (relay.ts). */
    private readonly outboxFor: (node: string) => RelayOutbox,
    /** A peer was forgotten: its units and sources are gone with it. */
    private readonly forgotten: (peer: Peer) => void,
  ) {}

  /** A storage origin of another node. */
  isPeerOrigin(origin: string): boolean {
    return this.origins.has(origin)
  }

  /** Alive: a heartbeat or a unit of `m.node`. Returns its peer (null for this node itself). */
  heard(m: Heartbeat): Peer | null {
    const { link } = this
    if (m.origin && m.node !== link.nodeId) this.origins.add(m.origin)
    if (m.node === link.nodeId) return null
    let peer = this.all.get(m.node)
    if (peer && peer.incarnation !== m.incarnation) {
      this.forget(m.node)
      peer = undefined
    }
    if (!peer) {
      const node = m.node
      peer = { node, incarnation: m.incarnation, lastSeen: 0, endpoints: {}, units: new Map(), sources: new Map(), resync: false, relay: null, relayLocal: null, outbox: this.outboxFor(node) }
      this.all.set(node, peer)
      link.o.log.info({ nodeId: link.nodeId, peer: node }, 'cluster: node joined')
      // A node heard again after it was forgotten (silent for the lease TTL, under load or a
      // network split) would not announce its rooms again by itself: ask it to.
      link.publish(S.sync, { node: link.nodeId, to: node })
    }
    peer.lastSeen = link.o.clock.now()
    if (m.endpoints) peer.endpoints = m.endpoints
    // Only heartbeats carry endpoints: a unit (which has none) does not clear the relay address.
    if (m.endpoints) {
      peer.relay = m.relay ?? null
      peer.relayLocal = m.relayLocal ?? null
    }
    return peer
  }

  beat(): void {
    const { link } = this
    // A local listener is advertised only beside the TCP one (a dialler needs its key from `relay`).
    const relay = link.relayAddress === null ? {} : { relay: link.relayAddress, ...(link.relayLocal === null ? {} : { relayLocal: link.relayLocal }) }
    link.publish(S.heartbeat, { node: link.nodeId, incarnation: link.incarnation, origin: link.o.storage.origin, endpoints: link.o.endpoints(), ...relay } satisfies Heartbeat)
  }

  /** A lease tick, `sinceLastTickMs` after the previous one: heartbeat, silent peers, lost units. */
  tick(sinceLastTickMs: number): void {
    this.beat()
    const judge = judgesSilence(sinceLastTickMs, this.link.tickMs, this.judgingDeferred)
    this.judgingDeferred = !judge
    if (judge) this.expire()
    this.askLostUnits()
  }

  /** Peers whose frames named a source this node does not know: a unit of theirs may have been lost. */
  private askLostUnits(): void {
    for (const peer of this.all.values()) {
      if (!peer.resync) continue
      peer.resync = false
      this.link.publish(S.sync, { node: this.link.nodeId, to: peer.node })
    }
  }

  private expire(): void {
    const { link } = this
    const deadline = link.o.clock.now() - link.o.leaseTtlMs
    for (const peer of [...this.all.values()]) {
      if (peer.lastSeen < deadline) {
        link.o.log.warn({ nodeId: link.nodeId, peer: peer.node }, 'cluster: node silent for the lease TTL; dropping its members')
        this.forget(peer.node)
      }
    }
  }

  forget(node: string): void {
    const peer = this.all.get(node)
    if (!peer) return
    this.all.delete(node)
    this.forgotten(peer)
  }

  /** A live peer announced that it holds the room's lease. */
  ownedByPeer(key: string): boolean {
    for (const peer of this.all.values()) if (peer.units.get(key)?.owner === true) return true
    return false
  }

  /** Live nodes of the cluster, this one included, with their listeners. */
  nodes(): Array<{ nodeId: string; endpoints: Record<string, number> }> {
    return [
      { nodeId: this.link.nodeId, endpoints: this.link.o.endpoints() },
      ...[...this.all.values()].map((p) => ({ nodeId: p.node, endpoints: p.endpoints })),
    ]
  }
}
