/**
 * The NATS cluster as an extension (engine.config.ts): light — the engine asks it to join only
 * when `cluster.natsUrl` is set, and only then is the NATS client imported (node.ts), so a single
 * node and the CLI never load it.
 */
import type { ClusterAdapter } from '../../core/cluster/cluster.js'
import { defineCluster } from '../../core/extension.js'

export const natsCluster = defineCluster('nats', (): ClusterAdapter => ({
  join: async (options) => new (await import('./node.js')).NatsClusterNode(options),
}))
