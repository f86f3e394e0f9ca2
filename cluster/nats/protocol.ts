/**
 * What NATS carries between Hark nodes (spec/cluster.md, Subjects): the subjects, the JSON
 * control messages, the lease buckets and their keys. Audio has its own binary layout (wire.ts).
 */
import type { AgentControlRequest } from '../../core/agentRuntime/agentControl.js'
import type { DispatchRequest } from '../../core/agentRuntime/dispatcher.js'
import type { AgentOrigin, AgentView } from '../../core/agentRuntime/liveAgent.js'
import type { RelayedInfo } from '../../core/cluster/relayed.js'

export const S = {
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

/** Room owners: key base64url(`<workspaceId>\n<room>`), value `{node}`. */
export const LEASE_BUCKET = 'hark-room-owners'
/** Leases on webhook endpoints: the node holding one delivers its events (spec/cluster.md). */
export const WEBHOOK_LEASE_BUCKET = 'hark-webhook-owners'

/** `hark.hb`: alive, its listeners, its storage origin, the address of its relay link listener. */
export interface Heartbeat {
  readonly node: string
  readonly incarnation: string
  readonly origin?: string
  readonly endpoints?: Record<string, number>
  /** `host:port` where it accepts relay links (relayLink.ts); absent: audio to it goes over NATS only. */
  readonly relay?: string
  /**
   * `<scope>/<name>`: the same listener on an abstract Unix socket (`\0hark-relay-<name>`), for
   * nodes whose scope (boot id and network namespace, relayLink.ts) is `<scope>`; absent: TCP only.
   */
  readonly relayLocal?: string
}

/** `hark.dir.<node>`, a room unit: a node's own members in one room (none: it left the room). */
export interface Unit {
  readonly node: string
  readonly incarnation: string
  readonly ws: string
  readonly room: string
  readonly tag: number
  readonly members: ReadonlyArray<RelayedInfo>
  /** The node holds the room's lease: the others do not try to take it while it is alive. */
  readonly owner?: boolean
}

/** `hark.session`: a session admitted; an older one of the client elsewhere closes. */
export interface SessionMessage {
  readonly node: string
  readonly workspaceId: string
  readonly clientId: string
  readonly sessionId: string
  readonly connectedAt: number
}

/** `hark.agent.<node>`: a dispatch forwarded to the room's owner. */
export interface AgentRequest {
  readonly ws: string
  readonly room: string
  readonly request: DispatchRequest
  readonly origin: AgentOrigin
}

/** `hark.agents.<node>`: a node's agents listed, read or stopped. */
export type AgentQuery =
  | { readonly op: 'list'; readonly ws: string; readonly room: string | null }
  | { readonly op: 'get' | 'stop'; readonly ws: string; readonly agentId: string }
  | { readonly op: 'control'; readonly ws: string; readonly agentId: string; readonly request: AgentControlRequest }
/** An error answered across: its tag, public message and, for a validation failure, the field. */
export interface WireError {
  readonly tag: string
  readonly message: string
  readonly field?: string
}
export type AgentAnswer = { readonly views: AgentView[] } | { readonly error: WireError }

/** A room of a workspace, as the node's maps key it. */
export const keyOf = (ws: string, room: string) => `${ws}\n${room}`
export const splitKey = (key: string): [string, string] => {
  const i = key.indexOf('\n')
  return [key.slice(0, i), key.slice(i + 1)]
}
export const leaseKeyOf = (key: string) => Buffer.from(key).toString('base64url')

export const decode = (data: Uint8Array): unknown => JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'))
export const encode = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value))
