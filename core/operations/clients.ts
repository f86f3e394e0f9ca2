/**
 * Clients of a workspace, as every front door manages them (REST, console, CLI): list with filters
 * and a clientId cursor, create, read, update (a room change reaches live sessions through the
 * change feed: the terminal hub applies `client.updated`, which carries the client before and
 * after), delete (the hub closes live sessions on `client.deleted`; the client's tokens stop
 * working because admission loads the client). `by`: who asks, recorded with the change.
 */
import { ClientExists, ClientNotFound, StorageFailure } from '../errors.js'
import type { ChangeAuthor } from '../storage/changes.js'
import type { ClientPatch, ClientRecord } from '../storage/clients.js'
import { isUniqueViolation } from '../storage/db.js'
import type { OperationServices } from './services.js'
import { isLive } from './views.js'

type Deps = Pick<OperationServices, 'storage' | 'clock'>

export interface ClientListQuery {
  readonly room?: string
  readonly kind?: string
  readonly status?: 'online' | 'offline'
  readonly limit: number
}

export interface NewClient {
  readonly clientId: string
  readonly name?: string | null
  readonly kind?: string | null
  readonly room?: string | null
}

/** The 404 of a client id; the same words whether the id exists in another workspace or nowhere. */
const missing = (id: string) => new ClientNotFound({ message: `no client ${id} in this workspace` })

/** Load a live client of the workspace or fail with that 404. */
export const requireClient = ({ storage, clock }: Deps, workspaceId: string, id: string): ClientRecord => {
  const client = storage.clients.get(workspaceId, id)
  if (!client || !isLive(client, clock.now())) throw missing(id)
  return client
}

/** One page of clients in clientId order after `after`, and whether more follow. */
export const listClients = (
  { storage, clock, presence }: Pick<OperationServices, 'storage' | 'clock' | 'presence'>,
  workspaceId: string,
  q: ClientListQuery,
  after: string,
): { clients: ClientRecord[]; more: boolean } => {
  const now = clock.now()
  const wanted = q.limit + 1
  const out: ClientRecord[] = []
  const done = () => ({ clients: out.slice(0, q.limit), more: out.length > q.limit })
  if (q.status === 'online') {
    // Online clients are few next to all clients: walk presence, not the table.
    const ids = presence.list(workspaceId).map((e) => e.clientId).filter((id) => id > after).sort()
    for (const id of ids) {
      const c = storage.clients.get(workspaceId, id)
      if (!c || !isLive(c, now) || (q.room && c.room !== q.room) || (q.kind && c.kind !== q.kind)) continue
      out.push(c)
      if (out.length === wanted) break
    }
    return done()
  }
  let cursor = after
  for (;;) {
    const batch = storage.clients.list(workspaceId, {
      room: q.room ?? null, kind: q.kind ?? null, after: cursor, limit: wanted, activeAt: now,
    })
    for (const c of batch) {
      if (q.status === 'offline' && presence.isOnline(workspaceId, c.clientId)) continue
      out.push(c)
      if (out.length === wanted) return done()
    }
    if (batch.length < wanted) return done()
    cursor = batch[batch.length - 1]!.clientId
  }
}

export const createClient = ({ storage, clock }: Deps, workspaceId: string, input: NewClient, by: ChangeAuthor | null = null): ClientRecord => {
  const now = clock.now()
  const record: ClientRecord = {
    workspaceId, clientId: input.clientId, name: input.name ?? null, kind: input.kind ?? null, room: input.room ?? null,
    ephemeral: false, expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
  }
  try {
    storage.transaction(() => {
      storage.clients.insert(record)
      storage.feed.record({ kind: 'client.created', workspaceId, subject: record.clientId, at: now, by, client: record })
    })
  } catch (e) {
    if (e instanceof StorageFailure && isUniqueViolation(e.cause)) {
      throw new ClientExists({ message: `client ${record.clientId} already exists in this workspace` })
    }
    throw e
  }
  return record
}

/** Set name, kind and/or room (null clears); a room change moves a connected terminal at once. */
export const updateClient = (
  { storage, clock }: Deps, workspaceId: string, id: string, patch: ClientPatch, by: ChangeAuthor | null = null,
): ClientRecord => {
  const now = clock.now()
  return storage.transaction(() => {
    // The one read of the client on a room change's way to its terminal: the change carries both records.
    const before = storage.clients.get(workspaceId, id)
    if (!before || !isLive(before, now)) throw missing(id)
    const after = storage.clients.update(workspaceId, id, { name: patch.name, kind: patch.kind, room: patch.room }, now)
    if (!after) throw missing(id)
    storage.feed.record({ kind: 'client.updated', workspaceId, subject: id, at: now, by, before, after })
    return after
  })
}

export const deleteClient = (
  { storage, clock }: Deps, workspaceId: string, id: string, by: ChangeAuthor | null = null,
): { clientId: string; deleted: true } => {
  const now = clock.now()
  storage.transaction(() => {
    const current = storage.clients.get(workspaceId, id)
    if (!current || !isLive(current, now) || !storage.clients.delete(workspaceId, id)) throw missing(id)
    storage.feed.record({ kind: 'client.deleted', workspaceId, subject: id, at: now, by })
  })
  return { clientId: id, deleted: true }
}
