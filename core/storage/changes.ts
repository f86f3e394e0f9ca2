/**
 * The change log: every control-relevant write appends a row, so another process sharing the
 * file (the CLI, or later another node) sees it. Readers poll `PRAGMA data_version`, which only
 * moves when some other connection committed, then read rows past their cursor.
 */
import { guard, type Db } from './db.js'

export type ChangeKind =
  | 'workspace.created'
  | 'apikey.revoked'
  | 'secret.rotated'
  | 'token.revoked'
  | 'client.created'
  | 'client.updated'
  | 'client.deleted'
  | 'client.tokensRevoked'
  | 'devicePassword.reset'
  | 'room.updated'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.deleted'
  /** New webhook deliveries were committed (events, a test, a redelivery): the worker reads past its cursor. */
  | 'webhook.queued'
  /** A user's console sessions ended or a membership went (subject: the user; null with a workspace: all its members). */
  | 'user.accessChanged'

export interface ChangeRecord {
  readonly id: number
  readonly origin: string
  readonly workspaceId: string | null
  readonly kind: ChangeKind
  readonly subject: string | null
  readonly at: number
}

interface Row { id: number; origin: string; workspace_id: string | null; kind: ChangeKind; subject: string | null; at: number }
const toRecord = (r: Row): ChangeRecord => ({
  id: r.id, origin: r.origin, workspaceId: r.workspace_id, kind: r.kind, subject: r.subject, at: r.at,
})

export const changesRepo = (db: Db) => {
  const insert = db.prepare('INSERT INTO changes (origin, workspace_id, kind, subject, at) VALUES (?, ?, ?, ?, ?)')
  const since = db.prepare('SELECT * FROM changes WHERE id > ? ORDER BY id LIMIT ?')
  const last = db.prepare('SELECT coalesce(max(id), 0) AS id FROM changes')
  const prune = db.prepare('DELETE FROM changes WHERE at < ?')
  const version = db.prepare('PRAGMA data_version')
  return {
    append: (c: Omit<ChangeRecord, 'id'>) =>
      guard('append change', () => Number(insert.run(c.origin, c.workspaceId, c.kind, c.subject, c.at).lastInsertRowid)),
    since: (id: number, limit = 500) => guard('read changes', () => (since.all(id, limit) as Row[]).map(toRecord)),
    lastId: () => guard('read change cursor', () => (last.get() as { id: number }).id),
    // libSQL adds a _metadata member to row objects, so read the column by name.
    dataVersion: () => guard('read data version', () => (version.get() as { data_version: number }).data_version),
    prune: (before: number) => guard('prune changes', () => prune.run(before).changes),
  }
}
