/** Workspace signing secrets, encrypted under the master key; rotation retires, never deletes at once. */
import { atomically, guard, type Db } from './db.js'

export interface SigningSecretRecord {
  readonly kid: string
  readonly workspaceId: string
  readonly secretEnc: string
  readonly createdAt: number
  /** null for the current secret; otherwise the instant it stops verifying. */
  readonly retiresAt: number | null
}

interface Row { kid: string; workspace_id: string; secret_enc: string; created_at: number; retires_at: number | null }
const toRecord = (r: Row): SigningSecretRecord => ({
  kid: r.kid, workspaceId: r.workspace_id, secretEnc: r.secret_enc, createdAt: r.created_at, retiresAt: r.retires_at,
})

export const signingSecretsRepo = (db: Db) => {
  const insert = db.prepare(
    'INSERT INTO signing_secrets (kid, workspace_id, secret_enc, created_at, retires_at) VALUES (?, ?, ?, ?, NULL)')
  const retireCurrent = db.prepare(
    'UPDATE signing_secrets SET retires_at = ? WHERE workspace_id = ? AND retires_at IS NULL')
  const live = db.prepare(
    'SELECT * FROM signing_secrets WHERE workspace_id = ? AND (retires_at IS NULL OR retires_at > ?) ORDER BY created_at DESC')
  const prune = db.prepare('DELETE FROM signing_secrets WHERE retires_at IS NOT NULL AND retires_at <= ?')
  const any = db.prepare('SELECT secret_enc FROM signing_secrets LIMIT 1')
  const rotate = (s: SigningSecretRecord, retireAt: number) =>
    atomically(db, () => {
      retireCurrent.run(retireAt, s.workspaceId)
      insert.run(s.kid, s.workspaceId, s.secretEnc, s.createdAt)
    })
  return {
    insert: (s: SigningSecretRecord) =>
      guard('insert signing secret', () => void insert.run(s.kid, s.workspaceId, s.secretEnc, s.createdAt)),
    /** Make `s` the current secret; the previous current one verifies until `retireAt`. */
    rotate: (s: SigningSecretRecord, retireAt: number) => guard('rotate signing secret', () => void rotate(s, retireAt)),
    /** Secrets that still verify at `now`, newest first (the first one signs). */
    live: (workspaceId: string, now: number) =>
      guard('list signing secrets', () => (live.all(workspaceId, now) as Row[]).map(toRecord)),
    prune: (now: number) => guard('prune signing secrets', () => prune.run(now).changes),
    /** One sealed secret, any: whether a master key opens this database's secrets. */
    sample: () => guard('read a signing secret', () => (any.get() as { secret_enc: string } | undefined)?.secret_enc ?? null),
  }
}
