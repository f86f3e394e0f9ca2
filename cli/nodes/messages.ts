/**
 * What a node of `hark start --nodes N` and its supervisor say over the cluster IPC channel: the
 * node is ready; and a scrape of /metrics, which the node that answers it gathers from every node
 * through the supervisor (scrape → collect to each node → collected → scraped).
 */
import type { MetricObjectWithValues, MetricValue } from 'prom-client'

export type NodeMetrics = MetricObjectWithValues<MetricValue<string>>[]

/** Node → supervisor. */
export type FromNode =
  /** The node's engine is running: its id, PID and bound ports. */
  | { readonly kind: 'ready'; readonly nodeId: string; readonly pid: number; readonly ports: Readonly<Record<string, number>> }
  /** A /metrics request came to this node: gather every node's. */
  | { readonly kind: 'scrape'; readonly id: number }
  /** This node's metrics, for collect `id`. */
  | { readonly kind: 'collected'; readonly id: number; readonly metrics: NodeMetrics }

/** Supervisor → node. */
export type ToNode =
  | { readonly kind: 'collect'; readonly id: number }
  /** Every node's metrics that answered, for scrape `id`. */
  | { readonly kind: 'scraped'; readonly id: number; readonly nodes: ReadonlyArray<NodeMetrics> }

export type NodeReady = Extract<FromNode, { kind: 'ready' }>

const kindOf = (m: unknown): unknown => (m !== null && typeof m === 'object' ? (m as { kind?: unknown }).kind : undefined)

export const isFromNode = (m: unknown): m is FromNode => ['ready', 'scrape', 'collected'].includes(kindOf(m) as string)
export const isToNode = (m: unknown): m is ToNode => ['collect', 'scraped'].includes(kindOf(m) as string)
