/**
 * A node of a Hark cluster (spec/cluster.md): joins NATS, and from then on
 *
 * - keeps a copy of every room that has members on this node: its own members plus a relayed
 *   member (relayed.ts) for each member another node announced in it, so frames, speaking events,
 *   the mix and `participant.*` events work unchanged on every node;
 * - sends its own sources' frames to each other node that has members in the room, one message
 *   per node per event-loop turn (wire.ts), and relays what it receives into its copies;
 * - announces its members per room (`dir`), hears the others', and drops a node that falls silent
 *   for the lease TTL;
 * - holds the lease of the rooms it owns in a NATS KV bucket (TTL, renewed; taken over when it
 *   lapses): agents run on the owner, room default agents start only there;
 * - carries control across nodes: committed storage changes (moves, revocations, deletion,
 *   device-password resets) and newer sessions of a client.
 *
 * The per-frame path is the router's remote sinks (an append into a buffer) and the relay
 * subscription (a DataView walk, a Map lookup, the room router): no actor, no Effect, no JSON.
 * Everything else here is control plane, timed by the engine clock.
 */
import { randomUUID } from 'node:crypto'
import { Kvm, type KV } from '@nats-io/kv'
import { Counter, type Registry } from 'prom-client'
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node'
import { roomOf, liveSession, type WorkspaceContext } from '../actors/workspace.js'
import type { AgentPlacement, DispatchRequest } from '../agentRuntime/dispatcher.js'
import type { AgentOrigin, AgentView } from '../agentRuntime/liveAgent.js'
import type { ClockShape, Timer } from '../clock.js'
import type { RemoteSink } from '../dataplane/roomRouter.js'
import { WriteBatch } from '../dataplane/writeBatch.js'
import {
  AgentStartFailed,
  ClusterUnavailable,
  Conflict,
  Internal,
  NotFound,
  ServerShuttingDown,
  SessionReplaced,
  ValidationFailed,
  isHarkError,
  publicMessage,
  type HarkError,
} from '../errors.js'
import type { ParticipantInfo } from '../events.js'
import type { Logger } from '../log.js'
import type { PresenceEntry, RemoteDirectory } from '../presence.js'
import type { SecurityShape } from '../security/security.js'
import { asChangeRow, changeRow } from '../storage/changes.js'
import type { StorageShape } from '../storage/storage.js'
import type { TerminalHub } from '../terminals.js'
import { KeyLeases } from './keyLeases.js'
import { RelayedMember, type RelayedInfo } from './relayed.js'
import { readRelayMessage, RelayOutbox } from './wire.js'

/** Subjects (spec/cluster.md, Subjects). */
const S = {
  heartbeat: 'hark.hb',
  bye: 'hark.bye',
  sync: 'hark.sync',
  dir: (node: string) => `hark.dir.${node}`,
  dirAll: 'hark.dir.*',
  audio: (to: string, from: string) => `hark.audio.${to}.${from}`,
  session: 'hark.session',
  change: 'hark.change',
  agent: (node: string) => `hark.agent.${node}`,
  agents: (node: string) => `hark.agents.${node}`,
} as const
export const LEASE_BUCKET = 'hark-room-owners'
/** Leases on webhook endpoints: the node holding one delivers its events (spec/cluster.md). */
export const WEBHOOK_LEASE_BUCKET = 'hark-webhook-owners'

export interface ClusterOptions {
  readonly natsUrl: string
  readonly nodeId: string
  readonly leaseTtlMs: number
  /** Latency budget of the relay outboxes (cluster.relayBatchMs; 0: end of the turn). */
  readonly relayBatchMs?: number
  readonly hub: TerminalHub
  readonly storage: StorageShape
  readonly security: SecurityShape
  readonly clock: ClockShape
  readonly log: Logger
  /** This node's listeners (rest, gateway, mqtt, …), for the others and the demo. */
  readonly endpoints: () => Record<string, number>
}

/** What a node announces for one room: its own members there (none: it left the room). */
interface Unit {
  readonly node: string
  readonly incarnation: string
  readonly ws: string
  readonly room: string
  readonly tag: number
  readonly members: ReadonlyArray<RelayedInfo>
  /** The node holds the room's lease: the others do not try to take it while it is alive. */
  readonly owner?: boolean
}

interface Peer {
  readonly node: string
  readonly incarnation: string
  lastSeen: number
  endpoints: Record<string, number>
  readonly units: Map<string, Unit>
  /** relayKey(tag, sourceId) -> the relayed member its frames go to. */
  readonly sources: Map<number, RelayedMember>
  readonly outbox: RelayOutbox
  /** Frames of a source this node does not know came from it: ask it for its units at the next tick. */
  resync: boolean
}

interface LocalRoom {
  readonly ws: string
  readonly room: string
  readonly tag: number
  /** peer\0tag\0memberId\0sourceId -> relayed member. */
  readonly proxies: Map<string, { member: RelayedMember; peer: Peer; relayKey: number }>
  published: string
}

