/**
 * The open connections of a transport by workspace and client id: a CONNECT of a client that is
 * already connected takes over its session. Keyed by the identity's own strings in two levels,
 * so an open connection costs a map entry and no key string of its own (a `workspace \0 client`
 * key was ~100 B per idle device once hashed).
 */
export class LiveConnections<T> {
  private readonly byWorkspace = new Map<string, Map<string, T>>()

  get(workspaceId: string, clientId: string): T | undefined {
    return this.byWorkspace.get(workspaceId)?.get(clientId)
  }

  set(workspaceId: string, clientId: string, connection: T): void {
    let clients = this.byWorkspace.get(workspaceId)
    if (clients === undefined) this.byWorkspace.set(workspaceId, (clients = new Map()))
    clients.set(clientId, connection)
  }

  /** Forget the client's connection if it is `connection` (a newer one of the client stays). */
  release(workspaceId: string, clientId: string, connection: T): void {
    const clients = this.byWorkspace.get(workspaceId)
    if (clients === undefined || clients.get(clientId) !== connection) return
    clients.delete(clientId)
    if (clients.size === 0) this.byWorkspace.delete(workspaceId)
  }
}

/** A client's key in the stored sessions and the delayed wills: made when one is kept, taken or published, not kept per connection. */
export const sessionKey = (identity: { readonly workspaceId: string; readonly clientId: string }): string =>
  `${identity.workspaceId}\u0000${identity.clientId}`
