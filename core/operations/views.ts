/**
 * The JSON representations shared by the REST API and the console: a client (its stored record,
 * times as ISO-8601 UTC strings, plus its online state from presence), an agent, a room. The
 * REST plugin's schemas (`Client`, `Agent`, `Room`) describe the same shapes.
 */
import type { AgentView } from '../agentRuntime/liveAgent.js'
import type { Presence } from '../presence.js'
import type { ClientRecord } from '../storage/clients.js'
import type { DefaultAgentSetting } from '../storage/roomSettings.js'

export interface ClientView {
  readonly clientId: string
  readonly name: string | null
  readonly kind: string | null
  readonly room: string | null
  readonly ephemeral: boolean
  readonly expiresAt: string | null
  readonly createdAt: string
  readonly updatedAt: string
  readonly status: 'online' | 'offline'
  readonly online: boolean
  readonly connection: { readonly transport: string; readonly connectedAt: string; readonly room: string | null } | null
}

export const isoTime = (ms: number): string => new Date(ms).toISOString()
export const isoTimeOrNull = (ms: number | null): string | null => (ms === null ? null : isoTime(ms))

export const clientView = (c: ClientRecord, presence: Presence): ClientView => {
  const live = presence.get(c.workspaceId, c.clientId)
  return {
    clientId: c.clientId,
    name: c.name,
    kind: c.kind,
    room: c.room,
    ephemeral: c.ephemeral,
    expiresAt: isoTimeOrNull(c.expiresAt),
    createdAt: isoTime(c.createdAt),
    updatedAt: isoTime(c.updatedAt),
    status: live ? 'online' : 'offline',
    online: live !== undefined,
    connection: live ? { transport: live.transport, connectedAt: isoTime(live.connectedAt), room: live.room } : null,
  }
}

/** An ephemeral client past its expiry is gone for the API even before the sweep deletes its row. */
export const isLive = (c: ClientRecord, now: number): boolean => c.expiresAt === null || c.expiresAt > now

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
  startedAt: isoTime(a.startedAt),
  endedAt: isoTimeOrNull(a.endedAt),
})

export interface ParticipantView {
  readonly id: string
  readonly kind: 'terminal' | 'agent'
  readonly name: string | null
  readonly sourceId: number
  readonly transport: string | null
  readonly connectedAt: string | null
  /** Its talk spurt is on now (the room actor's record; `speaking` live events follow it). */
  readonly speaking: boolean
}

export interface RoomViewJson {
  readonly room: string
  readonly participants: ReadonlyArray<ParticipantView>
  readonly agents: ReadonlyArray<ReturnType<typeof agentView>>
  readonly defaultAgent: DefaultAgentSetting | null
}
