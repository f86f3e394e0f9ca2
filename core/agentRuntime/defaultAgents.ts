/**
 * Room default agents, as a policy of the room-agents actors (core/actors/roomAgents.ts): a room
 * whose settings name a default agent wants it while it has terminals, and its agent leaves
 * `stopDelaySeconds` (else `agents.defaultAgentStopDelaySeconds`) after the last terminal left.
 * The room-agents actor starts it with the room's first terminal, once per occupancy cycle, and
 * swaps it when the setting changes: a committed `room.updated` (this node's, another process's, or
 * another node's through the cluster) tells the room's actor that the policy's input changed.
 * In an engine, its layer adds the policy to the dispatcher and watches the rooms' settings.
 */
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import type { RoomAgentPolicy } from '../actors/roomAgents.js'
import type { Settings } from '../config.js'
import type { ChangeFeed } from '../storage/changeFeed.js'
import { Storage, type StorageShape } from '../storage/storage.js'
import { Terminals, type TerminalHub } from '../terminals.js'
import { Agents } from './dispatcherLayer.js'

export const ROOM_DEFAULT_POLICY = 'room default agent'

/**
 * Which rooms of a workspace name a default agent, read once per workspace (on its first join that
 * asks) and forgotten when one of its rooms' settings changes: so a join asks no storage whether
 * its room has a default agent.
 */
export class RoomsWithDefaults {
  private readonly byWorkspace = new Map<string, ReadonlySet<string>>()
  constructor(private readonly storage: StorageShape) {}

  has(workspaceId: string, room: string): boolean {
    let rooms = this.byWorkspace.get(workspaceId)
    if (rooms === undefined) {
      rooms = new Set(this.storage.roomSettings.roomsWithDefaultAgent(workspaceId))
      this.byWorkspace.set(workspaceId, rooms)
    }
    return rooms.has(room)
  }

  forget(workspaceId: string): void {
    this.byWorkspace.delete(workspaceId)
  }
}

export const roomDefaultPolicy = (storage: StorageShape, settings: Settings, rooms = new RoomsWithDefaults(storage)): RoomAgentPolicy => ({
  name: ROOM_DEFAULT_POLICY,
  reason: 'default',
  replacedReason: 'room default agent changed',
  mayWant: ({ workspaceId, room, kind }) => {
    if (kind !== 'terminal') return false // its agent comes with a terminal
    try {
      return rooms.has(workspaceId, room)
    } catch {
      return true // storage cannot tell now: the room gets its actor, and want() asks again
    }
  },
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
export const watchRoomDefaults = (feed: ChangeFeed, hub: TerminalHub, rooms: RoomsWithDefaults): (() => void) =>
  feed.on('room.updated', (change) => roomDefaultChanged(hub, rooms, change.workspaceId, change.subject))

/** Its room-agents actor hears it — created now if the room is open here and had none (no policy wanted one before). */
export const roomDefaultChanged = (hub: TerminalHub, rooms: RoomsWithDefaults, workspaceId: string, room: string): void => {
  rooms.forget(workspaceId)
  hub.toRoomAgents(workspaceId, room, { type: 'POLICY_CHANGED', policy: ROOM_DEFAULT_POLICY }, 'whenRoomOpen')
}

export interface RoomDefaultAgentsShape {
  /** A room's settings changed (another node's `room.updated`, through the cluster): its actor asks the policy again. */
  changed(workspaceId: string, room: string): void
}

export class RoomDefaultAgents extends Context.Service<RoomDefaultAgents, RoomDefaultAgentsShape>()('hark/RoomDefaultAgents') {}

/** The room default policy, first of the dispatcher's policies, and the watch of the rooms' settings; both go when released. */
export const makeRoomDefaultAgents = (settings: Settings) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const hub = yield* Terminals
    const agents = yield* Agents
    const rooms = new RoomsWithDefaults(storage)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const removePolicy = agents.addPolicy(roomDefaultPolicy(storage, settings, rooms))
        const unwatch = watchRoomDefaults(storage.feed, hub, rooms)
        return () => (unwatch(), removePolicy())
      }),
      (stop) => Effect.sync(stop),
    )
    return { changed: (workspaceId, room) => roomDefaultChanged(hub, rooms, workspaceId, room) } satisfies RoomDefaultAgentsShape
  })

export const roomDefaultAgentsLayer = (settings: Settings) => Layer.effect(RoomDefaultAgents, makeRoomDefaultAgents(settings))
