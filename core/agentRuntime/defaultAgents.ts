/**
 * Room default agents, as a policy of the room-agents actors (core/actors/roomAgents.ts): a room
 * whose settings name a default agent wants it while it has terminals, and its agent leaves
 * `stopDelaySeconds` (else `agents.defaultAgentStopDelaySeconds`) after the last terminal left.
 * The room-agents actor starts it with the room's first terminal, once per occupancy cycle, and
 * swaps it when the setting changes: a committed `room.updated` (this node's, another process's, or
 * another node's through the cluster) tells the room's actor that the policy's input changed.
 */
import type { RoomAgentPolicy } from '../actors/roomAgents.js'
import type { Settings } from '../config.js'
import type { ChangeFeed } from '../storage/changeFeed.js'
import type { StorageShape } from '../storage/storage.js'
import type { TerminalHub } from '../terminals.js'

export const ROOM_DEFAULT_POLICY = 'room default agent'

export const roomDefaultPolicy = (storage: StorageShape, settings: Settings): RoomAgentPolicy => ({
  name: ROOM_DEFAULT_POLICY,
  reason: 'default',
  replacedReason: 'room default agent changed',
  want: ({ workspaceId, room }) => {
    const setting = storage.roomSettings.get(workspaceId, room)?.defaultAgent ?? null
    if (setting === null) return null
    return {
      key: JSON.stringify(setting),
      request: { presetId: setting.presetId, overrides: setting.overrides },
      stopDelayMs: (setting.stopDelaySeconds ?? settings.agents.defaultAgentStopDelaySeconds) * 1000,
    }
  },
})

/** A room's settings changed: its room-agents actor asks the policy again. Returns the unsubscribe function. */
export const watchRoomDefaults = (feed: ChangeFeed, hub: TerminalHub): (() => void) =>
  feed.on('room.updated', (change) => roomDefaultChanged(hub, change.workspaceId, change.subject))

export const roomDefaultChanged = (hub: TerminalHub, workspaceId: string, room: string): void =>
  hub.toRoomAgents(workspaceId, room, { type: 'POLICY_CHANGED', policy: ROOM_DEFAULT_POLICY })
