/** Clients (devices, apps, pages) and their client-to-room mapping. */
import { guard, type Db } from './db.js'

export interface ClientRecord {
  readonly workspaceId: string
  readonly clientId: string
  readonly name: string | null
  readonly kind: string | null
  readonly room: string | null
  readonly ephemeral: boolean
  /** Ephemeral clients are removed after this instant (ms). */
  readonly expiresAt: number | null
  /** Tokens whose jti was minted before this instant (ms) are invalid: creation and revoke-all set it. */
  readonly tokensNotBefore: number
  readonly createdAt: number
  readonly updatedAt: number
}

export interface ClientPatch {
  readonly name?: string | null
  readonly kind?: string | null
  readonly room?: string | null
}

interface Row {
  workspace_id: string; client_id: string; name: string | null; kind: string | null; room: string | null
  ephemeral: number; expires_at: number | null; tokens_not_before: number; created_at: number; updated_at: number
}
/**
 * `ids`: strings equal to the row's workspace_id and client_id to keep instead of the row's own
 * (a lookup's arguments: the row matched them exactly), so that the records of one workspace
 * share its id and a terminal's identity shares its record's client id (~80 B per cached client).
 */
const toRecord = (r: Row, ids?: { readonly workspaceId: string; readonly clientId: string }): ClientRecord => ({
  workspaceId: ids?.workspaceId ?? r.workspace_id, clientId: ids?.clientId ?? r.client_id, name: r.name, kind: r.kind, room: r.room,
  ephemeral: r.ephemeral === 1, expiresAt: r.expires_at, tokensNotBefore: r.tokens_not_before,
  createdAt: r.created_at, updatedAt: r.updated_at,
})

/** Most client records kept in memory; beyond it the oldest entry goes. */
const CACHE_LIMIT = 50_000

export const clientsRepo = (db: Db) => {
  // libSQL's binding costs ~20 µs per statement, and every token issue and terminal connect reads
  // a client. Records are cached; every write here drops the entry, and changes committed by other
  // processes drop it through `invalidate` (storage calls it for client.* change records).
  // By workspace, then client id: the keys are the records' own strings (a key made of both was
  // one more string per cached client). The first entry of the first workspace is the oldest there.
  const cache = new Map<string, Map<string, ClientRecord>>()
  let cached = 0
  const forget = (workspaceId: string, clientId: string) => {
    const clients = cache.get(workspaceId)
    if (clients === undefined || !clients.delete(clientId)) return
    cached--
    if (clients.size === 0) cache.delete(workspaceId)
  }
  const remember = (record: ClientRecord) => {
    if (cached >= CACHE_LIMIT) {
      const [workspaceId, clients] = cache.entries().next().value!
      forget(workspaceId, clients.keys().next().value!)
    }
    let clients = cache.get(record.workspaceId)
    if (clients === undefined) cache.set(record.workspaceId, (clients = new Map()))
    clients.set(record.clientId, record)
    cached++
  }
  const insert = db.prepare(`INSERT INTO clients
    (workspace_id, client_id, name, kind, room, ephemeral, expires_at, tokens_not_before, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const byId = db.prepare('SELECT * FROM clients WHERE workspace_id = ? AND client_id = ?')
  const remove = db.prepare('DELETE FROM clients WHERE workspace_id = ? AND client_id = ?')
  const revokeAll = db.prepare(
    'UPDATE clients SET tokens_not_before = ?, updated_at = ? WHERE workspace_id = ? AND client_id = ?')
  const list = db.prepare(`SELECT * FROM clients WHERE workspace_id = ?
    AND (?2 IS NULL OR room = ?2) AND (?3 IS NULL OR kind = ?3) AND client_id > ?4
    AND (?6 IS NULL OR expires_at IS NULL OR expires_at > ?6)
    ORDER BY client_id LIMIT ?5`)
  const expired = db.prepare(
    'SELECT * FROM clients WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?')
  return {
    insert: (c: ClientRecord) =>
      guard('insert client', () => {
        forget(c.workspaceId, c.clientId)
        insert.run(c.workspaceId, c.clientId, c.name, c.kind, c.room, c.ephemeral ? 1 : 0, c.expiresAt,
          c.tokensNotBefore, c.createdAt, c.updatedAt)
      }),
    get: (workspaceId: string, clientId: string) =>
      guard('get client', () => {
        const hit = cache.get(workspaceId)?.get(clientId)
        if (hit) return hit
        const r = byId.get(workspaceId, clientId) as Row | undefined
        if (!r) return null
        const record = toRecord(r, { workspaceId, clientId })
        remember(record)
        return record
      }),
    /** Drop a cached record (a change committed by another process). */
    invalidate: forget,
    /** Drop every cached record (a transaction rolled back: what it read may never have existed). */
    invalidateAll: () => {
      cache.clear()
      cached = 0
    },
    /** Apply a patch; returns the updated record, or null when the client does not exist. */
    update: (workspaceId: string, clientId: string, patch: ClientPatch, at: number) =>
      guard('update client', () => {
        forget(workspaceId, clientId)
        const sets: string[] = []
        const values: Array<string | number | null> = []
        for (const key of ['name', 'kind', 'room'] as const) {
          if (patch[key] !== undefined) {
            sets.push(`${key} = ?`)
            values.push(patch[key])
          }
        }
        sets.push('updated_at = ?')
        values.push(at)
        const r = db
          .prepare(`UPDATE clients SET ${sets.join(', ')} WHERE workspace_id = ? AND client_id = ? RETURNING *`)
          .get(...values, workspaceId, clientId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    /**
     * Clients ordered by clientId (a stable cursor: rows after `after`), optionally filtered by room
     * and kind; with `activeAt`, ephemeral clients expired at that instant are left out.
     */
    list: (
      workspaceId: string,
      q: { room?: string | null; kind?: string | null; after?: string; limit: number; activeAt?: number | null },
    ) =>
      guard('list clients', () =>
        (list.all(workspaceId, q.room ?? null, q.kind ?? null, q.after ?? '', q.limit, q.activeAt ?? null) as Row[])
          .map((r) => toRecord(r))),
    delete: (workspaceId: string, clientId: string) =>
      guard('delete client', () => {
        forget(workspaceId, clientId)
        return remove.run(workspaceId, clientId).changes === 1
      }),
    revokeAllTokens: (workspaceId: string, clientId: string, at: number) =>
      guard('revoke client tokens', () => {
        forget(workspaceId, clientId)
        return revokeAll.run(at, at, workspaceId, clientId).changes === 1
      }),
    expired: (now: number, limit = 100) =>
      guard('list expired clients', () => (expired.all(now, limit) as Row[]).map((r) => toRecord(r))),
  }
}
