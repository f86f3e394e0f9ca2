/**
 * The live event sources of webhooks. What the workspace actors announce (session.opened, moved
 * and ended, and their rooms' room.occupancy) becomes client.connected / room_changed /
 * disconnected and room.started / finished; what the agent dispatcher tells its listeners becomes
 * agent.started / stopped / failed. Nothing here keeps state (each announcement carries what its
 * event needs: when the session opened, why it ended, when the room got its first terminal), and
 * nothing waits or writes: `publish` queues the event for this event-loop turn's batched write.
 */
import type { WorkspaceEvents } from '../actors/workspace.js'
import type { AgentDispatcher } from '../agentRuntime/dispatcher.js'
import type { AgentView } from '../agentRuntime/liveAgent.js'
import type { ClockShape } from '../clock.js'
import { wireCodesOf } from '../errors.js'
import type { TranscriptWriter } from '../transcripts/writer.js'
import type { WebhookEventInput } from './events.js'

export type PublishWebhookEvent = (event: WebhookEventInput) => void

/** `reason` of client.disconnected when the terminal went away by itself. */
export const CLIENT_CLOSED = 'client_closed'

/** Sessions and rooms, from every workspace actor. Returns the function that stops listening. */
export const attachSessionEvents = (hub: WorkspaceEvents, clock: ClockShape, publish: PublishWebhookEvent): (() => void) => {
  const offs = [
    hub.on('session.opened', ({ session: s, room }) =>
      publish({
        workspaceId: s.workspaceId, type: 'client.connected', at: s.connectedAt,
        data: { clientId: s.clientId, sessionId: s.sessionId, transport: s.transport, room },
      }),
    ),
    hub.on('session.moved', ({ session: s, from, to }) =>
      publish({
        workspaceId: s.workspaceId, type: 'client.room_changed', at: clock.now(),
        data: { clientId: s.clientId, sessionId: s.sessionId, from, to },
      }),
    ),
    hub.on('session.ended', ({ session: s, room, reason }) => {
      const at = clock.now()
      publish({
        workspaceId: s.workspaceId, type: 'client.disconnected', at,
        data: {
          clientId: s.clientId, sessionId: s.sessionId, transport: s.transport, room,
          reason: reason === null ? CLIENT_CLOSED : wireCodesOf(reason).code,
          durationMs: Math.max(0, at - s.connectedAt),
        },
      })
    }),
    hub.on('room.occupancy', (e) => {
      if (e.member.kind !== 'terminal') return
      if (e.terminalsBefore === 0 && e.terminals > 0) {
        publish({ workspaceId: e.workspaceId, type: 'room.started', at: e.occupiedSince ?? clock.now(), data: { room: e.room, clientId: e.member.id } })
      } else if (e.terminalsBefore > 0 && e.terminals === 0) {
        const at = clock.now()
        publish({
          workspaceId: e.workspaceId, type: 'room.finished', at,
          data: { room: e.room, clientId: e.member.id, durationMs: Math.max(0, at - (e.occupiedSince ?? at)) },
        })
      }
    }),
  ]
  return () => {
    for (const off of offs) off()
  }
}

/** Agents of every workspace (their lifecycle and their tool calls). Returns the function that stops listening. */
export const attachAgentEvents = (agents: Pick<AgentDispatcher, 'onAgent' | 'onToolCall'>, clock: ClockShape, publish: PublishWebhookEvent): (() => void) => {
  const baseOf = (a: AgentView) => ({ agentId: a.agentId, room: a.room, identity: a.identity, provider: a.provider, presetId: a.presetId })
  const offLifecycle = agents.onAgent((e) => {
    const a = e.agent
    const base = baseOf(a)
    const at = clock.now()
    if (e.type === 'started') publish({ workspaceId: e.workspaceId, type: 'agent.started', at, data: base })
    else publish({ workspaceId: e.workspaceId, type: `agent.${e.type}`, at, data: { ...base, reason: a.reason ?? e.type } })
  })
  const offTools = agents.onToolCall((e) =>
    publish({
      workspaceId: e.workspaceId,
      type: 'agent.tool_called',
      at: clock.now(),
      data: { ...baseOf(e.agent), tool: e.tool, source: e.source, arguments: e.arguments, ok: e.ok, result: e.result, error: e.error, latencyMs: e.latencyMs },
    }),
  )
  return () => {
    offLifecycle()
    offTools()
  }
}

/** agent.turn: each finished turn of every agent's conversation. Returns the function that stops listening. */
export const attachTurnEvents = (transcripts: Pick<TranscriptWriter, 'onTurn'>, publish: PublishWebhookEvent): (() => void) =>
  transcripts.onTurn(({ workspaceId, agentId, room, identity, turn: t }) =>
    publish({
      workspaceId, type: 'agent.turn', at: t.endedAt,
      data: {
        agentId, room, identity, seq: t.seq, kind: t.kind, role: t.role, speaker: t.speaker, clientId: t.clientId, text: t.text,
        startedAt: new Date(t.startedAt).toISOString(), endedAt: new Date(t.endedAt).toISOString(),
        interrupted: t.interrupted, interruptedBy: t.interruptedBy, tool: t.tool,
      },
    }),
  )
