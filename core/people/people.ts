/**
 * People and their workspaces: users (create, list, disable, passwords), memberships with a role,
 * invitations, and workspaces a user creates, renames or deletes. The operator CLI and the console
 * both call these; each records what it did in the audit log. The rule that a workspace keeps an
 * admin lives here: the last admin can neither leave, be removed, nor be demoted.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { ClockShape } from '../clock.js'
import { InvitationInvalid, LastAdmin, NotFound, UserExists, UserNotFound, ValidationFailed, WorkspaceNotFound, StorageFailure } from '../errors.js'
import { newInvitationId, newUserId } from '../ids.js'
import { isDisplayName } from '../naming.js'
import { checkWorkspaceName, type SecurityShape } from '../security/security.js'
import { isUniqueViolation } from '../storage/db.js'
import type { InvitationRecord } from '../storage/invitations.js'
import type { Role } from '../storage/memberships.js'
import type { StorageShape } from '../storage/storage.js'
import type { UserRecord } from '../storage/users.js'
import type { WorkspaceRecord } from '../storage/workspaces.js'
import { authorOf, recordAudit, type Actor } from './audit.js'
import { checkPasswordPolicy, hashPassword } from './passwords.js'
import { isRole } from './roles.js'

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 86_400_000

const EMAIL = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u
export const EMAIL_MAX_LENGTH = 254

export const checkEmail = (email: unknown): string => {
  if (typeof email !== 'string' || email.trim().length > EMAIL_MAX_LENGTH || !EMAIL.test(email.trim())) {
    throw new ValidationFailed({ field: 'email', message: 'email must be an address such as ada@example.com' })
  }
  return email.trim()
}

const checkName = (name: string | null | undefined): string | null => {
  if (name === null || name === undefined || name === '') return null
  if (!isDisplayName(name)) throw new ValidationFailed({ field: 'name', message: 'name must be 1-200 printable characters' })
  return name
}

const checkRole = (role: unknown): Role => {
  if (!isRole(role)) throw new ValidationFailed({ field: 'role', message: 'role must be admin, developer or viewer' })
  return role
}

/** The public view of a user: never the password hash. */
export const userView = (u: UserRecord) => ({
  userId: u.userId,
  email: u.email,
  name: u.name,
  disabled: u.disabledAt !== null,
  createdAt: new Date(u.createdAt).toISOString(),
})

export const invitationView = (i: InvitationRecord, now: number) => ({
  invitationId: i.invitationId,
  email: i.email,
  role: i.role,
  createdAt: new Date(i.createdAt).toISOString(),
  expiresAt: new Date(i.expiresAt).toISOString(),
  state: i.acceptedAt !== null ? 'accepted' : i.revokedAt !== null ? 'revoked' : i.expiresAt <= now ? 'expired' : 'pending',
})

/** Invitation links carry 256 random bits; only their SHA-256 is stored. */
const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex')
const INVITATION_TOKEN = /^[A-Za-z0-9_-]{43}$/

export class People {
  constructor(
    private readonly storage: StorageShape,
    private readonly security: SecurityShape,
    private readonly clock: ClockShape,
  ) {}

  // ---- users ----

  async createUser(input: { email: string; name?: string | null; password: string }, actor: Actor): Promise<UserRecord> {
    const email = checkEmail(input.email)
    const name = checkName(input.name)
    const passwordHash = await hashPassword(checkPasswordPolicy(input.password))
    const now = this.clock.now()
    const record = { userId: newUserId(), email, name, passwordHash, createdAt: now, updatedAt: now }
    try {
      this.storage.transaction(() => {
        this.storage.users.insert(record)
        recordAudit(this.storage, this.clock, actor, { action: 'user.created', workspaceId: null, target: email, subjectUserId: record.userId })
      })
    } catch (e) {
      if (e instanceof StorageFailure && isUniqueViolation(e.cause)) throw new UserExists({ message: `a user with email ${email} already exists` })
      throw e
    }
    return { ...record, disabledAt: null }
  }

