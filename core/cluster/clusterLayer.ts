/**
 * The cluster in an engine: its service and layer. What a cluster is to the engine is cluster.ts
 * (the contracts and the single node); an implementation is a cluster extension (on NATS:
 * ../../cluster/nats/). With `cluster.natsUrl` set the node joins through the registered cluster
 * extension before any terminal can connect, and leaves when released, after they are closed;
 * without it the engine is a single node and loads no cluster implementation.
 */
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { RoomDefaultAgents } from '../agentRuntime/defaultAgents.js'
import { Agents } from '../agentRuntime/dispatcherLayer.js'
import { Clock } from '../clock.js'
import type { Settings } from '../config.js'
import { Log } from '../log.js'
import { Metrics } from '../metrics.js'
import { RecordingsService } from '../recordings/recordingsLayer.js'
import { Extensions } from '../registryLayer.js'
import { Security } from '../security/security.js'
import { ClusterJoinError, messageOf } from '../startupErrors.js'
import { Storage } from '../storage/storage.js'
import { Terminals } from '../terminals.js'
import { singleNode, type ClusterAdapter, type ClusterNode } from './cluster.js'
import { nodeIdOf } from './nodeId.js'

export class Cluster extends Context.Service<Cluster, ClusterNode>()('hark/Cluster') {}

/** `ports`: the engine's bound listeners, which the node announces to the others. */
export const makeCluster = (settings: Settings, ports: Readonly<Record<string, number>>) =>
  Effect.gen(function* () {
    const natsUrl = settings.cluster.natsUrl
    if (natsUrl === null) return singleNode
    const { registry, leases } = yield* Extensions
    // The cluster extension (engine.config.ts: cluster/nats/) imports its implementation when asked to join.
    const [name] = registry.names('cluster')
    if (name === undefined) {
      return yield* Effect.fail(
        new ClusterJoinError({ natsUrl, message: 'cluster.natsUrl is set, but the engine config registers no cluster extension (engine.config.ts: natsCluster)' }),
      )
    }
    const adapter = registry.resolve<ClusterAdapter>('cluster', name)
    const log = yield* Log
    const options = {
      natsUrl,
      nodeId: nodeIdOf(settings.cluster.nodeId, settings.dataDir),
      leaseTtlMs: settings.cluster.leaseTtlMs,
      relayBatchMs: settings.cluster.relayBatchMs,
      relaySpacingMs: settings.cluster.relaySpacingUs / 1000,
      // A wildcard host names no address another node could dial: no link then.
      relayLinkHost: settings.cluster.relayLink && !['0.0.0.0', '::', '[::]'].includes(settings.host) ? settings.host : null,
      hub: yield* Terminals,
      storage: yield* Storage,
      security: yield* Security,
      clock: yield* Clock,
      log,
      endpoints: () => ({ ...ports }),
    }
    const node = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const node = await adapter.join(options)
          await node.start()
          return node
        },
        catch: (e) => new ClusterJoinError({ natsUrl, message: `cannot join the cluster at cluster.natsUrl ${natsUrl}: ${messageOf(e)}`, cause: e }),
      }),
      (node) => Effect.promise(() => node.stop()),
    )
    node.installMetrics(yield* Metrics)
    const agents = yield* Agents
    const defaults = yield* RoomDefaultAgents
    agents.setPlacement(node.placement)
    node.setAgentHooks({ ...agents.nodeHooks(), roomSettingsChanged: defaults.changed })
    // Before any plugin starts: the webhook delivery worker asks for endpoint leases from its start.
    leases.attach(node.leases)
    // Only a room's owner records it.
    const recordings = yield* RecordingsService
    recordings.setOwnership((ws, room) => node.owns(ws, room))
    return node
  })

export const clusterLayer = (settings: Settings, ports: Readonly<Record<string, number>>) => Layer.effect(Cluster, makeCluster(settings, ports))
