/**
 * Workspaces: the only organisational boundary. A deleted workspace keeps its row (its audit log
 * and usage history refer to it) with `deleted_at` set, and reads no longer see it.
 */
import { guard, type Db } from './db.js'

export interface WorkspaceRecord {
  readonly workspaceId: string
  readonly name: string
  readonly createdAt: number
}

interface Row { workspace_id: string; name: string; created_at: number }
const toRecord = (r: Row): WorkspaceRecord => ({ workspaceId: r.workspace_id, name: r.name, createdAt: r.created_at })

export const workspacesRepo = (db: Db) => {
  const insert = db.prepare('INSERT INTO workspaces (workspace_id, name, created_at) VALUES (?, ?, ?)')
  const byId = db.prepare('SELECT * FROM workspaces WHERE workspace_id = ? AND deleted_at IS NULL')
  const all = db.prepare('SELECT * FROM workspaces WHERE deleted_at IS NULL ORDER BY created_at, workspace_id')
  const rename = db.prepare('UPDATE workspaces SET name = ? WHERE workspace_id = ? AND deleted_at IS NULL')
  const markDeleted = db.prepare('UPDATE workspaces SET deleted_at = ? WHERE workspace_id = ? AND deleted_at IS NULL')
  return {
    insert: (w: WorkspaceRecord) => guard('insert workspace', () => void insert.run(w.workspaceId, w.name, w.createdAt)),
    get: (workspaceId: string) =>
      guard('get workspace', () => {
        const r = byId.get(workspaceId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    list: () => guard('list workspaces', () => (all.all() as Row[]).map(toRecord)),
    /** False when there is no such (live) workspace. */
    rename: (workspaceId: string, name: string) => guard('rename workspace', () => rename.run(name, workspaceId).changes === 1),
    /** Soft delete; false when there is no such (live) workspace. */
    markDeleted: (workspaceId: string, at: number) =>
      guard('delete workspace', () => markDeleted.run(at, workspaceId).changes === 1),
  }
}