  requireUserByEmail(email: string): UserRecord {
    const user = this.storage.users.findByEmail(email)
    if (!user) throw new UserNotFound({ message: `no user with email ${email.trim()}` })
    return user
  }

  requireUser(userId: string): UserRecord {
    const user = this.storage.users.get(userId)
    if (!user) throw new UserNotFound({ message: `no user ${userId}` })
    return user
  }

  /** Set a new password (operator reset, or a user who gave the current one); ends the user's sessions but `keepSession`. */
  async setPassword(userId: string, password: string, actor: Actor, options: { keepSession?: string; action: 'user.password_reset' | 'user.password_changed' }) {
    const user = this.requireUser(userId)
    const passwordHash = await hashPassword(checkPasswordPolicy(password, options.action === 'user.password_changed' ? 'newPassword' : 'password'))
    const now = this.clock.now()
    return this.storage.transaction(() => {
      this.storage.users.setPasswordHash(userId, passwordHash, now)
      const ended = this.storage.userSessions.deleteForUser(userId, options.keepSession ?? '')
      this.storage.feed.record({ kind: 'user.accessChanged', workspaceId: null, subject: userId, at: now, by: authorOf(actor) })
      recordAudit(this.storage, this.clock, actor, { action: options.action, workspaceId: null, target: user.email, subjectUserId: userId })
      return { userId, sessionsEnded: ended }
    })
  }

  /** Disable a user: their sessions end and they can no longer sign in; memberships stay (re-enabling is not offered). */
  disableUser(userId: string, actor: Actor) {
    const user = this.requireUser(userId)
    const now = this.clock.now()
    return this.storage.transaction(() => {
      const changed = this.storage.users.disable(userId, now)
      const ended = this.storage.userSessions.deleteForUser(userId)
      this.storage.feed.record({ kind: 'user.accessChanged', workspaceId: null, subject: userId, at: now, by: authorOf(actor) })
      if (changed) recordAudit(this.storage, this.clock, actor, { action: 'user.disabled', workspaceId: null, target: user.email, subjectUserId: userId })
      return { userId, disabled: true as const, sessionsEnded: ended }
    })
  }

  // ---- workspaces and members ----

  requireWorkspace(workspaceId: string): WorkspaceRecord {
    const w = this.storage.workspaces.get(workspaceId)
    if (!w) throw new WorkspaceNotFound({ message: `no workspace ${workspaceId}` })
    return w
  }

  /** A user creates a workspace and becomes its admin. */
  createWorkspace(userId: string, name: string, actor: Actor): WorkspaceRecord {
    return this.storage.transaction(() => {
      const w = this.security.createWorkspace(name)
      this.storage.memberships.put(w.workspaceId, userId, 'admin', this.clock.now())
      recordAudit(this.storage, this.clock, actor, { action: 'workspace.created', workspaceId: w.workspaceId, target: w.name })
      return w
    })
  }

  renameWorkspace(workspaceId: string, name: string, actor: Actor): WorkspaceRecord {
    const before = this.requireWorkspace(workspaceId)
    checkWorkspaceName(name)
    this.storage.transaction(() => {
      this.storage.workspaces.rename(workspaceId, name)
      recordAudit(this.storage, this.clock, actor, { action: 'workspace.renamed', workspaceId, target: name, detail: { from: before.name } })
    })
    return { ...before, name }
  }

