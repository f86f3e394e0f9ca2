/**
 * The audit log: who did what to which target, when and from where. A workspace's events carry
 * its id; account events (sign-in) carry none but name the account concerned (`subjectUserId`),
 * and a workspace's log shows those of its members too. `detail` never holds a secret.
 */
import { guard, type Db } from './db.js'

export interface AuditEventInput {
  readonly workspaceId: string | null
  readonly at: number
  /** The user who acted; null for the operator CLI or an unknown sign-in attempt. */
  readonly actorUserId: string | null
  /** How the actor is shown: a user's email, `operator` (the CLI), or the email typed at a failed sign-in. */
  readonly actor: string
  readonly action: string
  readonly target: string | null
  /** The account an account event is about (sign-ins), or a member a membership event is about. */
  readonly subjectUserId: string | null
  readonly ip: string | null
  readonly detail: Readonly<Record<string, unknown>> | null
}

export interface AuditEventRecord extends AuditEventInput {
  readonly id: number
}

interface Row {
  id: number; workspace_id: string | null; at: number; actor_user_id: string | null; actor: string; action: string
  target: string | null; subject_user_id: string | null; ip: string | null; detail: string | null
}
const toRecord = (r: Row): AuditEventRecord => ({
  id: r.id, workspaceId: r.workspace_id, at: r.at, actorUserId: r.actor_user_id, actor: r.actor, action: r.action,
  target: r.target, subjectUserId: r.subject_user_id, ip: r.ip, detail: r.detail === null ? null : (JSON.parse(r.detail) as Record<string, unknown>),
})

export const auditEventsRepo = (db: Db) => {
  const insert = db.prepare(`INSERT INTO audit_events
    (workspace_id, at, actor_user_id, actor, action, target, subject_user_id, ip, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  // A workspace's own events, and the account events of its present members; newest first.
  const ofWorkspace = db.prepare(`SELECT * FROM audit_events WHERE id < ?2 AND (workspace_id = ?1 OR (workspace_id IS NULL
    AND subject_user_id IN (SELECT user_id FROM memberships WHERE workspace_id = ?1))) ORDER BY id DESC LIMIT ?3`)
  const everything = db.prepare('SELECT * FROM audit_events WHERE id < ? ORDER BY id DESC LIMIT ?')
  return {
    append: (e: AuditEventInput) =>
      guard('append audit event', () =>
        Number(insert.run(e.workspaceId, e.at, e.actorUserId, e.actor, e.action, e.target, e.subjectUserId, e.ip,
          e.detail === null ? null : JSON.stringify(e.detail)).lastInsertRowid)),
    /** Newest first, ids below `before` (a page cursor; omit for the newest). */
    ofWorkspace: (workspaceId: string, opts: { before?: number; limit: number }) =>
      guard('read audit log', () => (ofWorkspace.all(workspaceId, opts.before ?? Number.MAX_SAFE_INTEGER, opts.limit) as Row[]).map(toRecord)),
    all: (opts: { before?: number; limit: number }) =>
      guard('read audit log', () => (everything.all(opts.before ?? Number.MAX_SAFE_INTEGER, opts.limit) as Row[]).map(toRecord)),
  }
}
