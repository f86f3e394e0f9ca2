/** What a node of `hark start --nodes N` tells its supervisor over the cluster IPC channel. */

/** The node's engine is running: its id, PID and bound ports. */
export interface NodeReady {
  readonly kind: 'ready'
  readonly nodeId: string
  readonly pid: number
  readonly ports: Readonly<Record<string, number>>
}

export type NodeMessage = NodeReady

export const isNodeMessage = (m: unknown): m is NodeMessage =>
  m !== null && typeof m === 'object' && (m as { kind?: unknown }).kind === 'ready' && typeof (m as { nodeId?: unknown }).nodeId === 'string'
