/**
 * Who is online: the live terminal sessions of each workspace. Presence holds nothing itself: the
 * workspace actors own the sessions and the room actors the membership, and the terminal hub
 * (core/terminals.ts) answers these reads from their snapshots. The REST client detail and the
 * `status` filter read it; it is memory only (a restart has no one online).
 */
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

/** Presence where no engine runs (the CLI working on the data dir alone): nobody is online. */
export const nobodyOnline: Presence = {
  get: () => undefined,
  isOnline: () => false,
  list: () => [],
  size: 0,
}
