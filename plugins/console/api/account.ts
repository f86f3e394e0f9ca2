/**
 * The signed-in user: sign in (throttled; one answer and one cost for an unknown email, a wrong
 * password and a disabled account), the current session, sign out here or everywhere, a password
 * change (asks for the current one, ends the user's other sessions), the user's workspaces and
 * creating one, and invitations: reading one, registering through one, accepting one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Counter } from 'prom-client'
import { InvalidCredentials, ValidationFailed } from '../../../core/errors.js'
import { recordAudit } from '../../../core/people/audit.js'
import { checkPasswordPolicy, verifyDecoy, verifyPassword, PASSWORD_MAX_LENGTH } from '../../../core/people/passwords.js'
import { EMAIL_MAX_LENGTH, userView } from '../../../core/people/people.js'
import { permissionsOf } from '../../../core/people/roles.js'
import { emailKey, type UserRecord } from '../../../core/storage/users.js'
import type { UserSessionRecord } from '../../../core/storage/userSessions.js'
import { actorOf, signedInOf, type RouteAccess } from '../access.js'
import { SESSION_COOKIE } from '../sessions.js'
import type { ConsoleServices } from '../services.js'

const email = { type: 'string', minLength: 1, maxLength: EMAIL_MAX_LENGTH } as const
const password = { type: 'string', minLength: 1, maxLength: PASSWORD_MAX_LENGTH } as const
const invitationParams = {
  type: 'object',
  properties: { token: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['token'],
  additionalProperties: false,
} as const

const access = (a: RouteAccess['access']): { config: RouteAccess } => ({ config: { access: a } })

export const accountRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const { storage, clock, sessions, throttle, people } = services
  const signIns = new Counter({
    name: 'hark_console_signins_total',
    help: 'Console sign-in attempts by outcome (ok, refused, throttled); every heard attempt costs one argon2id verification',
    labelNames: ['outcome'],
    registers: [services.metrics],
  })

  const workspacesOf = (userId: string) =>
    storage.memberships.workspacesOf(userId).map((w) => ({ ...w, permissions: permissionsOf(w.role) }))

  /** What the console learns about its session: the user, the CSRF token for changes, the workspaces. Never the session id. */
  const sessionView = (user: UserRecord, session: UserSessionRecord) => ({
    user: userView(user),
    csrfToken: session.csrfToken,
    expiresAt: new Date(session.expiresAt).toISOString(),
    idleSeconds: services.console.sessionIdleSeconds,
    workspaces: workspacesOf(user.userId),
  })

  const signOut = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, sessions.cookieOptions())

  app.post<{ Body: { email: string; password: string } }>(
    '/session',
    {
      ...access('public'),
      schema: { body: { type: 'object', properties: { email, password }, required: ['email', 'password'], additionalProperties: false } },
    },
    async (request, reply) => {
      const ip = request.ip
      const account = emailKey(request.body.email)
      try {
        throttle.check(ip, account)
      } catch (e) {
        signIns.inc({ outcome: 'throttled' })
        throw e
      }
      const user = storage.users.findByEmail(request.body.email)
      // The same work whether or not the account exists: one argon2id verification.
      const matches = user ? await verifyPassword(user.passwordHash, request.body.password) : await verifyDecoy(request.body.password)
      if (!user || !matches || user.disabledAt !== null) {
        throttle.failed(ip, account)
        signIns.inc({ outcome: 'refused' })
        recordAudit(storage, clock, { userId: null, label: request.body.email.trim(), ip }, {
          action: 'signin.failed', workspaceId: null, target: request.body.email.trim(), subjectUserId: user?.userId ?? null,
        })
        throw new InvalidCredentials({ message: 'wrong email or password' })
      }
      throttle.succeeded(account)
      signIns.inc({ outcome: 'ok' })
      const { sessionId, session } = sessions.create(user.userId, ip, request.headers['user-agent'] ?? null)
      recordAudit(storage, clock, { userId: user.userId, label: user.email, ip }, {
        action: 'signin.succeeded', workspaceId: null, target: user.email, subjectUserId: user.userId,
      })
      void reply.setCookie(SESSION_COOKIE, sessionId, sessions.cookieOptions())
      return sessionView(user, session)
    },
  )

  app.get('/session', access('user'), async (request) => {
    const { user, session } = signedInOf(request)
    return sessionView(user, session)
  })

  app.delete('/session', access('user'), async (request, reply) => {
    sessions.end(signedInOf(request).session)
    signOut(reply)
    return { signedOut: true }
  })

  app.post('/session/end-all', { ...access('user'), schema: { body: { type: 'object', additionalProperties: false } } }, async (request, reply) => {
    const ended = sessions.endAll(signedInOf(request).user.userId)
    recordAudit(storage, clock, actorOf(request), { action: 'signout.everywhere', workspaceId: null, target: signedInOf(request).user.email, subjectUserId: signedInOf(request).user.userId, detail: { sessionsEnded: ended } })
    signOut(reply)
    return { signedOut: true, sessionsEnded: ended }
  })

  app.post<{ Body: { currentPassword: string; newPassword: string } }>(
    '/account/password',
    {
      ...access('user'),
      schema: {
        body: {
          type: 'object',
          properties: { currentPassword: password, newPassword: password },
          required: ['currentPassword', 'newPassword'],
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const { user, session } = signedInOf(request)
      const account = emailKey(user.email)
      throttle.check(request.ip, account)
      checkPasswordPolicy(request.body.newPassword, 'newPassword')
      if (!(await verifyPassword(user.passwordHash, request.body.currentPassword))) {
        throttle.failed(request.ip, account)
        throw new ValidationFailed({ field: 'currentPassword', message: 'the current password is wrong' })
      }
      const r = await people.setPassword(user.userId, request.body.newPassword, actorOf(request), {
        keepSession: session.sessionHash,
        action: 'user.password_changed',
      })
      return { changed: true, otherSessionsEnded: r.sessionsEnded }
    },
  )

  app.get('/workspaces', access('user'), async (request) => ({ workspaces: workspacesOf(signedInOf(request).user.userId) }))

  app.post<{ Body: { name: string } }>(
    '/workspaces',
    {
      ...access('user'),
      schema: { body: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['name'], additionalProperties: false } },
    },
    async (request, reply) => {
      const w = people.createWorkspace(signedInOf(request).user.userId, request.body.name, actorOf(request))
      return reply.code(201).send({ workspaceId: w.workspaceId, name: w.name, role: 'admin', permissions: permissionsOf('admin') })
    },
  )

  const invitationInfo = (token: string) => {
    const { invitation, workspace, userExists } = people.openInvitation(token)
    return {
      workspace: { workspaceId: workspace.workspaceId, name: workspace.name },
      email: invitation.email,
      role: invitation.role,
      expiresAt: new Date(invitation.expiresAt).toISOString(),
      userExists,
    }
  }

  app.get<{ Params: { token: string } }>(
    '/invitations/:token',
    { ...access('public'), schema: { params: invitationParams } },
    async (request) => invitationInfo(request.params.token),
  )

  app.post<{ Params: { token: string }; Body: { name?: string; password: string } }>(
    '/invitations/:token/register',
    {
      ...access('public'),
      schema: {
        params: invitationParams,
        body: {
          type: 'object',
          properties: { name: { type: 'string', maxLength: 200 }, password },
          required: ['password'],
          additionalProperties: false,
        },
      },
    },
    async (request: FastifyRequest<{ Params: { token: string }; Body: { name?: string; password: string } }>, reply) => {
      const r = await people.acceptInvitation(request.params.token, { newUser: { name: request.body.name ?? null, password: request.body.password } }, request.ip)
      return reply.code(201).send({ user: userView(r.user), workspace: { workspaceId: r.workspace.workspaceId, name: r.workspace.name }, role: r.role })
    },
  )

  app.post<{ Params: { token: string } }>(
    '/invitations/:token/accept',
    { ...access('user'), schema: { params: invitationParams, body: { type: 'object', additionalProperties: false } } },
    async (request) => {
      const r = await people.acceptInvitation(request.params.token, { userId: signedInOf(request).user.userId }, request.ip)
      return { workspace: { workspaceId: r.workspace.workspaceId, name: r.workspace.name }, role: r.role }
    },
  )
}
