/** The REST representation of an agent: core's record with ISO-8601 times. */
import type { AgentView } from '../../core/agentRuntime/liveAgent.js'

export const agentView = (a: AgentView) => ({
  agentId: a.agentId,
  room: a.room,
  identity: a.identity,
  name: a.name,
  provider: a.provider,
  presetId: a.presetId,
  origin: a.origin,
  state: a.state,
  reason: a.reason,
  startedAt: new Date(a.startedAt).toISOString(),
  endedAt: a.endedAt === null ? null : new Date(a.endedAt).toISOString(),
})
