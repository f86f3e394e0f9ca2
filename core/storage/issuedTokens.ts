/** Every client token issued, so one can be revoked by jti and kept revoked until it would expire. */
import { jtiFloor } from '../ids.js'
import { atomically, guard, type Db } from './db.js'

export interface IssuedTokenRecord {
  readonly jti: string
  readonly workspaceId: string
  readonly clientId: string
  readonly issuedAt: number
  readonly expiresAt: number | null
  readonly revokedAt: number | null
}

interface Row {
  jti: string; workspace_id: string; client_id: string; issued_at: number
  expires_at: number | null; revoked_at: number | null
}
const toRecord = (r: Row): IssuedTokenRecord => ({
  jti: r.jti, workspaceId: r.workspace_id, clientId: r.client_id, issuedAt: r.issued_at,
  expiresAt: r.expires_at, revokedAt: r.revoked_at,
})

/**
 * A client's unrevoked tokens minted since an instant: a range of the jti key (a jti's time part
 * is its issued_at), whichever client's, then filtered. No per-client index (migration 15 dropped
 * it: each batch of tokens wrote a page of it per client, 2.6x the CPU of recording them without).
 */
export const MINTED_SINCE_SQL =
  'SELECT jti FROM issued_tokens WHERE jti >= ? AND issued_at >= ? AND workspace_id = ? AND client_id = ? AND revoked_at IS NULL'

export const issuedTokensRepo = (db: Db) => {
  const insert = db.prepare(
    'INSERT INTO issued_tokens (jti, workspace_id, client_id, issued_at, expires_at) VALUES (?, ?, ?, ?, ?)')
  // libSQL's binding costs ~20 µs per statement: tokens minted together go in as one statement.
  const ROWS_PER_STATEMENT = 64
  const multiInsert = new Map<number, ReturnType<Db['prepare']>>()
  const insertRows = (n: number) => {
    let st = multiInsert.get(n)
    if (!st) {
      st = db.prepare(
        `INSERT INTO issued_tokens (jti, workspace_id, client_id, issued_at, expires_at) VALUES ${Array(n).fill('(?, ?, ?, ?, ?)').join(', ')}`)
      multiInsert.set(n, st)
    }
    return st
  }
  const byJti = db.prepare('SELECT * FROM issued_tokens WHERE workspace_id = ? AND jti = ?')
  const revoke = db.prepare(
    'UPDATE issued_tokens SET revoked_at = ? WHERE workspace_id = ? AND jti = ? AND revoked_at IS NULL')
  const revokedLive = db.prepare(
    'SELECT jti FROM issued_tokens WHERE revoked_at IS NOT NULL AND (expires_at IS NULL OR expires_at > ?)')
  const prune = db.prepare('DELETE FROM issued_tokens WHERE expires_at IS NOT NULL AND expires_at <= ?')
  const mintedSince = db.prepare(MINTED_SINCE_SQL)
  return {
    insert: (t: Omit<IssuedTokenRecord, 'revokedAt'>) =>
      guard('record token', () => void insert.run(t.jti, t.workspaceId, t.clientId, t.issuedAt, t.expiresAt)),
    /** Record several tokens at once (a group commit's worth), in statements of up to 64 rows. */
    insertMany: (tokens: ReadonlyArray<Omit<IssuedTokenRecord, 'revokedAt'>>) =>
      guard('record tokens', () =>
        atomically(db, () => {
          for (let i = 0; i < tokens.length; i += ROWS_PER_STATEMENT) {
            const chunk = tokens.slice(i, i + ROWS_PER_STATEMENT)
            insertRows(chunk.length).run(chunk.flatMap((t) => [t.jti, t.workspaceId, t.clientId, t.issuedAt, t.expiresAt]))
          }
        })),
    get: (workspaceId: string, jti: string) =>
      guard('get token', () => {
        const r = byJti.get(workspaceId, jti) as Row | undefined
        return r ? toRecord(r) : null
      }),
    /** Returns the token record (revoked now or before), or null when the jti is not this workspace's. */
    revoke: (workspaceId: string, jti: string, at: number) =>
      guard('revoke token', () => {
        revoke.run(at, workspaceId, jti)
        const r = byJti.get(workspaceId, jti) as Row | undefined
        return r ? toRecord(r) : null
      }),
    /** jtis revoked and not yet expired at `now`: the in-memory revocation set is built from these. */
    revokedJtis: (now: number) =>
      guard('list revoked tokens', () => (revokedLive.all(now) as Array<{ jti: string }>).map((r) => r.jti)),
    /**
     * Unrevoked jtis of a client minted at or after `at` (ms). A revoke-all at instant `at` revokes
     * these one by one: "tokens not before" has millisecond resolution, so a token minted earlier
     * in the same millisecond would otherwise survive it.
     */
    mintedSince: (workspaceId: string, clientId: string, at: number) =>
      guard('list recent tokens', () =>
        (mintedSince.all(jtiFloor(at), at, workspaceId, clientId) as Array<{ jti: string }>).map((r) => r.jti)),
    /** Forget tokens past their expiry; an expired token fails verification on its own. */
    prune: (now: number) => guard('prune tokens', () => prune.run(now).changes),
  }
}
