/**
 * One workspace's administration in the console: its detail (with the caller's role and what it
 * allows), rename and delete, leaving it; members, their roles and invitations; API keys (the value
 * shown once); the signing secret (rotation, with the grace period); the audit log. Each route
 * names the permission it needs (core/people/roles.ts); access.ts checks it before the handler runs.
 */
import type { FastifyInstance } from 'fastify'
import { auditView } from '../../../core/people/audit.js'
import { invitationView } from '../../../core/people/people.js'
import { permissionsOf, ROLES, type Role } from '../../../core/people/roles.js'
import { apiKeyView, createApiKey, revokeApiKey, rotateSigningSecret } from '../../../core/operations/credentials.js'
import { isoTime } from '../../../core/operations/views.js'
import { name } from '../../../core/httpApi/fields.js'
import { actorOf, membershipOf, signedInOf } from '../access.js'
import type { ConsoleServices } from '../services.js'

const role = { type: 'string', enum: [...ROLES] } as const
const emptyBody = { type: 'object', additionalProperties: false } as const
const idParam = (key: string, pattern: string) => ({
  type: 'object',
  properties: { workspaceId: { type: 'string' }, [key]: { type: 'string', pattern } },
  required: ['workspaceId', key],
  additionalProperties: false,
})
export const AUDIT_PAGE_MAX = 200