  /**
   * Delete a workspace: its API keys are revoked and its clients deleted (live terminals are
   * disconnected through the change feed, tokens and device passwords stop working), members and
   * pending invitations go; the row stays, hidden, for its audit log and usage history.
   * Running agents are the engine's to stop (the console does it after this).
   */
  deleteWorkspace(workspaceId: string, actor: Actor): void {
    const w = this.requireWorkspace(workspaceId)
    const now = this.clock.now()
    const by = authorOf(actor)
    this.storage.transaction(() => {
      for (const key of this.storage.apiKeys.list(workspaceId)) {
        if (key.revokedAt === null) this.security.apiKeys.revoke(workspaceId, key.keyId, by)
      }
      for (;;) {
        const batch = this.storage.clients.list(workspaceId, { room: null, kind: null, after: '', limit: 500, activeAt: null })
        if (batch.length === 0) break
        for (const c of batch) {
          this.storage.clients.delete(workspaceId, c.clientId)
          this.storage.feed.record({ kind: 'client.deleted', workspaceId, subject: c.clientId, at: now, by })
        }
      }
      for (const i of this.storage.invitations.list(workspaceId)) this.storage.invitations.revoke(workspaceId, i.invitationId, now)
      this.storage.memberships.deleteAll(workspaceId)
      this.storage.feed.record({ kind: 'user.accessChanged', workspaceId, subject: null, at: now, by })
      this.storage.workspaces.markDeleted(workspaceId, now)
      recordAudit(this.storage, this.clock, actor, { action: 'workspace.deleted', workspaceId, target: w.name })
    })
  }

  /** Add a user to a workspace or change their role (`hark user grant`); the last-admin rule holds. */
  grant(workspaceId: string, userId: string, role: Role, actor: Actor): void {
    this.requireWorkspace(workspaceId)
    const user = this.requireUser(userId)
    checkRole(role)
    this.storage.transaction(() => {
      const current = this.storage.memberships.get(workspaceId, userId)
      if (current?.role === role) return
      if (current) this.keepAnAdmin(workspaceId, userId, role)
      this.storage.memberships.put(workspaceId, userId, role, this.clock.now())
      recordAudit(this.storage, this.clock, actor, {
        action: current ? 'member.role_changed' : 'member.added',
        workspaceId,
        target: user.email,
        subjectUserId: userId,
        detail: current ? { from: current.role, to: role } : { role },
      })
    })
  }

  /** Change a member's role; NotFound when they are not a member. */
  setRole(workspaceId: string, userId: string, role: Role, actor: Actor): void {
    if (!this.storage.memberships.get(workspaceId, userId)) throw new NotFound({ message: `no member ${userId} in this workspace` })
    this.grant(workspaceId, userId, checkRole(role), actor)
  }

  /** Remove a member (an admin removing someone, or a member leaving); the last admin cannot go. */
  removeMember(workspaceId: string, userId: string, actor: Actor): void {
    this.storage.transaction(() => {
      const current = this.storage.memberships.get(workspaceId, userId)
      if (!current) throw new NotFound({ message: `no member ${userId} in this workspace` })
      this.keepAnAdmin(workspaceId, userId, null)
      this.storage.memberships.delete(workspaceId, userId)
      this.storage.feed.record({ kind: 'user.accessChanged', workspaceId, subject: userId, at: this.clock.now(), by: authorOf(actor) })
      const user = this.storage.users.get(userId)
      recordAudit(this.storage, this.clock, actor, {
        action: 'member.removed', workspaceId, target: user?.email ?? userId, subjectUserId: userId, detail: { role: current.role },
      })
    })
  }

  /** Refuse a change that takes the admin role from the last admin who can sign in. */
  private keepAnAdmin(workspaceId: string, userId: string, newRole: Role | null): void {
    const current = this.storage.memberships.get(workspaceId, userId)
    if (current?.role !== 'admin' || newRole === 'admin') return
    const user = this.storage.users.get(userId)
    const counts = user !== null && user.disabledAt === null ? 1 : 0
    if (this.storage.memberships.activeAdminCount(workspaceId) - counts < 1) {
      throw new LastAdmin({
        message: newRole === null
          ? 'the last admin of a workspace cannot leave it or be removed; make another member admin first'
          : 'the last admin of a workspace cannot be demoted; make another member admin first',
      })
    }
  }

  // ---- invitations ----

