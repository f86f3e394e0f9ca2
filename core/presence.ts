/**
 * Who is online: the live terminal sessions of each workspace. Presence holds nothing itself: the
 * workspace actors own the sessions and the room actors the membership, and these reads go to
 * their snapshots (found through the terminal hub, core/terminals.ts). The REST client detail and the
 * `status` filter read it; it is memory only (a restart has no one online).
 */
import * as Context from 'effect/Context'
import * as HashMap from 'effect/HashMap'
import type { RoomMember } from './actors/room.js'
import { liveSession, liveSessions, type WorkspaceContexts } from './actors/workspace.js'
import type { ParticipantInfo } from './events.js'
import type { Session } from './session.js'

export type TransportName = string

export interface PresenceEntry {
  readonly sessionId: string
  readonly workspaceId: string
  readonly clientId: string
  readonly transport: TransportName
  readonly connectedAt: number
  /** Room the session is in now; null while the client has no mapping. */
  readonly room: string | null
}

export interface Presence {
  /** The live session of a client (a client has at most one: the newer replaces the older). */
  get(workspaceId: string, clientId: string): PresenceEntry | undefined
  isOnline(workspaceId: string, clientId: string): boolean
  /** Online clients of a workspace. */
  list(workspaceId: string): PresenceEntry[]
  readonly size: number
}

/**
 * What the other nodes of a cluster announced (a cluster node, core/cluster/cluster.ts): their
 * rooms, members and sessions, merged into this node's listings and presence. Absent on a single node.
 */
export interface RemoteDirectory {
  roomNames(workspaceId: string): string[]
  participants(workspaceId: string, room: string): Array<ParticipantInfo & { readonly transport: string | null }>
  session(workspaceId: string, clientId: string): PresenceEntry | undefined
  sessions(workspaceId: string): PresenceEntry[]
  /**
   * A room of this node is opening for `joiningId` (its workspace actor asks, spec/cluster.md, The
   * member list): the members the other nodes announced in it, as relayed members (never
   * listening), which the workspace actor has join the new room before `joiningId`, so its
   * `session` lists the whole room. From then on the node keeps them in step with joins and
   * leaves (events to the workspace actor) and tells the room where its frames go (`REMOTES`).
   */
  openingRoom(workspaceId: string, room: string, joiningId: string): ReadonlyArray<RoomMember>
}

/** Presence where no engine runs (the CLI working on the data dir alone): nobody is online. */
export const nobodyOnline: Presence = {
  get: () => undefined,
  isOnline: () => false,
  list: () => [],
  size: 0,
}

const entryOf = (session: Session): PresenceEntry => ({ ...session.info, room: session.room })

/**
 * Presence read from the workspace actors' snapshots, and in a cluster from what the other nodes
 * announced (`remote`): nothing is stored here. `size` counts this node's sessions.
 */
export const presenceOf = (actors: WorkspaceContexts & { readonly remote?: RemoteDirectory | null }): Presence => ({
  get(workspaceId, clientId) {
    const context = actors.context(workspaceId)
    const session = context && liveSession(context, clientId)
    return session ? entryOf(session) : actors.remote?.session(workspaceId, clientId)
  },
  isOnline(workspaceId, clientId) {
    const context = actors.context(workspaceId)
    return (context !== undefined && HashMap.has(context.sessions, clientId)) || actors.remote?.session(workspaceId, clientId) !== undefined
  },
  list(workspaceId) {
    const context = actors.context(workspaceId)
    const local = context ? liveSessions(context).map(entryOf) : []
    const remote = actors.remote?.sessions(workspaceId) ?? []
    if (remote.length === 0) return local
    const here = new Set(local.map((e) => e.clientId))
    return [...local, ...remote.filter((e) => !here.has(e.clientId))]
  },
  get size() {
    let n = 0
    for (const context of actors.contexts()) n += HashMap.size(context.sessions)
    return n
  },
})

/** The engine's presence as an Effect service. */
export class PresenceService extends Context.Service<PresenceService, Presence>()('hark/Presence') {}
