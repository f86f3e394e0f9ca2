/**
 * Who is online: the live terminal sessions of each workspace, as the transports report them.
 * The REST client detail and the `status` filter read it; it is memory only (a restart has no
 * one online) and is updated on control events, never per audio frame.
 */
import { Context } from 'effect'

export type TransportName = string

export interface PresenceEntry {
  readonly sessionId: string
  readonly workspaceId: string
  readonly clientId: string
  readonly transport: TransportName
  readonly connectedAt: number
  /** Room the session is in now; null while the client has no mapping. */
  room: string | null
}

export class Presence {
  private readonly byWorkspace = new Map<string, Map<string, PresenceEntry>>()

  /** Record a session; a client has at most one live session (the newer replaces the older). */
  set(entry: PresenceEntry): void {
    let clients = this.byWorkspace.get(entry.workspaceId)
    if (!clients) this.byWorkspace.set(entry.workspaceId, (clients = new Map()))
    clients.set(entry.clientId, entry)
  }

  /** Remove a session, unless a newer one of the same client has replaced it. */
  remove(workspaceId: string, clientId: string, sessionId: string): void {
    const clients = this.byWorkspace.get(workspaceId)
    if (clients?.get(clientId)?.sessionId !== sessionId) return
    clients.delete(clientId)
    if (clients.size === 0) this.byWorkspace.delete(workspaceId)
  }

  get(workspaceId: string, clientId: string): PresenceEntry | undefined {
    return this.byWorkspace.get(workspaceId)?.get(clientId)
  }

  isOnline(workspaceId: string, clientId: string): boolean {
    return this.byWorkspace.get(workspaceId)?.has(clientId) ?? false
  }

  /** Online clients of a workspace. */
  list(workspaceId: string): PresenceEntry[] {
    return [...(this.byWorkspace.get(workspaceId)?.values() ?? [])]
  }

  get size(): number {
    let n = 0
    for (const clients of this.byWorkspace.values()) n += clients.size
    return n
  }
}

/** The engine's presence table as an Effect service. */
export class PresenceService extends Context.Service<PresenceService, Presence>()('hark/Presence') {}
