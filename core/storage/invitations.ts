/**
 * Invitations to a workspace: an email, a role, and a single-use link whose secret is stored as
 * a SHA-256 only. Accepting sets `accepted_at`, so a link works once; `expires_at` ends it unused.
 */
import { guard, type Db } from './db.js'
import type { Role } from './memberships.js'
import { emailKey } from './users.js'

export interface InvitationRecord {
  readonly invitationId: string
  readonly workspaceId: string
  readonly email: string
  readonly role: Role
  readonly tokenHash: string
  readonly invitedBy: string | null
  readonly createdAt: number
  readonly expiresAt: number
  readonly acceptedAt: number | null
  readonly acceptedBy: string | null
  readonly revokedAt: number | null
}

interface Row {
  invitation_id: string; workspace_id: string; email: string; role: Role; token_hash: string
  invited_by: string | null; created_at: number; expires_at: number; accepted_at: number | null
  accepted_by: string | null; revoked_at: number | null
}
const toRecord = (r: Row): InvitationRecord => ({
  invitationId: r.invitation_id, workspaceId: r.workspace_id, email: r.email, role: r.role, tokenHash: r.token_hash,
  invitedBy: r.invited_by, createdAt: r.created_at, expiresAt: r.expires_at, acceptedAt: r.accepted_at,
  acceptedBy: r.accepted_by, revokedAt: r.revoked_at,
})

export const invitationsRepo = (db: Db) => {
  const insert = db.prepare(`INSERT INTO invitations
    (invitation_id, workspace_id, email, email_key, role, token_hash, invited_by, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const byHash = db.prepare('SELECT * FROM invitations WHERE token_hash = ?')
  const byId = db.prepare('SELECT * FROM invitations WHERE workspace_id = ? AND invitation_id = ?')
  const ofWorkspace = db.prepare('SELECT * FROM invitations WHERE workspace_id = ? ORDER BY created_at DESC, rowid DESC')
  const accept = db.prepare(
    'UPDATE invitations SET accepted_at = ?, accepted_by = ? WHERE invitation_id = ? AND accepted_at IS NULL AND revoked_at IS NULL')
  const revoke = db.prepare(
    'UPDATE invitations SET revoked_at = ? WHERE workspace_id = ? AND invitation_id = ? AND accepted_at IS NULL AND revoked_at IS NULL')
  const one = (r: unknown) => (r ? toRecord(r as Row) : null)
  return {
    insert: (i: Omit<InvitationRecord, 'acceptedAt' | 'acceptedBy' | 'revokedAt'>) =>
      guard('insert invitation', () =>
        void insert.run(i.invitationId, i.workspaceId, i.email.trim(), emailKey(i.email), i.role, i.tokenHash, i.invitedBy, i.createdAt, i.expiresAt)),
    findByTokenHash: (tokenHash: string) => guard('find invitation', () => one(byHash.get(tokenHash))),
    get: (workspaceId: string, invitationId: string) => guard('get invitation', () => one(byId.get(workspaceId, invitationId))),
    list: (workspaceId: string) => guard('list invitations', () => (ofWorkspace.all(workspaceId) as Row[]).map(toRecord)),
    /** Mark used; false when it was used or revoked already (the caller lost a race). */
    markAccepted: (invitationId: string, userId: string, at: number) =>
      guard('accept invitation', () => accept.run(at, userId, invitationId).changes === 1),
    revoke: (workspaceId: string, invitationId: string, at: number) =>
      guard('revoke invitation', () => revoke.run(at, workspaceId, invitationId).changes === 1),
  }
}
