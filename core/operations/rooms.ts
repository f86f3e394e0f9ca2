/**
 * Rooms of a workspace as every front door shows them: the occupied ones (a room exists while
 * someone is in it) with their participants, live agents and settings; one room (a room nobody is
 * in answers with no participants); and its settings — so far the room default agent — stored by
 * room name, validated like a dispatch and applied at once to an occupied room through the
 * `room.updated` change (spec/agents.md).
 */
import type { ChangeAuthor } from '../storage/changes.js'
import type { DefaultAgentSetting } from '../storage/roomSettings.js'
import type { RoomView } from '../actors/workspace.js'
import type { OperationServices } from './services.js'
import { agentView, isoTime, type RoomViewJson } from './views.js'

type Deps = Pick<OperationServices, 'terminals' | 'presence' | 'storage' | 'agents'>

const toJson = ({ agents, storage, presence }: Deps, workspaceId: string, r: RoomView): RoomViewJson => ({
  room: r.room,
  agents: agents.list(workspaceId, { room: r.room, live: true }).map(agentView),
  defaultAgent: storage.roomSettings.get(workspaceId, r.room)?.defaultAgent ?? null,
  participants: r.participants.map((p) => {
    const live = p.kind === 'terminal' ? presence.get(workspaceId, p.id) : undefined
    return {
      id: p.id,
      kind: p.kind,
      name: p.name,
      sourceId: p.sourceId,
      transport: p.transport,
      connectedAt: live ? isoTime(live.connectedAt) : null,
      speaking: p.speaking,
    }
  }),
})

/** A room now: who is in it (nobody, for a room no one is in), its live agents and settings. */
export const getRoom = (deps: Deps, workspaceId: string, room: string): RoomViewJson =>
  toJson(deps, workspaceId, deps.terminals.roomView(workspaceId, room) ?? { room, participants: [] })

/** Occupied rooms in name order after `after` (null: from the start); `last` names the page's last room when more follow. */
export const listRooms = (deps: Deps, workspaceId: string, after: string | null, limit: number): { rooms: RoomViewJson[]; last: string | null } => {
  const names = deps.terminals.roomNames(workspaceId).filter((name) => after === null || name > after)
  const pageNames = names.slice(0, limit)
  const rooms = pageNames.flatMap((name) => {
    const r = deps.terminals.roomView(workspaceId, name)
    return r ? [toJson(deps, workspaceId, r)] : []
  })
  return { rooms, last: names.length > limit ? pageNames[pageNames.length - 1]! : null }
}

export interface DefaultAgentInput {
  readonly presetId?: string | null
  readonly overrides?: Record<string, unknown> | null
  readonly stopDelaySeconds?: number | null
}

/** Set (or with null, clear) the room default agent; checked like a dispatch, applied at once. */
export const putRoomSettings = (
  deps: Deps & Pick<OperationServices, 'clock'>,
  workspaceId: string,
  room: string,
  defaultAgent: DefaultAgentInput | null,
  by: ChangeAuthor | null = null,
): RoomViewJson => {
  const { storage, clock, agents } = deps
  let setting: DefaultAgentSetting | null = null
  if (defaultAgent !== null) {
    setting = {
      presetId: defaultAgent.presetId ?? null,
      overrides: defaultAgent.overrides ?? null,
      stopDelaySeconds: defaultAgent.stopDelaySeconds ?? null,
    }
    agents.resolve(workspaceId, setting)
  }
  const now = clock.now()
  storage.transaction(() => {
    storage.roomSettings.put({ workspaceId, room, defaultAgent: setting }, now)
    storage.feed.record({ kind: 'room.updated', workspaceId, subject: room, at: now, by, defaultAgent: setting })
  })
  return getRoom(deps, workspaceId, room)
}
