/**
 * /metrics in a node of `hark start --nodes N`: whichever node a scrape reaches answers for the
 * whole machine — every node's series, each labelled `node="<its id>"` (sum without the label
 * for the machine's totals). The node asks the supervisor, which collects from every running node.
 */
import { AggregatorRegistry, type Registry } from 'prom-client'
import { isToNode, type FromNode, type NodeMetrics } from './messages.js'

/** How long a scrape waits for the supervisor; past it the node answers with its own series only. */
const SCRAPE_WAIT_MS = 3000

export interface NodeMetricsLink {
  /** The engine's registry, once it runs: labelled with the node id, and answering collects. */
  attach(registry: Registry): void
  /** What /metrics answers (EngineOptions.scrape). */
  scrape(): Promise<string>
}

export const nodeMetricsLink = (nodeId: string): NodeMetricsLink => {
  let own: Registry | null = null
  let next = 0
  const waiting = new Map<number, (nodes: ReadonlyArray<NodeMetrics>) => void>()
  const send = (m: FromNode) => process.send?.(m)
  process.on('message', (m: unknown) => {
    if (!isToNode(m)) return
    if (m.kind === 'scraped') waiting.get(m.id)?.(m.nodes)
    else if (own) void own.getMetricsAsJSON().then((metrics) => send({ kind: 'collected', id: m.id, metrics }))
  })
  return {
    attach(registry) {
      registry.setDefaultLabels({ node: nodeId })
      own = registry
    },
    async scrape() {
      const id = ++next
      const nodes = await new Promise<ReadonlyArray<NodeMetrics> | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), SCRAPE_WAIT_MS)
        waiting.set(id, (nodes) => {
          clearTimeout(timer)
          resolve(nodes)
        })
        send({ kind: 'scrape', id })
      }).finally(() => waiting.delete(id))
      if (nodes === null || nodes.length === 0) return own ? own.metrics() : ''
      // Each node's series carry its own label, so nothing is summed across nodes here; and none
      // is left out (prom-client omits a few, such as the start time, from a cluster's sum).
      return AggregatorRegistry.aggregate(nodes.map((metrics) => metrics.map((m) => ({ ...m, aggregator: 'sum' as const })))).metrics()
    },
  }
}
