/**
 * Agents across nodes (spec/cluster.md, Placement and Control across nodes): a dispatch runs on
 * the room's owner (`ownerFor`, then `hark.agent.<owner>`), and lists, reads, stops and live control by id ask
 * every other live node (`hark.agents.<node>`). Both sides are here: the asking one
 * (`AgentPlacement`, which the engine's dispatcher uses) and the answering one, which calls the
 * engine's agent side through `ClusterAgentHooks`.
 */
import type { AgentPlacement, DispatchRequest } from '../../core/agentRuntime/dispatcher.js'
import type { AgentOrigin, AgentView } from '../../core/agentRuntime/liveAgent.js'
import type { ClusterAgentHooks } from '../../core/cluster/cluster.js'
import type { AgentControlRequest } from '../../core/agentRuntime/agentControl.js'
import {
  AgentControlUnsupported,
  AgentElsewhere,
  AgentStartFailed,
  ClusterUnavailable,
  Conflict,
  Internal,
  NotFound,
  ServerShuttingDown,
  ValidationFailed,
  isHarkError,
  publicMessage,
  type HarkError,
} from '../../core/errors.js'
import type { Link } from './link.js'
import type { Peers } from './peers.js'
import { decode, encode, keyOf, S, type AgentAnswer, type AgentQuery, type AgentRequest, type WireError } from './protocol.js'
import type { RoomLeases } from './roomLeases.js'

/** How long a node waits for another node's answer about its agents (a list or a read). */
const AGENT_QUERY_TIMEOUT_MS = 2000
/** A stop waits for the agent to leave its room (agents.stopTimeoutMs at most, 60 s). */
const AGENT_STOP_TIMEOUT_MS = 65_000

/** Errors an owner answers a forwarded dispatch or control with, rebuilt on the asking node. */
const rebuild = ({ tag, message, field }: WireError): HarkError => {
  switch (tag) {
    case 'AgentControlUnsupported':
      return new AgentControlUnsupported({ message })
    case 'Conflict':
      return new Conflict({ message })
    case 'AgentStartFailed':
      return new AgentStartFailed({ message })
    case 'NotFound':
      return new NotFound({ message })
    case 'ValidationFailed':
      return new ValidationFailed({ field: field ?? 'body', message })
    case 'ServerShuttingDown':
      return new ClusterUnavailable({ message: 'the room owner is shutting down; retry' })
    default:
      return new Internal({ message })
  }
}

const wireError = (e: unknown): WireError => ({
  tag: isHarkError(e) ? e._tag : 'Internal',
  message: publicMessage(e),
  ...(e instanceof ValidationFailed ? { field: e.field } : {}),
})

const unanswered = (answers: ReadonlyArray<{ node: string; views: AgentView[] | null }>): ClusterUnavailable | null => {
  const silent = answers.filter((a) => a.views === null).map((a) => a.node)
  return silent.length === 0
    ? null
    : new ClusterUnavailable({ message: `node ${silent.join(', ')} did not answer about its agents; retry (a node that died is forgotten within the lease TTL)` })
}

export class AgentRpc implements AgentPlacement {
  /** The engine's agent side; null until set, and while it is not running (requests are refused). */
  hooks: ClusterAgentHooks | null = null

  constructor(
    private readonly link: Link,
    private readonly peers: Peers,
    private readonly leases: RoomLeases,
  ) {}

  // ---- Asking: AgentPlacement ----

  /** True while this node holds the room's lease: the room's policy agents run here. */
  owns(ws: string, room: string): boolean {
    return this.leases.holds(keyOf(ws, room))
  }

  /** Null to run here, else the owner node to forward to. */
  async ownerFor(ws: string, room: string): Promise<string | null> {
    const key = keyOf(ws, room)
    if (this.leases.holds(key)) return null
    const node = await this.leases.holder(key)
    if (node !== null) {
      if (node === this.link.nodeId) return null
      if (this.peers.all.has(node)) return node
      throw new ClusterUnavailable({ message: 'the room owner is gone; another node takes the room over within the lease TTL' })
    }
    if (await this.leases.acquire(key)) return null
    return this.ownerFor(ws, room)
  }

