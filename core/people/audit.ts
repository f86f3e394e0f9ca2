/**
 * Recording security-relevant actions (spec/console.md lists them): who (a user, or the operator
 * at the CLI), what, on which target, when (the engine's clock) and from which IP. Nothing here
 * takes a secret: callers pass ids and names, never keys, passwords or session ids.
 */
import type { ClockShape } from '../clock.js'
import type { AuditEventRecord } from '../storage/auditEvents.js'
import type { ChangeAuthor } from '../storage/changes.js'
import type { StorageShape } from '../storage/storage.js'

export type AuditAction =
  | 'apikey.created'
  | 'apikey.revoked'
  | 'device_password.revealed'
  | 'device_password.reset'
  | 'device.added'
  | 'secret.rotated'
  | 'member.invited'
  | 'invitation.revoked'
  | 'member.joined'
  | 'member.added'
  | 'member.role_changed'
  | 'member.removed'
  | 'signin.succeeded'
  | 'signin.failed'
  | 'signout.everywhere'
  | 'user.created'
  | 'user.password_changed'
  | 'user.password_reset'
  | 'user.disabled'
  | 'workspace.created'
  | 'workspace.renamed'
  | 'workspace.deleted'
  | 'transcript.read'
  | 'transcript.deleted'
  | 'recording.downloaded'
  | 'recording.deleted'
  | 'agent.said'
  | 'agent.interrupted'
  | 'agent.updated'

/** Who acts: a signed-in user (with the IP of the request), or the operator at the CLI. */
export interface Actor {
  readonly userId: string | null
  /** The user's email, or `operator`. */
  readonly label: string
  readonly ip: string | null
}

export const OPERATOR: Actor = { userId: null, label: 'operator', ip: null }

/** The operator at the CLI, as the change feed records them. */
export const OPERATOR_CHANGES: ChangeAuthor = { type: 'operator' }

/** Who made a change, as the change feed records it (no IP: that stays in the audit log). */
export const authorOf = (actor: Actor): ChangeAuthor =>
  actor.userId === null ? OPERATOR_CHANGES : { type: 'user', userId: actor.userId, email: actor.label }

export interface AuditEntry {
  readonly action: AuditAction
  readonly workspaceId: string | null
  readonly target?: string | null
  readonly subjectUserId?: string | null
  readonly detail?: Readonly<Record<string, string | number | boolean | null>> | null
}

export const recordAudit = (storage: StorageShape, clock: ClockShape, actor: Actor, entry: AuditEntry): void => {
  storage.auditEvents.append({
    workspaceId: entry.workspaceId,
    at: clock.now(),
    actorUserId: actor.userId,
    actor: actor.label,
    action: entry.action,
    target: entry.target ?? null,
    subjectUserId: entry.subjectUserId ?? null,
    ip: actor.ip,
    detail: entry.detail ?? null,
  })
}

/** The JSON form of an event (the console's Audit log page and `hark audit --json`). */
export const auditView = (e: AuditEventRecord) => ({
  id: e.id,
  at: new Date(e.at).toISOString(),
  workspaceId: e.workspaceId,
  actor: e.actor,
  actorUserId: e.actorUserId,
  action: e.action,
  target: e.target,
  ip: e.ip,
  detail: e.detail,
})
