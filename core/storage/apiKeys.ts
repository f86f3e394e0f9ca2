/** API keys: only a hash of each key is stored; the key itself is shown once at creation. */
import { atomically, guard, type Db } from './db.js'

export interface ApiKeyRecord {
  readonly keyId: string
  readonly workspaceId: string
  readonly name: string | null
  readonly keyHash: string
  readonly createdAt: number
  readonly lastUsedAt: number | null
  readonly revokedAt: number | null
}

interface Row {
  key_id: string; workspace_id: string; name: string | null; key_hash: string
  created_at: number; last_used_at: number | null; revoked_at: number | null
}
const toRecord = (r: Row): ApiKeyRecord => ({
  keyId: r.key_id, workspaceId: r.workspace_id, name: r.name, keyHash: r.key_hash,
  createdAt: r.created_at, lastUsedAt: r.last_used_at, revokedAt: r.revoked_at,
})

export const apiKeysRepo = (db: Db) => {
  const insert = db.prepare(
    'INSERT INTO api_keys (key_id, workspace_id, name, key_hash, created_at) VALUES (?, ?, ?, ?, ?)')
  const byHash = db.prepare('SELECT * FROM api_keys WHERE key_hash = ?')
  const byWorkspace = db.prepare('SELECT * FROM api_keys WHERE workspace_id = ? ORDER BY created_at, key_id')
  const revoke = db.prepare(
    'UPDATE api_keys SET revoked_at = ? WHERE workspace_id = ? AND key_id = ? AND revoked_at IS NULL')
  const exists = db.prepare('SELECT 1 FROM api_keys WHERE workspace_id = ? AND key_id = ?')
  const touch = db.prepare(
    'UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE key_id = ?')
  const touchMany = (entries: ReadonlyArray<readonly [string, number]>) =>
    atomically(db, () => {
      for (const [keyId, at] of entries) touch.run(at, keyId)
    })
  return {
    insert: (k: Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>) =>
      guard('insert api key', () => void insert.run(k.keyId, k.workspaceId, k.name, k.keyHash, k.createdAt)),
    findByHash: (keyHash: string) =>
      guard('find api key', () => {
        const r = byHash.get(keyHash) as Row | undefined
        return r ? toRecord(r) : null
      }),
    list: (workspaceId: string) => guard('list api keys', () => (byWorkspace.all(workspaceId) as Row[]).map(toRecord)),
    /** 'revoked' | 'already' (revoked before) | 'missing' (no such key in this workspace). */
    revoke: (workspaceId: string, keyId: string, at: number): 'revoked' | 'already' | 'missing' =>
      guard('revoke api key', () => {
        if (revoke.run(at, workspaceId, keyId).changes === 1) return 'revoked'
        return exists.get(workspaceId, keyId) ? 'already' : 'missing'
      }),
    /** Batched lastUsedAt write (the hot REST path only updates memory). */
    touchLastUsed: (entries: ReadonlyArray<readonly [string, number]>) =>
      guard('touch api keys', () => void touchMany(entries)),
  }
}
