/**
 * Where the live feed's events come from, each from the owner of that state: what the workspace
 * actors and their rooms announce through the terminal hub (sessions opened and ended, room
 * occupancy, speaking), what the agent dispatcher announces (agents running, agents ended, their
 * conversations' turns, their tool calls), and
 * the change feed (clients created, changed or deleted, room settings, and sessions ended or
 * memberships removed, from this process or the CLI). Nothing is remembered here. Returns the function that stops listening.
 */
import type { AgentDispatcher, AgentLifecycleEvent, SessionInfo, StorageShape, TerminalHub } from '../../core/extension.js'
import type { LiveFeed } from './live.js'

const CLIENT_CHANGES = { 'client.created': 'created', 'client.updated': 'updated', 'client.deleted': 'deleted' } as const
const CLIENT_KINDS = Object.keys(CLIENT_CHANGES) as Array<keyof typeof CLIENT_CHANGES>

export const connectLiveSources = (feed: LiveFeed, terminals: TerminalHub, agents: AgentDispatcher, storage: StorageShape): (() => void) => {
  const presence = (online: boolean) => (e: { readonly session: SessionInfo }) =>
    feed.publish(e.session.workspaceId, { type: 'presence', clientId: e.session.clientId, online, transport: e.session.transport })
  const agent = (e: AgentLifecycleEvent) =>
    feed.publish(e.workspaceId, {
      type: 'agent',
      room: e.agent.room,
      agentId: e.agent.agentId,
      state: e.type === 'started' ? 'started' : 'stopped',
    })
  const stops = [
    terminals.on('session.opened', presence(true)),
    terminals.on('session.ended', presence(false)),
    terminals.on('room.occupancy', (e) => feed.publish(e.workspaceId, { type: 'room', room: e.room })),
    terminals.on('room.speaking', (e) =>
      feed.publish(e.workspaceId, { type: 'speaking', room: e.room, participantId: e.participantId, speaking: e.speaking })),
    agents.onAgent(agent),
    agents.onToolCall((e) =>
      feed.publish(e.workspaceId, {
        type: 'tool_call',
        room: e.agent.room,
        agentId: e.agent.agentId,
        source: e.source,
        ok: e.ok,
        latencyMs: e.latencyMs,
        detail: { name: e.tool, arguments: e.arguments, result: e.result, error: e.error },
      })),
    agents.transcripts?.onTurn((e) => feed.publish(e.workspaceId, { type: 'turn', room: e.room, agentId: e.agentId, seq: e.turn.seq })) ?? (() => {}),
    // Sessions ended or memberships went (here or in the CLI): every open stream looks again at once.
    storage.feed.on('user.accessChanged', () => feed.accessChanged()),
    storage.feed.on(CLIENT_KINDS, (change) =>
      feed.publish(change.workspaceId, { type: 'client', clientId: change.subject, change: CLIENT_CHANGES[change.kind] })),
    storage.feed.on('room.updated', (change) => feed.publish(change.workspaceId, { type: 'room', room: change.subject })),
  ]
  return () => stops.forEach((stop) => stop())
}
