/**
 * The auto agent (`xiaozhi.autoAgent`), a room policy (core/actors/roomAgents.ts): a xiaozhi
 * device expects someone to answer it, so a room with a device in it and no agent wants the
 * platform default (`agents.defaultProvider`) — unless the room names a default agent of its own,
 * which comes with its first terminal (the room default policy) as for any terminal. The room's
 * room-agents actor asks on every join and leave: one auto agent per occupancy cycle of a room;
 * it leaves `agents.defaultAgentStopDelaySeconds` (engine clock) after the last terminal of any
 * transport left, unless one comes back first. An agent already in the room is never doubled.
 */
import type { RoomAgentPolicy, StorageShape } from '../../core/extension.js'

export const AUTO_AGENT_POLICY = 'xiaozhi auto agent'

export interface AutoAgentDeps {
  readonly storage: StorageShape
  readonly stopDelayMs: number
  /** The devices' transport name: a room wants an auto agent only when one of its terminals is on it. */
  readonly transport: string
}

export const autoAgentPolicy = ({ storage, stopDelayMs, transport }: AutoAgentDeps): RoomAgentPolicy => ({
  name: AUTO_AGENT_POLICY,
  reason: 'auto',
  replacedReason: 'auto agent no longer wanted',
  // Only a room a device is in: the others need no room-agents actor for it.
  mayWant: (joining) => joining.kind === 'terminal' && joining.transport === transport,
  want: ({ workspaceId, room, roster, agents, launching }) => {
    if (agents.length > 0 || launching.length > 0) return null
    if (![...roster.transports.values()].includes(transport)) return null
    // The room's own default agent comes with its first terminal (the room default policy).
    if (storage.roomSettings.get(workspaceId, room)?.defaultAgent) return null
    return { key: 'platform default', request: {}, stopDelayMs }
  },
})