  /** Invite an email with a role; the returned token is the single-use link's secret, shown to the admin once. */
  invite(workspaceId: string, input: { email: string; role: Role }, actor: Actor): { invitation: InvitationRecord; token: string } {
    this.requireWorkspace(workspaceId)
    const email = checkEmail(input.email)
    const role = checkRole(input.role)
    const token = randomBytes(32).toString('base64url')
    const now = this.clock.now()
    const invitation: InvitationRecord = {
      invitationId: newInvitationId(), workspaceId, email, role, tokenHash: hashInvitationToken(token), invitedBy: actor.userId,
      createdAt: now, expiresAt: now + INVITATION_TTL_MS, acceptedAt: null, acceptedBy: null, revokedAt: null,
    }
    this.storage.transaction(() => {
      this.storage.invitations.insert(invitation)
      recordAudit(this.storage, this.clock, actor, { action: 'member.invited', workspaceId, target: email, detail: { role, invitationId: invitation.invitationId } })
    })
    return { invitation, token }
  }

  revokeInvitation(workspaceId: string, invitationId: string, actor: Actor): void {
    const i = this.storage.invitations.get(workspaceId, invitationId)
    if (!i) throw new NotFound({ message: `no invitation ${invitationId} in this workspace` })
    this.storage.transaction(() => {
      if (this.storage.invitations.revoke(workspaceId, invitationId, this.clock.now())) {
        recordAudit(this.storage, this.clock, actor, { action: 'invitation.revoked', workspaceId, target: i.email, detail: { invitationId } })
      }
    })
  }

  /** The invitation a link names, while it can still be accepted; one answer for unknown, used, revoked or expired. */
  openInvitation(token: string): { invitation: InvitationRecord; workspace: WorkspaceRecord; userExists: boolean } {
    const invalid = () => new InvitationInvalid({ message: 'this invitation link is not valid: it was used, revoked or has expired' })
    if (!INVITATION_TOKEN.test(token)) throw invalid()
    const invitation = this.storage.invitations.findByTokenHash(hashInvitationToken(token))
    if (!invitation || invitation.acceptedAt !== null || invitation.revokedAt !== null || invitation.expiresAt <= this.clock.now()) throw invalid()
    const workspace = this.storage.workspaces.get(invitation.workspaceId)
    if (!workspace) throw invalid()
    return { invitation, workspace, userExists: this.storage.users.findByEmail(invitation.email) !== null }
  }

  /**
   * Accept an invitation: as the signed-in user it was sent to (`userId`), or, when no account has
   * that email yet, by creating it (`newUser`). The link works once.
   */
  async acceptInvitation(
    token: string,
    who: { readonly userId: string } | { readonly newUser: { readonly name?: string | null; readonly password: string } },
    ip: string | null,
  ): Promise<{ user: UserRecord; workspace: WorkspaceRecord; role: Role }> {
    const { invitation, workspace } = this.openInvitation(token)
    let user: UserRecord
    if ('userId' in who) {
      user = this.requireUser(who.userId)
      if (user.email.toLowerCase() !== invitation.email.toLowerCase()) {
        throw new InvitationInvalid({ message: `this invitation is for ${invitation.email}; sign in as that user to accept it` })
      }
    } else {
      user = await this.createUser({ email: invitation.email, name: who.newUser.name ?? null, password: who.newUser.password }, {
        userId: null, label: invitation.email, ip,
      })
    }
    const actor: Actor = { userId: user.userId, label: user.email, ip }
    const role = this.storage.transaction(() => {
      if (!this.storage.invitations.markAccepted(invitation.invitationId, user.userId, this.clock.now())) {
        throw new InvitationInvalid({ message: 'this invitation link is not valid: it was used, revoked or has expired' })
      }
      const current = this.storage.memberships.get(workspace.workspaceId, user.userId)
      // Accepting never lowers a role the user already has.
      const rank = { viewer: 0, developer: 1, admin: 2 } as const
      const role = current && rank[current.role] >= rank[invitation.role] ? current.role : invitation.role
      this.storage.memberships.put(workspace.workspaceId, user.userId, role, this.clock.now())
      recordAudit(this.storage, this.clock, actor, {
        action: 'member.joined', workspaceId: workspace.workspaceId, target: user.email, subjectUserId: user.userId,
        detail: { role, invitationId: invitation.invitationId },
      })
      return role
    })
    return { user, workspace, role }
  }
}
