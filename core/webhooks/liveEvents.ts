/**
 * The live event sources of webhooks, in one adapter: what the terminal hub and the agent
 * dispatcher tell their listeners becomes client.connected / disconnected / room_changed,
 * room.started / finished and agent.started / stopped / failed on the outbox. Nothing here waits
 * or writes: `publish` queues the event for this event-loop turn's batched write.
 * (When the workspace actor announces these changes itself, only this file changes.)
 */
import type { AgentDispatcher, AgentLifecycleEvent } from '../agents/dispatcher.js'
import type { ClockShape } from '../clock.js'
import type { TerminalHub } from '../terminals.js'
import type { WebhookOutbox } from './outbox.js'

export const attachLiveEvents = (
  deps: { readonly hub: TerminalHub; readonly agents: AgentDispatcher; readonly clock: ClockShape },
  outbox: WebhookOutbox,
): (() => void) => {
  const { hub, agents, clock } = deps
  /** Sessions announced as connected: sessionId -> when. */
  const connectedAt = new Map<string, number>()
  /** Occupied rooms: workspaceId NUL room -> when their first terminal came. */
  const startedAt = new Map<string, number>()

  const offs = [
    hub.onSessionRoom((e) => {
      const at = clock.now()
      if (e.first) {
        connectedAt.set(e.sessionId, at)
        outbox.publish({
          workspaceId: e.workspaceId, type: 'client.connected', at,
          data: { clientId: e.clientId, sessionId: e.sessionId, transport: e.transport, room: e.to },
        })
      } else {
        outbox.publish({
          workspaceId: e.workspaceId, type: 'client.room_changed', at,
          data: { clientId: e.clientId, sessionId: e.sessionId, from: e.from, to: e.to },
        })
      }
    }),
    hub.onSession((e) => {
      if (e.type !== 'ended') return
      const since = connectedAt.get(e.sessionId)
      if (since === undefined) return
      connectedAt.delete(e.sessionId)
      const at = clock.now()
      outbox.publish({
        workspaceId: e.workspaceId, type: 'client.disconnected', at,
        data: {
          clientId: e.clientId, sessionId: e.sessionId, transport: e.transport, room: e.room,
          reason: e.reason ?? 'client_closed', durationMs: Math.max(0, at - since),
        },
      })
    }),
    hub.onRoomOccupancy((e) => {
      const key = `${e.workspaceId}\u0000${e.room}`
      const at = clock.now()
      if (e.terminals > 0 && !startedAt.has(key)) {
        startedAt.set(key, at)
        outbox.publish({ workspaceId: e.workspaceId, type: 'room.started', at, data: { room: e.room, clientId: e.clientId } })
      } else if (e.terminals === 0) {
        const since = startedAt.get(key)
        if (since === undefined) return
        startedAt.delete(key)
        outbox.publish({
          workspaceId: e.workspaceId, type: 'room.finished', at,
          data: { room: e.room, clientId: e.clientId, durationMs: Math.max(0, at - since) },
        })
      }
    }),
    agents.onAgent((e: AgentLifecycleEvent) => {
      const a = e.agent
      const base = { agentId: a.agentId, room: a.room, identity: a.identity, provider: a.provider, presetId: a.presetId }
      const at = clock.now()
      if (e.type === 'started') outbox.publish({ workspaceId: e.workspaceId, type: 'agent.started', at, data: base })
      else outbox.publish({ workspaceId: e.workspaceId, type: `agent.${e.type}`, at, data: { ...base, reason: a.reason ?? e.type } })
    }),
  ]
  return () => {
    for (const off of offs) off()
  }
}