export const workspaceRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const { storage, clock, people, agents, settings } = services

  app.get<{ Params: { workspaceId: string } }>('/', { config: { access: 'read' } }, async (request) => {
    const { workspaceId, role: r } = membershipOf(request)
    const w = people.requireWorkspace(workspaceId)
    return { workspaceId, name: w.name, createdAt: isoTime(w.createdAt), role: r, permissions: permissionsOf(r) }
  })

  app.patch<{ Body: { name: string } }>(
    '/',
    { config: { access: 'administer' }, schema: { body: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['name'], additionalProperties: false } } },
    async (request) => {
      const w = people.renameWorkspace(membershipOf(request).workspaceId, request.body.name, actorOf(request))
      return { workspaceId: w.workspaceId, name: w.name }
    },
  )

  app.delete('/', { config: { access: 'administer' } }, async (request) => {
    const { workspaceId } = membershipOf(request)
    people.deleteWorkspace(workspaceId, actorOf(request))
    // API-dispatched agents are not tied to a client: stop them too.
    await Promise.all(agents.list(workspaceId, { live: true }).map((a) => agents.stop(workspaceId, a.agentId, 'workspace deleted')))
    return { workspaceId, deleted: true }
  })

  /** Any member may leave (the last admin may not). */
  app.post('/leave', { config: { access: 'read' }, schema: { body: emptyBody } }, async (request) => {
    const { workspaceId } = membershipOf(request)
    people.removeMember(workspaceId, signedInOf(request).user.userId, actorOf(request))
    return { workspaceId, left: true }
  })

  // ---- members and invitations ----

  app.get('/members', { config: { access: 'administer' } }, async (request) => ({
    members: storage.memberships.members(membershipOf(request).workspaceId).map((m) => ({
      userId: m.userId, email: m.email, name: m.name, role: m.role, disabled: m.disabled, joinedAt: isoTime(m.createdAt),
    })),
  }))

  app.patch<{ Params: { userId: string }; Body: { role: Role } }>(
    '/members/:userId',
    {
      config: { access: 'administer' },
      schema: { params: idParam('userId', '^usr_[0-9A-Za-z]{16}$'), body: { type: 'object', properties: { role }, required: ['role'], additionalProperties: false } },
    },
    async (request) => {
      const { workspaceId } = membershipOf(request)
      people.setRole(workspaceId, request.params.userId, request.body.role, actorOf(request))
      return { userId: request.params.userId, role: request.body.role }
    },
  )

  app.delete<{ Params: { userId: string } }>(
    '/members/:userId',
    { config: { access: 'administer' }, schema: { params: idParam('userId', '^usr_[0-9A-Za-z]{16}$') } },
    async (request) => {
      people.removeMember(membershipOf(request).workspaceId, request.params.userId, actorOf(request))
      return { userId: request.params.userId, removed: true }
    },
  )

  app.get('/invitations', { config: { access: 'administer' } }, async (request) => {
    const now = clock.now()
    return { invitations: storage.invitations.list(membershipOf(request).workspaceId).map((i) => invitationView(i, now)) }
  })

  app.post<{ Body: { email: string; role: Role } }>(
    '/invitations',
    {
      config: { access: 'administer' },
      schema: {
        body: { type: 'object', properties: { email: { type: 'string', minLength: 1, maxLength: 254 }, role }, required: ['email', 'role'], additionalProperties: false },
      },
    },
    async (request, reply) => {
      const { invitation, token } = people.invite(membershipOf(request).workspaceId, request.body, actorOf(request))
      // The link is shown to the admin to pass on (no mail server): this origin's invitation page.
      const link = `https://${request.headers.host}/invitations/${token}`
      return reply.code(201).send({ invitation: invitationView(invitation, clock.now()), link })
    },
  )

  app.delete<{ Params: { invitationId: string } }>(
    '/invitations/:invitationId',
    { config: { access: 'administer' }, schema: { params: idParam('invitationId', '^inv_[0-9A-Za-z]{16}$') } },
    async (request) => {
      people.revokeInvitation(membershipOf(request).workspaceId, request.params.invitationId, actorOf(request))
      return { invitationId: request.params.invitationId, revoked: true }
    },
  )

  // ---- API keys ----

  app.get('/api-keys', { config: { access: 'apiKeys' } }, async (request) => ({
    apiKeys: services.security.apiKeys.list(membershipOf(request).workspaceId).map(apiKeyView),
  }))

  app.post<{ Body: { name?: string | null } }>(
    '/api-keys',
    { config: { access: 'apiKeys' }, schema: { body: { type: 'object', properties: { name: { ...name, type: ['string', 'null'] } }, additionalProperties: false } } },
    async (request, reply) => {
      const k = createApiKey(services, membershipOf(request).workspaceId, request.body?.name ?? null, actorOf(request))
      // The only response that ever carries the key: it is stored as a hash.
      return reply.code(201).send({ apiKey: k.apiKey, key: apiKeyView(k.info) })
    },
  )

  app.delete<{ Params: { keyId: string } }>(
    '/api-keys/:keyId',
    { config: { access: 'apiKeys' }, schema: { params: idParam('keyId', '^key_[0-9A-Za-z]{16}$') } },
    async (request) => revokeApiKey(services, membershipOf(request).workspaceId, request.params.keyId, actorOf(request)),
  )

  // ---- signing secret ----

  const secretView = (workspaceId: string) => {
    const live = storage.signingSecrets.live(workspaceId, clock.now())
    return {
      graceSeconds: settings.security.secretGraceSeconds,
      current: live.filter((s) => s.retiresAt === null).map((s) => ({ kid: s.kid, createdAt: isoTime(s.createdAt) }))[0] ?? null,
      retiring: live.filter((s) => s.retiresAt !== null).map((s) => ({ kid: s.kid, createdAt: isoTime(s.createdAt), retiresAt: isoTime(s.retiresAt!) })),
    }
  }

  app.get('/signing-secret', { config: { access: 'administer' } }, async (request) => secretView(membershipOf(request).workspaceId))

  app.post('/signing-secret/rotate', { config: { access: 'administer' }, schema: { body: emptyBody } }, async (request) => {
    const { workspaceId } = membershipOf(request)
    rotateSigningSecret(services, workspaceId, actorOf(request))
    return secretView(workspaceId)
  })

  // ---- audit log ----

  app.get<{ Querystring: { before?: number; limit: number } }>(
    '/audit',
    {
      config: { access: 'administer' },
      schema: {
        querystring: {
          type: 'object',
          properties: { before: { type: 'integer', minimum: 1 }, limit: { type: 'integer', minimum: 1, maximum: AUDIT_PAGE_MAX, default: 50 } },
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const { before, limit } = request.query
      const rows = storage.auditEvents.ofWorkspace(membershipOf(request).workspaceId, { before, limit: limit + 1 })
      const events = rows.slice(0, limit).map(auditView)
      return { events, nextBefore: rows.length > limit ? events[events.length - 1]!.id : null }
    },
  )
}
