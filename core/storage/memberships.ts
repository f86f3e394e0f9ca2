/** Who belongs to which workspace, with which role (core/people/roles.ts says what a role may do). */
import { guard, type Db } from './db.js'

export type Role = 'admin' | 'developer' | 'viewer'
export const ROLES: ReadonlyArray<Role> = ['admin', 'developer', 'viewer']

export interface MembershipRecord {
  readonly workspaceId: string
  readonly userId: string
  readonly role: Role
  readonly createdAt: number
  readonly updatedAt: number
}

/** A membership with the user's email and name, for member lists. */
export interface MemberRecord extends MembershipRecord {
  readonly email: string
  readonly name: string | null
  readonly disabled: boolean
}

/** A membership with the workspace's name, for a user's workspace list. */
export interface UserWorkspaceRecord {
  readonly workspaceId: string
  readonly name: string
  readonly role: Role
}

interface Row { workspace_id: string; user_id: string; role: Role; created_at: number; updated_at: number }
const toRecord = (r: Row): MembershipRecord => ({
  workspaceId: r.workspace_id, userId: r.user_id, role: r.role, createdAt: r.created_at, updatedAt: r.updated_at,
})

export const membershipsRepo = (db: Db) => {
  const upsert = db.prepare(`INSERT INTO memberships (workspace_id, user_id, role, created_at, updated_at)
    VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role, updated_at = excluded.updated_at`)
  const one = db.prepare('SELECT * FROM memberships WHERE workspace_id = ? AND user_id = ?')
  const members = db.prepare(`SELECT m.*, u.email, u.name, u.disabled_at FROM memberships m
    JOIN users u ON u.user_id = m.user_id WHERE m.workspace_id = ? ORDER BY m.created_at, u.email_key`)
  const ofUser = db.prepare(`SELECT w.workspace_id, w.name, m.role FROM memberships m
    JOIN workspaces w ON w.workspace_id = m.workspace_id AND w.deleted_at IS NULL
    WHERE m.user_id = ? ORDER BY w.created_at, w.workspace_id`)
  const remove = db.prepare('DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?')
  const removeAll = db.prepare('DELETE FROM memberships WHERE workspace_id = ?')
  const admins = db.prepare(`SELECT count(*) AS n FROM memberships m JOIN users u ON u.user_id = m.user_id
    WHERE m.workspace_id = ? AND m.role = 'admin' AND u.disabled_at IS NULL`)
  return {
    /** Add a member or change their role. */
    put: (workspaceId: string, userId: string, role: Role, at: number) =>
      guard('put membership', () => void upsert.run(workspaceId, userId, role, at)),
    get: (workspaceId: string, userId: string) =>
      guard('get membership', () => {
        const r = one.get(workspaceId, userId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    members: (workspaceId: string): MemberRecord[] =>
      guard('list members', () =>
        (members.all(workspaceId) as Array<Row & { email: string; name: string | null; disabled_at: number | null }>).map((r) => ({
          ...toRecord(r), email: r.email, name: r.name, disabled: r.disabled_at !== null,
        }))),
    workspacesOf: (userId: string): UserWorkspaceRecord[] =>
      guard('list workspaces of user', () =>
        (ofUser.all(userId) as Array<{ workspace_id: string; name: string; role: Role }>).map((r) => ({
          workspaceId: r.workspace_id, name: r.name, role: r.role,
        }))),
    delete: (workspaceId: string, userId: string) => guard('delete membership', () => remove.run(workspaceId, userId).changes === 1),
    deleteAll: (workspaceId: string) => guard('delete memberships', () => removeAll.run(workspaceId).changes),
    /** Admins who can still sign in. */
    activeAdminCount: (workspaceId: string) => guard('count admins', () => (admins.get(workspaceId) as { n: number }).n),
  }
}