interface Lease {
  revision: number
  acquiredAt: number
  busy: boolean
}

/** Hooks of the engine's agent side (set once the dispatcher and default agents exist). */
export interface ClusterAgentHooks {
  dispatchHere(ws: string, room: string, request: DispatchRequest, origin: AgentOrigin): Promise<AgentView>
  /** This node gained or lost the lease of a room. */
  ownershipChanged(ws: string, room: string, owned: boolean): void
  /** A committed `room.updated` from another node. */
  roomSettingsChanged(ws: string, room: string): void
  /** This node's agents of a workspace (optionally of one room), for another node's listing. */
  list(ws: string, room: string | null): AgentView[]
  get(ws: string, agentId: string): AgentView | null
  /** Stop an agent of this node; null when it has none of that id. Resolves once it left its room. */
  stop(ws: string, agentId: string): Promise<AgentView | null>
}

/** How long a node waits for another node's answer about its agents (a list or a read). */
const AGENT_QUERY_TIMEOUT_MS = 2000
/** A stop waits for the agent to leave its room (agents.stopTimeoutMs at most, 60 s). */
const AGENT_STOP_TIMEOUT_MS = 65_000

type AgentQuery =
  | { readonly op: 'list'; readonly ws: string; readonly room: string | null }
  | { readonly op: 'get' | 'stop'; readonly ws: string; readonly agentId: string }
type AgentAnswer = { readonly views: AgentView[] } | { readonly error: { readonly tag: string; readonly message: string } }

const keyOf = (ws: string, room: string) => `${ws}\n${room}`
const splitKey = (key: string): [string, string] => {
  const i = key.indexOf('\n')
  return [key.slice(0, i), key.slice(i + 1)]
}
const leaseKeyOf = (key: string) => Buffer.from(key).toString('base64url')
const decode = (data: Uint8Array): unknown => JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'))
const encode = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value))

/** Errors an owner answers a forwarded dispatch with, rebuilt on the asking node. */
const rebuild = (tag: string, message: string): HarkError => {
  switch (tag) {
    case 'Conflict':
      return new Conflict({ message })
    case 'AgentStartFailed':
      return new AgentStartFailed({ message })
    case 'NotFound':
      return new NotFound({ message })
    case 'ValidationFailed':
      return new ValidationFailed({ field: 'body', message })
    case 'ServerShuttingDown':
      return new ClusterUnavailable({ message: 'the room owner is shutting down; retry' })
    default:
      return new Internal({ message })
  }
}

/**
 * Whether a tick judges which peers fell silent. Not at a tick that came more than two ticks late:
 * this node's event loop was blocked, and the others' heartbeats are still waiting in its socket
 * (they are read before the next tick). But at least every other tick: a node late at every tick
 * (a loop blocked again and again) must still forget a node that died.
 */
export const judgesSilence = (sinceLastTickMs: number, tickMs: number, deferredLast: boolean): boolean =>
  deferredLast || sinceLastTickMs <= 2 * tickMs

export class ClusterNode implements RemoteDirectory, AgentPlacement {
  readonly nodeId: string
  /** Changes at every start: a node back under the same id is told apart from its past self. */
  readonly incarnation = randomUUID()
  private nc!: NatsConnection
  private kv!: KV
  /** Webhook endpoint leases (`services.leases` in a cluster). */
  webhookLeases!: KeyLeases
  private readonly peers = new Map<string, Peer>()
  private readonly rooms = new Map<string, LocalRoom>()
  private readonly leases = new Map<string, Lease>()
  private readonly dirty = new Set<string>()
  private flushScheduled = false
  private nextTag = 1
  private timer: Timer | undefined
  private readonly subs: Subscription[] = []
  private readonly unsubscribe: Array<() => void> = []
  private readonly batch: WriteBatch
  private agents: ClusterAgentHooks | null = null
  private stopped = false
  private sessionIndex: Map<string, Map<string, PresenceEntry>> | null = null
  /**
   * Relay counters for /metrics (`hark_cluster_relay_*`), the bench and tests. Frames dropped on
   * receipt: from a node this one does not know (`unknownNode`), for a source that is not one of
   * its relayed members here (`unknownSource`), the rest of a malformed message (`malformed`).
   */
  readonly stats = { relayMessagesIn: 0, relayFramesIn: 0, unknownNode: 0, unknownSource: 0, malformed: 0 }
  /** Frames of peers this node forgot (their outboxes are gone with them), for /metrics. */
  private retiredOut = { messages: 0, frames: 0, dropped: 0 }

  /** What this node's leases hold, `{node}` (encoded once: a renewal per room per tick writes it). */
  private readonly leaseValue: Uint8Array

  constructor(private readonly o: ClusterOptions) {
    this.nodeId = o.nodeId
    this.leaseValue = encode({ node: o.nodeId })
    this.batch = new WriteBatch(o.relayBatchMs ?? 0, (e) => this.publishFailed(e))
  }

