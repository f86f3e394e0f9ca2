/**
 * The cluster as the engine sees it: the contracts a cluster implementation provides, and the
 * single-node one the engine uses when `cluster.natsUrl` is null. The NATS implementation lives
 * outside core (cluster/nats/), registered as an extension of kind `cluster` (`defineCluster`,
 * engine.config.ts), and is asked to join only when `cluster.natsUrl` is set.
 *
 * What a node does for the engine, and through which contract:
 *
 * - the other nodes' rooms, members and sessions, for listings, presence and a room that opens
 *   here (`RemoteDirectory`, core/presence.ts, attached to the terminal hub);
 * - where agents run: on a room's owner (`AgentPlacement`, core/agentRuntime/dispatcher.ts), and
 *   whether this node owns a room (`owns`, for room default agents);
 * - leases on named work, e.g. a webhook endpoint's delivery (`Leases`, core/leases.ts);
 * - the relay of audio: a room's router sends this node's frames to each other node with members
 *   there (`RemoteSink`, core/dataplane/roomRouter.ts, set by the room actor on a `REMOTES` event)
 *   and frames of other nodes' members enter as relayed members (`RelayedMember`, relayed.ts);
 * - agent requests from other nodes, answered through `ClusterAgentHooks`.
 */
import type { Registry } from 'prom-client'
import type { AgentControlRequest } from '../agentRuntime/agentControl.js'
import type { AgentPlacement, DispatchRequest } from '../agentRuntime/dispatcher.js'
import type { AgentOrigin, AgentView } from '../agentRuntime/liveAgent.js'
import type { ClockShape } from '../clock.js'
import { soleLeases, type Leases } from '../leases.js'
import type { Logger } from '../log.js'
import type { RemoteDirectory } from '../presence.js'
import type { SecurityShape } from '../security/security.js'
import type { StorageShape } from '../storage/storage.js'
import type { TerminalHub } from '../terminals.js'

/** Hooks of the engine's agent side, which a node calls (set once the dispatcher and default agents exist). */
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
  /** Live control of an agent of this node for another node; null when it has none of that id. */
  control(ws: string, agentId: string, request: AgentControlRequest): Promise<AgentView | null>
}

/** What the engine gives a node when it joins (its `cluster.*` settings and the services it works with). */
export interface ClusterOptions {
  readonly natsUrl: string
  readonly nodeId: string
  readonly leaseTtlMs: number
  /** Latency budget of the relay (cluster.relayBatchMs; 0: end of the turn). */
  readonly relayBatchMs?: number
  /** Least time between two relay messages to one node (cluster.relaySpacingUs, in ms here; 0: one per turn). */
  readonly relaySpacingMs?: number
  /** Where this node listens for the other nodes' relay links (cluster.relayLink: the engine's `host`); null or absent: no link, audio over NATS only. */
  readonly relayLinkHost?: string | null
  readonly hub: TerminalHub
  readonly storage: StorageShape
  readonly security: SecurityShape
  readonly clock: ClockShape
  readonly log: Logger
  /** This node's listeners (rest, gateway, mqtt, …), for the others and the demo. */
  readonly endpoints: () => Record<string, number>
}

/** A node of a cluster, as the engine holds it. */
export interface ClusterNode {
  /** False on a single node: nothing is elsewhere, every room and every lease is this node's. */
  readonly shared: boolean
  readonly placement: AgentPlacement
  /** Leases on named work (webhook endpoints); attached to the engine's leases before any plugin starts. */
  readonly leases: Leases
  /** True while this node owns the room (its default agent and API agents run here). */
  owns(ws: string, room: string): boolean
  setAgentHooks(hooks: ClusterAgentHooks): void
  /** Its counters on the engine's registry (`hark_cluster_*`). */
  installMetrics(registry: Registry): void
  /** Join: from then on its directory is the hub's (`TerminalHub.attachRemote`). */
  start(): Promise<void>
  /** Leave; the hub's directory is detached first. */
  stop(): Promise<void>
}

/** A cluster implementation (the instance of a `cluster` extension): makes this engine's node. */
export interface ClusterAdapter {
  /** May import the implementation first (a single node never loads it). */
  join(options: ClusterOptions): Promise<ClusterNode>
}

/** The other nodes of a single node: none. */
export const nothingElsewhere: RemoteDirectory = {
  roomNames: () => [],
  participants: () => [],
  session: () => undefined,
  sessions: () => [],
  openingRoom: () => [],
}

/** Every agent runs here: a single node never asks `ownerFor` a node other than itself. */
const runsHere: AgentPlacement = {
  owns: () => true,
  ownerFor: async () => null,
  dispatchAt: async () => {
    throw new Error('a single node dispatches nowhere else')
  },
  remoteList: async () => [],
  remoteAgent: async () => null,
  remoteControl: async () => null,
}

/** A node alone: owns every room, holds every lease, knows of no other node. */
export const singleNode: ClusterNode = {
  shared: false,
  placement: runsHere,
  leases: soleLeases,
  owns: () => true,
  setAgentHooks: () => undefined,
  installMetrics: () => undefined,
  start: async () => undefined,
  stop: async () => undefined,
}
