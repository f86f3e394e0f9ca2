/**
 * A node of a Hark cluster on NATS (spec/cluster.md): the `ClusterNode` the engine holds
 * (core/cluster/cluster.ts) when `cluster.natsUrl` is set. It joins NATS and wires the parts, each
 * a job of its own:
 *
 * - peers.ts: the other nodes (heartbeats, silence, goodbyes);
 * - directory.ts: room units, this node's copies of shared rooms, the RemoteDirectory;
 * - relay.ts (wire.ts): audio to and from the other nodes; metrics.ts: its counters;
 * - roomLeases.ts, keyLeases.ts: room ownership, and leases on named work (webhook endpoints);
 * - agentRpc.ts: agents on the room's owner, and agents of every node;
 * - control.ts: committed changes and newer sessions across nodes.
 *
 * Everything but the relay is control plane, timed by the engine clock (one tick every
 * leaseTtlMs/3: heartbeat, silent peers, leases).
 */
import { Kvm, type KV } from '@nats-io/kv'
import { connect, type Subscription } from '@nats-io/transport-node'
import type { Registry } from 'prom-client'
import type { ClusterAgentHooks, ClusterNode, ClusterOptions } from '../../core/cluster/cluster.js'
import type { Timer } from '../../core/clock.js'
import { AgentRpc } from './agentRpc.js'
import { Control } from './control.js'
import { Directory } from './directory.js'
import { KeyLeases } from './keyLeases.js'
import { Link } from './link.js'
import { installRelayMetrics } from './metrics.js'
import { Peers } from './peers.js'
import { decode, keyOf, LEASE_BUCKET, S, splitKey, WEBHOOK_LEASE_BUCKET, type AgentQuery, type AgentRequest, type Heartbeat, type SessionMessage, type Unit } from './protocol.js'
import { Relay } from './relay.js'
import { RoomLeases } from './roomLeases.js'

export class NatsClusterNode implements ClusterNode {
  readonly shared = true
  private readonly link: Link
  readonly peers: Peers
  readonly relay: Relay
  readonly directory: Directory
  private readonly roomLeases: RoomLeases
  /** Webhook endpoint leases (`services.leases` in a cluster); opened at start. */
  leases!: KeyLeases
  readonly placement: AgentRpc
  private readonly control: Control
  private timer: Timer | undefined
  private readonly subs: Subscription[] = []
  private readonly unsubscribe: Array<() => void> = []
  /** When the last tick ran: a tick much later than due means this node's event loop was blocked. */
  private lastTickAt = 0

  constructor(private readonly o: ClusterOptions) {
    const link = (this.link = new Link(o))
    this.peers = new Peers(
      link,
      (node) => this.relay.outboxFor(node),
      (peer) => {
        this.relay.retire(peer)
        this.directory.forgotten(peer)
      },
    )
    this.relay = new Relay(link, this.peers.all)
    this.roomLeases = new RoomLeases(link, {
      rooms: () => this.directory.roomKeys(),
      hasRoom: (key) => this.directory.hasRoom(key),
      ownedByPeer: (key) => this.peers.ownedByPeer(key),
      changed: (key, owned) => {
        this.directory.ownershipMoved(key)
        const [ws, room] = splitKey(key)
        this.placement.hooks?.ownershipChanged(ws, room, owned)
      },
    })
    this.directory = new Directory(link, this.peers, this.roomLeases)
    this.placement = new AgentRpc(link, this.peers, this.roomLeases)
    this.control = new Control(link, this.peers, () => this.placement.hooks)
  }

  get nodeId(): string {
    return this.link.nodeId
  }

  get incarnation(): string {
    return this.link.incarnation
  }

  owns(ws: string, room: string): boolean {
    return this.roomLeases.holds(keyOf(ws, room))
  }

  setAgentHooks(hooks: ClusterAgentHooks): void {
    this.placement.hooks = hooks
  }

  installMetrics(registry: Registry): void {
    installRelayMetrics(registry, () => this.relay.totals())
  }

  /** Live nodes of the cluster, this one included, with their listeners. */
  nodes(): Array<{ nodeId: string; endpoints: Record<string, number> }> {
    return this.peers.nodes()
  }

