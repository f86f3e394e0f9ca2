/** Workspaces: the only organisational boundary. */
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
  const byId = db.prepare('SELECT * FROM workspaces WHERE workspace_id = ?')
  const all = db.prepare('SELECT * FROM workspaces ORDER BY created_at, workspace_id')
  return {
    insert: (w: WorkspaceRecord) => guard('insert workspace', () => void insert.run(w.workspaceId, w.name, w.createdAt)),
    get: (workspaceId: string) =>
      guard('get workspace', () => {
        const r = byId.get(workspaceId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    list: () => guard('list workspaces', () => (all.all() as Row[]).map(toRecord)),
  }
}