  private publishFailedLogged = false
  /** A relay message could not be published (its frames are counted as dropped): logged once per process; the counter keeps counting. */
  private publishFailed(e: unknown): void {
    if (this.publishFailedLogged) return
    this.publishFailedLogged = true
    this.o.log.warn({ nodeId: this.nodeId, err: e }, 'cluster: relay messages cannot be published; their frames are dropped')
  }

  /** Relay totals of this node: frames and messages out (per remote node added up) and in, and drops by reason. */
  relayTotals() {
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

  /** `hark_cluster_relay_frames_total{direction}`, `_messages_total{direction}` and `_frames_dropped_total{reason}`, read when scraped. */
  installMetrics(registry: Registry): void {
    const totals = () => this.relayTotals()
    const byDirection = (name: string, help: string, pick: (t: ReturnType<typeof totals>) => readonly [out: number, inbound: number]) =>
      new Counter({
        name,
        help,
        labelNames: ['direction'],
        registers: [registry],
        collect() {
          const [out, inbound] = pick(totals())
          this.reset()
          this.inc({ direction: 'out' }, out)
          this.inc({ direction: 'in' }, inbound)
        },
      })
    byDirection('hark_cluster_relay_frames_total', 'Audio frames relayed to other nodes (out) and received from them (in)', (t) => [t.framesOut, t.framesIn])
    byDirection('hark_cluster_relay_messages_total', 'NATS messages of relayed audio sent to other nodes (out) and received (in)', (t) => [t.messagesOut, t.messagesIn])
    new Counter({
      name: 'hark_cluster_relay_frames_dropped_total',
      help: 'Relayed audio frames dropped: from an unknown node, for an unknown source, malformed, or not published',
      labelNames: ['reason'],
      registers: [registry],
      collect() {
        const t = totals()
        this.reset()
        for (const [reason, n] of Object.entries(t.dropped)) this.inc({ reason }, n)
      },
    })
  }

  private get tickMs() {
    return Math.floor(this.o.leaseTtlMs / 3)
  }

  async start(): Promise<void> {
    const { log } = this.o
    this.nc = await connect({
      servers: this.o.natsUrl,
      name: `hark-${this.nodeId}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      pingInterval: 5000,
    })
    this.kv = await this.bucket()
    this.webhookLeases = new KeyLeases(await this.webhookBucket(), this.nodeId, log, 'webhook endpoint')
    const nc = this.nc
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
    const audioPrefix = S.audio(this.nodeId, '')
    this.subs.push(
      nc.subscribe(S.audio(this.nodeId, '*'), {
        callback: (err, msg) => {
          if (err) return
          this.relayIn(msg.subject.slice(audioPrefix.length), msg.data)
        },
      }),
    )
    on(S.heartbeat, (m) => this.heard(m as { node: string; incarnation: string; endpoints: Record<string, number> }))
    on(S.bye, (m) => {
      const { node } = m as { node: string }
      if (node !== this.nodeId) this.forgetPeer(node)
    })
    on(S.sync, (m) => {
      // `to`: one node is asked (it heard of this one again, or lost one of its units); none: every node.
      const { node, to } = m as { node: string; to?: string }
      if (node !== this.nodeId && (to === undefined || to === this.nodeId)) this.republish()
    })
    on(S.dirAll, (m) => this.unitIn(m as Unit))
    on(S.session, (m) => this.sessionIn(m as { node: string; workspaceId: string; clientId: string; sessionId: string; connectedAt: number }))
    on(S.change, (m) => this.changeIn(m as { node: string; change: unknown }))
    on(S.agent(this.nodeId), (m, reply) => void this.agentIn(m as AgentRequest, reply))
    on(S.agents(this.nodeId), (m, reply) => void this.agentQueryIn(m as AgentQuery, reply))

    const { hub, storage } = this.o
    this.unsubscribe.push(
      hub.on('room.occupancy', (e) => this.markDirty(keyOf(e.workspaceId, e.room))),
      hub.on('room.closed', (e) => this.markDirty(keyOf(e.workspaceId, e.room))),
      hub.on('session.opened', ({ session: s }) => {
        this.publish(S.session, { node: this.nodeId, workspaceId: s.workspaceId, clientId: s.clientId, sessionId: s.sessionId, connectedAt: s.connectedAt })
      }),
      storage.feed.onAny((change) => {
        // This node's writes, and those of a process beside it (the CLI); not another node's (it says them).
        if (change.origin !== storage.origin && this.peerOrigins.has(change.origin)) return
        // As its row: what it carries (a client's room as written …) travels as the change log holds it.
        this.publish(S.change, { node: this.nodeId, change: changeRow(change) })
      }),
    )
    hub.attachRemote(this)
    void this.watchStatus()
    this.beat()
    this.publish(S.sync, { node: this.nodeId })
    await nc.flush()
    this.arm()
    log.info({ nodeId: this.nodeId, nats: this.o.natsUrl }, 'joined the cluster')
  }

  /** The lease bucket (created when missing: also after a NATS restart that lost it). */
  private async bucket(): Promise<KV> {
    return new Kvm(this.nc).create(LEASE_BUCKET, { ttl: this.o.leaseTtlMs, history: 1 })
  }

  private async webhookBucket(): Promise<KV> {
    return new Kvm(this.nc).create(WEBHOOK_LEASE_BUCKET, { ttl: this.o.leaseTtlMs, history: 1 })
  }

  setAgentHooks(hooks: ClusterAgentHooks): void {
    this.agents = hooks
  }

  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.o.clock.clearTimeout(this.timer)
    this.unsubscribe.splice(0).forEach((f) => f())
    this.o.hub.attachRemote(null)
    for (const peer of this.peers.values()) peer.outbox.flush()
    this.batch.stop()
    this.publish(S.bye, { node: this.nodeId })
    await Promise.all(
      [...this.leases.keys()].map((key) => this.kv.delete(leaseKeyOf(key), { previousSeq: this.leases.get(key)!.revision }).catch(() => {})),
    )
    this.leases.clear()
    await this.webhookLeases.stop()
    try {
      await this.nc.drain()
    } catch {
      await this.nc.close().catch(() => {})
    }
  }

  private publish(subject: string, value: unknown): void {
    if (this.stopped && subject !== S.bye) return
    try {
      this.nc.publish(subject, encode(value))
    } catch (e) {
      this.o.log.warn({ err: e, subject }, 'cluster: publish failed')
    }
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') this.o.log.warn({ nodeId: this.nodeId }, 'cluster: NATS connection lost; reconnecting')
      if (status.type === 'reconnect') {
        this.o.log.info({ nodeId: this.nodeId }, 'cluster: NATS reconnected; resynchronizing')
        try {
          this.kv = await this.bucket()
          this.webhookLeases.reopen(await this.webhookBucket())
        } catch (e) {
          this.o.log.warn({ err: e }, 'cluster: lease bucket unavailable after reconnect')
        }
        this.beat()
        this.publish(S.sync, { node: this.nodeId })
        this.republish()
      }
    }
  }

  // ---- Timers: heartbeat, silent peers, leases ----

  /** When the last tick ran: a tick much later than due means this node's event loop was blocked. */
  private lastTickAt = 0
  /** The last tick did not judge silence (it came late): the next one does, late or not. */
  private judgingDeferred = false

  private arm(): void {
    this.lastTickAt = this.o.clock.now()
    this.timer = this.o.clock.setTimeout(() => {
      if (this.stopped) return
      this.beat()
      const judge = judgesSilence(this.o.clock.now() - this.lastTickAt, this.tickMs, this.judgingDeferred)
      this.judgingDeferred = !judge
      if (judge) this.expirePeers()
      this.askLostUnits()
      this.tickLeases()
      this.webhookLeases.tick()
      this.arm()
    }, this.tickMs)
  }

  private beat(): void {
    this.publish(S.heartbeat, { node: this.nodeId, incarnation: this.incarnation, origin: this.o.storage.origin, endpoints: this.o.endpoints() })
  }

  /** Storage origins of the other nodes (a shared database: their changes are theirs to announce). */
  private readonly peerOrigins = new Set<string>()

  private heard(m: { node: string; incarnation: string; origin?: string; endpoints?: Record<string, number> }): Peer | null {
    if (m.origin && m.node !== this.nodeId) this.peerOrigins.add(m.origin)
    if (m.node === this.nodeId) return null
    let peer = this.peers.get(m.node)
    if (peer && peer.incarnation !== m.incarnation) {
      this.forgetPeer(m.node)
      peer = undefined
    }
    if (!peer) {
      const node = m.node
      peer = {
        node,
        incarnation: m.incarnation,
        lastSeen: 0,
        endpoints: {},
        units: new Map(),
        sources: new Map(),
        resync: false,
        outbox: new RelayOutbox((message) => this.nc.publish(S.audio(node, this.nodeId), message), this.batch),
      }
      this.peers.set(node, peer)
      this.o.log.info({ nodeId: this.nodeId, peer: node }, 'cluster: node joined')
      // A node heard again after it was forgotten (silent for the lease TTL, under load or a
      // network split) would not announce its rooms again by itself: ask it to.
      this.publish(S.sync, { node: this.nodeId, to: node })
    }
    peer.lastSeen = this.o.clock.now()
    if (m.endpoints) peer.endpoints = m.endpoints
    return peer
  }

  /** Peers whose frames named a source this node does not know: a unit of theirs may have been lost. */
  private askLostUnits(): void {
    for (const peer of this.peers.values()) {
      if (!peer.resync) continue
      peer.resync = false
      this.publish(S.sync, { node: this.nodeId, to: peer.node })
    }
  }

  private expirePeers(): void {
    const deadline = this.o.clock.now() - this.o.leaseTtlMs
    for (const peer of [...this.peers.values()]) {
      if (peer.lastSeen < deadline) {
        this.o.log.warn({ nodeId: this.nodeId, peer: peer.node }, 'cluster: node silent for the lease TTL; dropping its members')
        this.forgetPeer(peer.node)
      }
    }
  }

  private forgetPeer(node: string): void {
    const peer = this.peers.get(node)
    if (!peer) return
    this.peers.delete(node)
    this.retiredOut.messages += peer.outbox.messages
    this.retiredOut.frames += peer.outbox.frames
    this.retiredOut.dropped += peer.outbox.dropped
    this.sessionIndex = null
    for (const key of peer.units.keys()) if (this.rooms.has(key)) this.markDirty(key)
  }

  /** Live nodes of the cluster, this one included, with their listeners. */
  nodes(): Array<{ nodeId: string; endpoints: Record<string, number> }> {
    return [
      { nodeId: this.nodeId, endpoints: this.o.endpoints() },
      ...[...this.peers.values()].map((p) => ({ nodeId: p.node, endpoints: p.endpoints })),
    ]
  }

  // ---- Leases ----

  /** True while this node holds the lease of the room. */
  owns(ws: string, room: string): boolean {
    return this.leases.has(keyOf(ws, room))
  }

  private tickLeases(): void {
    const now = this.o.clock.now()
    for (const [key, lease] of this.leases) {
      if (lease.busy) continue
      // A lease taken for a dispatch whose agent never opened the room is let go.
      if (!this.rooms.has(key) && now - lease.acquiredAt > this.o.leaseTtlMs) {
        void this.release(key)
        continue
      }
      lease.busy = true
      this.kv
        .update(leaseKeyOf(key), this.leaseValue, lease.revision)
        .then((revision) => {
          lease.revision = revision
        })
        .catch((e: unknown) => this.lost(key, e))
        .finally(() => {
          lease.busy = false
        })
    }
    // A room whose owner is a live node that says so is left alone: a `create` that must fail
    // costs two JetStream requests (the client reads the key after the refusal). When the owner
    // dies it is forgotten after leaseTtlMs of silence, its key lapses as long after its last
    // renewal, and the next tick takes the room; when it lets the room go, its unit says so.
    for (const key of this.rooms.keys()) if (!this.leases.has(key) && !this.ownedByPeer(key)) void this.acquire(key)
  }

  /** A live peer announced that it holds the room's lease. */
  private ownedByPeer(key: string): boolean {
    for (const peer of this.peers.values()) if (peer.units.get(key)?.owner === true) return true
    return false
  }

  /** Say in the room's unit whether this node holds its lease (published if it changed). */
  private ownershipMoved(key: string): void {
    if (this.rooms.has(key)) this.markDirty(key)
  }

  private readonly acquiring = new Set<string>()

  /** Take the room's lease if nobody holds it; true when this node holds it after. */
  private async acquire(key: string): Promise<boolean> {
    if (this.leases.has(key)) return true
    if (this.acquiring.has(key) || this.stopped) return false
    this.acquiring.add(key)
    try {
      const revision = await this.kv.create(leaseKeyOf(key), this.leaseValue)
      this.leases.set(key, { revision, acquiredAt: this.o.clock.now(), busy: false })
      this.ownershipMoved(key)
      const [ws, room] = splitKey(key)
      this.o.log.info({ nodeId: this.nodeId, workspaceId: ws, room }, 'cluster: room owner')
      this.agents?.ownershipChanged(ws, room, true)
      return true
    } catch {
      return false
    } finally {
      this.acquiring.delete(key)
    }
  }

  private lost(key: string, e: unknown): void {
    if (!this.leases.delete(key)) return
    this.ownershipMoved(key)
    const [ws, room] = splitKey(key)
    this.o.log.warn({ nodeId: this.nodeId, workspaceId: ws, room, err: e }, 'cluster: lost the room lease')
    this.agents?.ownershipChanged(ws, room, false)
  }

  private async release(key: string): Promise<void> {
    const lease = this.leases.get(key)
    if (!lease) return
    this.leases.delete(key)
    this.ownershipMoved(key)
    const [ws, room] = splitKey(key)
    this.agents?.ownershipChanged(ws, room, false)
    await this.kv.delete(leaseKeyOf(key), { previousSeq: lease.revision }).catch(() => {})
  }

  /** AgentPlacement: null to run here, else the owner node to forward to. */
  async ownerFor(ws: string, room: string): Promise<string | null> {
    const key = keyOf(ws, room)
    if (this.leases.has(key)) return null
    let entry
    try {
      entry = await this.kv.get(leaseKeyOf(key))
    } catch (e) {
      throw new ClusterUnavailable({ message: `room owner unknown: ${(e as Error).message}` })
    }
    if (entry && entry.operation === 'PUT') {
      const { node } = entry.json<{ node: string }>()
      if (node === this.nodeId) return null
      if (this.peers.has(node)) return node
      throw new ClusterUnavailable({ message: 'the room owner is gone; another node takes the room over within the lease TTL' })
    }
    if (await this.acquire(key)) return null
    return this.ownerFor(ws, room)
  }

  async dispatchAt(node: string, ws: string, room: string, request: DispatchRequest, origin: AgentOrigin): Promise<AgentView> {
    let reply
    try {
      reply = await this.nc.request(S.agent(node), encode({ ws, room, request, origin }), { timeout: 20_000 })
    } catch (e) {
      throw new ClusterUnavailable({ message: `the room owner did not answer: ${(e as Error).message}` })
    }
    const answer = decode(reply.data) as { view?: AgentView; error?: { tag: string; message: string } }
    if (answer.error) throw rebuild(answer.error.tag, answer.error.message)
    return answer.view!
  }

  private async agentIn(m: AgentRequest, reply: string): Promise<void> {
    if (!reply) return
    let answer: unknown
    try {
      if (!this.agents) throw new ServerShuttingDown({ message: 'agents are not running here' })
      // Forwarded here as the owner; if the lease moved meanwhile, it runs here anyway (the asker chose).
      answer = { view: await this.agents.dispatchHere(m.ws, m.room, m.request, m.origin) }
    } catch (e) {
      answer = { error: { tag: isHarkError(e) ? e._tag : 'Internal', message: publicMessage(e) } }
    }
    this.nc.publish(reply, encode(answer))
  }

  // ---- Agents of every node: lists, reads and stops by id (AgentPlacement) ----

  /** Ask every live peer; each answer's views, or ClusterUnavailable naming who did not answer. */
  private async askPeers(query: AgentQuery, timeout: number): Promise<Array<{ node: string; views: AgentView[] | null }>> {
    const nodes = [...this.peers.keys()]
    return Promise.all(
      nodes.map(async (node) => {
        try {
          const reply = await this.nc.request(S.agents(node), encode(query), { timeout })
          const answer = decode(reply.data) as AgentAnswer
          if ('error' in answer) throw rebuild(answer.error.tag, answer.error.message)
          return { node, views: answer.views }
        } catch (e) {
          if (isHarkError(e)) throw e
          return { node, views: null }
        }
      }),
    )
  }

  private static unanswered(answers: ReadonlyArray<{ node: string; views: AgentView[] | null }>): ClusterUnavailable | null {
    const silent = answers.filter((a) => a.views === null).map((a) => a.node)
    return silent.length === 0
      ? null
      : new ClusterUnavailable({ message: `node ${silent.join(', ')} did not answer about its agents; retry (a node that died is forgotten within the lease TTL)` })
  }

  async remoteList(ws: string, room: string | null): Promise<AgentView[]> {
    const answers = await this.askPeers({ op: 'list', ws, room }, AGENT_QUERY_TIMEOUT_MS)
    const error = ClusterNode.unanswered(answers)
    if (error) throw error
    return answers.flatMap((a) => a.views ?? [])
  }

  async remoteAgent(ws: string, agentId: string, op: 'get' | 'stop'): Promise<AgentView | null> {
    const answers = await this.askPeers({ op, ws, agentId }, op === 'stop' ? AGENT_STOP_TIMEOUT_MS : AGENT_QUERY_TIMEOUT_MS)
    const found = answers.find((a) => a.views !== null && a.views.length > 0)
    if (found) return found.views![0]!
    const error = ClusterNode.unanswered(answers)
    if (error) throw error
    return null
  }

  private async agentQueryIn(m: AgentQuery, reply: string): Promise<void> {
    if (!reply) return
    let answer: AgentAnswer
    try {
      const agents = this.agents
      if (!agents) throw new ServerShuttingDown({ message: 'agents are not running here' })
      if (m.op === 'list') answer = { views: agents.list(m.ws, m.room) }
      else {
        const view = m.op === 'get' ? agents.get(m.ws, m.agentId) : await agents.stop(m.ws, m.agentId)
        answer = { views: view ? [view] : [] }
      }
    } catch (e) {
      answer = { error: { tag: isHarkError(e) ? e._tag : 'Internal', message: publicMessage(e) } }
    }
    this.nc.publish(reply, encode(answer))
  }

  // ---- Rooms: what this node announces, and the copies it keeps ----

  private markDirty(key: string): void {
    this.dirty.add(key)
    if (this.flushScheduled) return
    this.flushScheduled = true
    // After the actor step that announced it: the room's snapshot then says who is in it.
    setImmediate(() => {
      this.flushScheduled = false
      const keys = [...this.dirty]
      this.dirty.clear()
      for (const key of keys) this.refresh(key)
    })
  }

  private republish(): void {
    for (const local of this.rooms.values()) local.published = ''
    for (const key of this.rooms.keys()) this.markDirty(key)
  }

  private refresh(key: string): void {
    if (this.stopped) return
    const [ws, room] = splitKey(key)
    const context = this.o.hub.context(ws)
    const ref = context && roomOf(context, room)
    const members = ref ? [...ref.getSnapshot().context.members.values()].filter((e) => e.member.listens !== false) : []
    let local = this.rooms.get(key)
    if (members.length === 0) {
      if (!local) return
      this.rooms.delete(key)
      this.publish(S.dir(this.nodeId), { node: this.nodeId, incarnation: this.incarnation, ws, room, tag: local.tag, members: [] } satisfies Unit)
      for (const { member, peer, relayKey } of local.proxies.values()) {
        peer.sources.delete(relayKey)
        this.o.hub.leaveRoom(ws, room, member)
      }
      local.proxies.clear()
      void this.release(key)
      return
    }
    const fresh = !local
    local ??= this.openLocal(key, ws, room)
    const infos: RelayedInfo[] = members.map(({ member, info }) => {
      const session = member.kind === 'terminal' ? liveSession(context!, member.id) : undefined
      return session
        ? { id: info.id, kind: info.kind, name: info.name, sourceId: info.sourceId, sessionId: session.sessionId, transport: session.link.transport, connectedAt: session.connectedAt }
        : { id: info.id, kind: info.kind, name: info.name, sourceId: info.sourceId }
    })
    const unit: Unit = { node: this.nodeId, incarnation: this.incarnation, ws, room, tag: local.tag, members: infos, owner: this.leases.has(key) }
    const json = JSON.stringify(unit)
    if (json !== local.published) {
      local.published = json
      this.nc.publish(S.dir(this.nodeId), Buffer.from(json))
    }
    this.reconcile(local, context!, new Set(members.map((e) => e.member.id)))
    if (fresh) void this.acquire(key)
  }

  private openLocal(key: string, ws: string, room: string): LocalRoom {
    const local: LocalRoom = { ws, room, tag: this.nextTag++, proxies: new Map(), published: '' }
    if (this.nextTag > 0xffffffff) this.nextTag = 1
    this.rooms.set(key, local)
    return local
  }

  /** Relay a member another node announced into this node's copy of a room (it joins the room actor). */
  private addProxy(local: LocalRoom, peer: Peer, unit: Unit, info: RelayedInfo): string {
    const id = `${peer.node}\0${unit.tag}\0${info.id}\0${info.sourceId}`
    if (local.proxies.has(id)) return id
    const member = new RelayedMember(peer.node, info)
    const relayKey = unit.tag * 65536 + info.sourceId
    peer.sources.set(relayKey, member)
    local.proxies.set(id, { member, peer, relayKey })
    this.o.hub.joinRoom(local.ws, local.room, member)
    return id
  }

  /**
   * RemoteDirectory: a member is about to join a room that has no copy on this node yet. The
   * members the other nodes announced in it join the copy first (the workspace actor takes events
   * in order), so the newcomer's `session` lists the whole room, on every transport. A room with
   * members here already has them; the next refresh publishes the unit and sets the remote sinks.
   */
  prepareRoom(ws: string, room: string, joiningId: string): void {
    const key = keyOf(ws, room)
    if (this.stopped || this.rooms.has(key)) return
    let local: LocalRoom | undefined
    for (const peer of this.peers.values()) {
      const unit = peer.units.get(key)
      if (!unit) continue
      for (const info of unit.members) {
        if (info.id === joiningId) continue
        local ??= this.openLocal(key, ws, room)
        this.addProxy(local, peer, unit, info)
      }
    }
    if (local) void this.acquire(key)
  }

  /** Make the room's relayed members and remote sinks follow what the other nodes announced. */
  private reconcile(local: LocalRoom, context: WorkspaceContext, localIds: ReadonlySet<string>): void {
    const key = keyOf(local.ws, local.room)
    const wanted = new Set<string>()
    const remotes: RemoteSink[] = []
    for (const peer of this.peers.values()) {
      const unit = peer.units.get(key)
      if (!unit || unit.members.length === 0) continue
      const tag = local.tag
      const outbox = peer.outbox
      remotes.push({ send: (sourceId, uplink) => outbox.append(tag, sourceId, uplink) })
      for (const info of unit.members) {
        // A client here and there at once is being replaced: its session here stays until closed.
        if (localIds.has(info.id)) continue
        wanted.add(this.addProxy(local, peer, unit, info))
      }
    }
    for (const [id, { member, peer, relayKey }] of local.proxies) {
      if (wanted.has(id)) continue
      local.proxies.delete(id)
      if (peer.sources.get(relayKey) === member) peer.sources.delete(relayKey)
      this.o.hub.leaveRoom(local.ws, local.room, member)
    }
    roomOf(context, local.room)?.getSnapshot().context.router.setRemotes(remotes)
  }

  private unitIn(unit: Unit): void {
    if (unit.node === this.nodeId) return
    const peer = this.heard({ node: unit.node, incarnation: unit.incarnation })
    if (!peer) return
    const key = keyOf(unit.ws, unit.room)
    if (unit.members.length === 0) peer.units.delete(key)
    else peer.units.set(key, unit)
    this.sessionIndex = null
    if (this.rooms.has(key)) this.markDirty(key)
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
    this.o.log.warn(
      { nodeId: this.nodeId, from: peer.node, tag, sourceId: key % 65536 },
      'cluster: relayed frames for a source this node does not know; dropped (logged once per source)',
    )
  }

  /** Hot path: one relay message from `from` (wire.ts). */
  private relayIn(from: string, data: Uint8Array): void {
    const peer = this.peers.get(from)
    this.stats.relayMessagesIn++
    if (peer === undefined) {
      // Not a node this one knows (not heard yet, or forgotten): count its frames, drop them.
      const read = readRelayMessage(data, ClusterNode.countFrame)
      this.stats.unknownNode += read < 0 ? -1 - read : read
      return
    }
    this.relaySources = peer.sources
    this.relayPeer = peer
    this.relayNow = performance.now()
    const read = readRelayMessage(data, this.relayFrame)
    if (read < 0) {
      this.stats.malformed++
      this.o.log.warn({ from }, 'cluster: a malformed relay message; the rest of it was dropped')
    }
    this.stats.relayFramesIn += read < 0 ? -1 - read : read
  }

  // ---- Control across nodes ----

  private sessionIn(m: { node: string; workspaceId: string; clientId: string; sessionId: string; connectedAt: number }): void {
    if (m.node === this.nodeId) return
    const session = this.o.hub.session(m.workspaceId, m.clientId)
    if (!session || session.sessionId === m.sessionId) return
    const mine = this.o.hub.presenceEntry(m.workspaceId, m.clientId)
    // The newer one stays: the one here goes when it connected first (ties: the smaller id goes).
    if (mine && (mine.connectedAt < m.connectedAt || (mine.connectedAt === m.connectedAt && mine.sessionId < m.sessionId))) {
      session.close(new SessionReplaced({ message: 'replaced by a newer session of the same client' }))
    }
  }

  private changeIn(m: { node: string; change: unknown }): void {
    if (m.node === this.nodeId) return
    const { security, storage } = this.o
    const row = asChangeRow(m.change)
    if (row === null) return
    if (row.workspaceId && row.subject && row.kind.startsWith('client.')) storage.clients.invalidate(row.workspaceId, row.subject)
    const change = storage.feed.read(row)
    if (change === null) return
    if (change.kind === 'apikey.revoked') security.apiKeys.forget(change.subject)
    else if (change.kind === 'secret.rotated') security.keyring.invalidate(change.workspaceId)
    else if (change.kind === 'token.revoked') security.revocations.add(change.subject)
    else if (change.kind === 'room.updated') this.agents?.roomSettingsChanged(change.workspaceId, change.subject)
    this.o.hub.applyChange(change)
  }

  // ---- RemoteDirectory: what the other nodes announced, for listings and presence ----

  roomNames(ws: string): string[] {
    const names = new Set<string>()
    for (const peer of this.peers.values()) for (const unit of peer.units.values()) if (unit.ws === ws) names.add(unit.room)
    return [...names]
  }

  participants(ws: string, room: string): Array<ParticipantInfo & { readonly transport: string | null }> {
    const key = keyOf(ws, room)
    const out: Array<ParticipantInfo & { readonly transport: string | null }> = []
    for (const peer of this.peers.values()) {
      for (const m of peer.units.get(key)?.members ?? []) {
        out.push({ id: m.id, kind: m.kind, sourceId: m.sourceId, name: m.name, transport: m.transport ?? null })
      }
    }
    return out
  }

  private index(): Map<string, Map<string, PresenceEntry>> {
    if (this.sessionIndex) return this.sessionIndex
    const index = new Map<string, Map<string, PresenceEntry>>()
    for (const peer of this.peers.values()) {
      for (const unit of peer.units.values()) {
        for (const m of unit.members) {
          if (m.kind !== 'terminal' || !m.sessionId) continue
          let ws = index.get(unit.ws)
          if (!ws) index.set(unit.ws, (ws = new Map()))
          ws.set(m.id, { sessionId: m.sessionId, workspaceId: unit.ws, clientId: m.id, transport: m.transport ?? 'unknown', connectedAt: m.connectedAt ?? 0, room: unit.room })
        }
      }
    }
    return (this.sessionIndex = index)
  }

  session(ws: string, clientId: string): PresenceEntry | undefined {
    return this.index().get(ws)?.get(clientId)
  }

  sessions(ws: string): PresenceEntry[] {
    return [...(this.index().get(ws)?.values() ?? [])]
  }
}

interface AgentRequest {
  readonly ws: string
  readonly room: string
  readonly request: DispatchRequest
  readonly origin: AgentOrigin
}