  async start(): Promise<void> {
    const { o, link } = this
    const { log } = o
    const nc = (link.nc = await connect({ servers: o.natsUrl, name: `hark-${link.nodeId}`, maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 5000 }))
    this.roomLeases.kv = await this.bucket(LEASE_BUCKET)
    this.leases = new KeyLeases(await this.bucket(WEBHOOK_LEASE_BUCKET), link.nodeId, log, 'webhook endpoint')
    const on = (subject: string, handle: (data: unknown, reply: string) => void) =>
      this.subs.push(
        nc.subscribe(subject, {
          callback: (err, msg) => {
            if (err) return
            try {
              handle(decode(msg.data), msg.reply ?? '')
            } catch (e) {
              log.warn({ err: e, subject: msg.subject }, 'cluster: a message could not be read; dropped')
            }
          },
        }),
      )
    const audioPrefix = S.audio(link.nodeId, '')
    const { relay, directory, peers, control, placement } = this
    this.subs.push(
      nc.subscribe(S.audio(link.nodeId, '*'), {
        callback: (err, msg) => {
          if (err) return
          relay.relayIn(msg.subject.slice(audioPrefix.length), msg.data)
        },
      }),
    )
    on(S.heartbeat, (m) => {
      const peer = peers.heard(m as Heartbeat)
      if (peer !== null) relay.linkTo(peer)
    })
    on(S.bye, (m) => {
      const { node } = m as { node: string }
      if (node !== link.nodeId) peers.forget(node)
    })
    on(S.sync, (m) => {
      // `to`: one node is asked (it heard of this one again, or lost one of its units); none: every node.
      const { node, to } = m as { node: string; to?: string }
      if (node !== link.nodeId && (to === undefined || to === link.nodeId)) directory.republish()
    })
    on(S.dirAll, (m) => directory.unitIn(m as Unit))
    on(S.session, (m) => control.sessionIn(m as SessionMessage))
    on(S.change, (m) => control.changeIn(m as { node: string; change: unknown }))
    on(S.agent(link.nodeId), (m, reply) => void placement.agentIn(m as AgentRequest, reply))
    on(S.agents(link.nodeId), (m, reply) => void placement.agentQueryIn(m as AgentQuery, reply))

    const { hub } = o
    this.unsubscribe.push(
      hub.on('room.occupancy', (e) => directory.markDirty(keyOf(e.workspaceId, e.room))),
      hub.on('room.closed', (e) => directory.markDirty(keyOf(e.workspaceId, e.room))),
      ...control.announce(),
    )
    hub.attachRemote(directory)
    void this.watchStatus()
    if (o.relayLinkHost) {
      try {
        const { address, local } = await relay.listen(o.relayLinkHost)
        link.relayAddress = address
        link.relayLocal = local
      } catch (e) {
        // Audio still flows, over NATS: a node without a link is a slower node, not a failed one.
        log.warn({ err: e, host: o.relayLinkHost }, 'cluster: cannot listen for relay links; audio to this node goes over NATS')
      }
    }
    peers.beat()
    link.publish(S.sync, { node: link.nodeId })
    await nc.flush()
    this.arm()
    log.info({ nodeId: link.nodeId, nats: o.natsUrl }, 'joined the cluster')
  }

  /** A lease bucket (created when missing: also after a NATS restart that lost it). */
  private async bucket(name: string): Promise<KV> {
    return new Kvm(this.link.nc).create(name, { ttl: this.o.leaseTtlMs, history: 1 })
  }

  async stop(): Promise<void> {
    const { link } = this
    if (link.stopped) return
    link.stopped = true
    this.o.clock.clearTimeout(this.timer)
    this.unsubscribe.splice(0).forEach((f) => f())
    this.o.hub.attachRemote(null)
    this.relay.stop()
    link.publish(S.bye, { node: link.nodeId })
    await this.roomLeases.stop()
    await this.leases.stop()
    try {
      await link.nc.drain()
    } catch {
      await link.nc.close().catch(() => {})
    }
  }

  private async watchStatus(): Promise<void> {
    const { link } = this
    const { log } = this.o
    for await (const status of link.nc.status()) {
      if (status.type === 'disconnect') log.warn({ nodeId: link.nodeId }, 'cluster: NATS connection lost; reconnecting')
      if (status.type === 'reconnect') {
        log.info({ nodeId: link.nodeId }, 'cluster: NATS reconnected; resynchronizing')
        try {
          this.roomLeases.kv = await this.bucket(LEASE_BUCKET)
          this.leases.reopen(await this.bucket(WEBHOOK_LEASE_BUCKET))
        } catch (e) {
          log.warn({ err: e }, 'cluster: lease bucket unavailable after reconnect')
        }
        this.peers.beat()
        link.publish(S.sync, { node: link.nodeId })
        this.directory.republish()
      }
    }
  }

  /** The tick, every leaseTtlMs/3 on the engine clock: heartbeat, silent peers, lost units, leases. */
  private arm(): void {
    const { clock } = this.o
    this.lastTickAt = clock.now()
    this.timer = clock.setTimeout(() => {
      if (this.link.stopped) return
      this.peers.tick(clock.now() - this.lastTickAt)
      for (const peer of this.peers.all.values()) this.relay.linkTo(peer)
      this.roomLeases.tick()
      this.leases.tick()
      this.arm()
    }, this.link.tickMs)
  }
}