  async dispatchAt(node: string, ws: string, room: string, request: DispatchRequest, origin: AgentOrigin): Promise<AgentView> {
    let reply
    try {
      reply = await this.link.nc.request(S.agent(node), encode({ ws, room, request, origin } satisfies AgentRequest), { timeout: 20_000 })
    } catch (e) {
      throw new ClusterUnavailable({ message: `the room owner did not answer: ${(e as Error).message}` })
    }
    const answer = decode(reply.data) as { view?: AgentView; error?: { tag: string; message: string } }
    if (answer.error) throw rebuild(answer.error)
    return answer.view!
  }

  async remoteList(ws: string, room: string | null): Promise<AgentView[]> {
    const answers = await this.askPeers({ op: 'list', ws, room }, AGENT_QUERY_TIMEOUT_MS)
    const error = unanswered(answers)
    if (error) throw error
    return answers.flatMap((a) => a.views ?? [])
  }

  async remoteAgent(ws: string, agentId: string, op: 'get' | 'stop'): Promise<AgentView | null> {
    const answers = await this.askPeers({ op, ws, agentId }, op === 'stop' ? AGENT_STOP_TIMEOUT_MS : AGENT_QUERY_TIMEOUT_MS)
    const found = answers.find((a) => a.views !== null && a.views.length > 0)
    if (found) return found.views![0]!
    const error = unanswered(answers)
    if (error) throw error
    return null
  }

  async remoteControl(ws: string, agentId: string, request: AgentControlRequest): Promise<AgentView | null> {
    // Only the node that runs the agent acts on it; the others answer that they have none.
    const answers = await this.askPeers({ op: 'control', ws, agentId, request }, AGENT_QUERY_TIMEOUT_MS)
    const found = answers.find((a) => a.views !== null && a.views.length > 0)
    if (found) return found.views![0]!
    const silent = answers.filter((a) => a.views === null).map((a) => a.node)
    if (silent.length === 0) return null
    throw new AgentElsewhere({
      message: `agent ${agentId} is not on this node, and node ${silent.join(', ')}, where it may run, could not be reached within ${AGENT_QUERY_TIMEOUT_MS} ms; retry, or send the request to the node that owns the agent's room`,
    })
  }

  /** Ask every live peer; each answer's views, or ClusterUnavailable naming who did not answer. */
  private async askPeers(query: AgentQuery, timeout: number): Promise<Array<{ node: string; views: AgentView[] | null }>> {
    const nodes = [...this.peers.all.keys()]
    return Promise.all(
      nodes.map(async (node) => {
        try {
          const reply = await this.link.nc.request(S.agents(node), encode(query), { timeout })
          const answer = decode(reply.data) as AgentAnswer
          if ('error' in answer) throw rebuild(answer.error)
          return { node, views: answer.views }
        } catch (e) {
          if (isHarkError(e)) throw e
          return { node, views: null }
        }
      }),
    )
  }

  // ---- Answering ----

  /** `hark.agent.<this node>`: a dispatch forwarded here as the room's owner. */
  async agentIn(m: AgentRequest, reply: string): Promise<void> {
    if (!reply) return
    let answer: unknown
    try {
      if (!this.hooks) throw new ServerShuttingDown({ message: 'agents are not running here' })
      // Forwarded here as the owner; if the lease moved meanwhile, it runs here anyway (the asker chose).
      answer = { view: await this.hooks.dispatchHere(m.ws, m.room, m.request, m.origin) }
    } catch (e) {
      answer = { error: { tag: isHarkError(e) ? e._tag : 'Internal', message: publicMessage(e) } }
    }
    this.link.nc.publish(reply, encode(answer))
  }

  /** `hark.agents.<this node>`: this node's agents listed, read or stopped for another node. */
  async agentQueryIn(m: AgentQuery, reply: string): Promise<void> {
    if (!reply) return
    let answer: AgentAnswer
    try {
      const agents = this.hooks
      if (!agents) throw new ServerShuttingDown({ message: 'agents are not running here' })
      if (m.op === 'list') answer = { views: agents.list(m.ws, m.room) }
      else if (m.op === 'control') {
        const view = await agents.control(m.ws, m.agentId, m.request)
        answer = { views: view ? [view] : [] }
      } else {
        const view = m.op === 'get' ? agents.get(m.ws, m.agentId) : await agents.stop(m.ws, m.agentId)
        answer = { views: view ? [view] : [] }
      }
    } catch (e) {
      answer = { error: wireError(e) }
    }
    this.link.nc.publish(reply, encode(answer))
  }
}
