/**
 * Clients in the console: the same core operations as /api/v1/clients (core/operations), behind the
 * session and the role table — list with filters and online state, create, read, edit (a room
 * change moves a live terminal), delete, issue a token, revoke every token, an ephemeral client,
 * and the device password: revealed (generated on the first reveal) or reset, both audited.
 */
import type { FastifyInstance } from 'fastify'
import { anyClientId, clientId, kind, name, nullable, room } from '../../../core/httpApi/fields.js'
import { createClient, deleteClient, listClients, requireClient, updateClient } from '../../../core/operations/clients.js'
import { resetDevicePassword, revealDevicePassword } from '../../../core/operations/credentials.js'
import { createEphemeralClient, EPHEMERAL_TTL_DEFAULT_SECONDS, issueClientToken, revokeAllClientTokens } from '../../../core/operations/tokens.js'
import { clientView } from '../../../core/operations/views.js'
import type { ClientPatch } from '../../../core/storage/clients.js'
import { actorOf, changeAuthorOf, membershipOf } from '../access.js'
import type { ConsoleServices } from '../services.js'

export const CLIENT_PAGE_MAX = 500

const clientParams = {
  type: 'object',
  properties: { workspaceId: { type: 'string' }, clientId: anyClientId },
  required: ['workspaceId', 'clientId'],
  additionalProperties: false,
} as const
const emptyBody = { type: 'object', additionalProperties: false } as const

interface ClientParams {
  workspaceId: string
  clientId: string
}

export const clientRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const { presence, settings } = services
  const ttlSeconds = { type: 'integer', minimum: 1, maximum: settings.security.maxTokenTtlSeconds } as const

  app.get<{ Querystring: { room?: string; kind?: string; status?: 'online' | 'offline'; limit: number; after?: string } }>(
    '/clients',
    {
      config: { access: 'read' },
      schema: {
        querystring: {
          type: 'object',
          properties: {
            room,
            kind,
            status: { type: 'string', enum: ['online', 'offline'] },
            limit: { type: 'integer', minimum: 1, maximum: CLIENT_PAGE_MAX, default: 100 },
            after: anyClientId,
          },
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const { workspaceId } = membershipOf(request)
      const page = listClients(services, workspaceId, request.query, request.query.after ?? '')
      const clients = page.clients.map((c) => clientView(c, presence))
      return { clients, nextAfter: page.more ? clients[clients.length - 1]!.clientId : null }
    },
  )

  app.post<{ Body: { clientId: string; name?: string; kind?: string; room?: string } }>(
    '/clients',
    {
      config: { access: 'operate' },
      schema: { body: { type: 'object', properties: { clientId, name, kind, room }, required: ['clientId'], additionalProperties: false } },
    },
    async (request, reply) => reply.code(201).send(clientView(createClient(services, membershipOf(request).workspaceId, request.body, changeAuthorOf(request)), presence)),
  )

  app.post<{ Body: { room: string; kind?: string; ttlSeconds: number } }>(
    '/clients/ephemeral',
    {
      config: { access: 'operate' },
      schema: {
        body: {
          type: 'object',
          properties: { room, kind, ttlSeconds: { ...ttlSeconds, default: Math.min(EPHEMERAL_TTL_DEFAULT_SECONDS, settings.security.maxTokenTtlSeconds) } },
          required: ['room'],
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await createEphemeralClient(services, membershipOf(request).workspaceId, request.body, changeAuthorOf(request))),
  )

  app.get<{ Params: ClientParams }>('/clients/:clientId', { config: { access: 'read' }, schema: { params: clientParams } }, async (request) =>
    clientView(requireClient(services, membershipOf(request).workspaceId, request.params.clientId), presence))

  app.patch<{ Params: ClientParams; Body: ClientPatch }>(
    '/clients/:clientId',
    {
      config: { access: 'operate' },
      schema: {
        params: clientParams,
        body: { type: 'object', properties: { name: nullable(name), kind: nullable(kind), room: nullable(room) }, minProperties: 1, additionalProperties: false },
      },
    },
    async (request) => clientView(updateClient(services, membershipOf(request).workspaceId, request.params.clientId, request.body, changeAuthorOf(request)), presence),
  )

  app.delete<{ Params: ClientParams }>('/clients/:clientId', { config: { access: 'operate' }, schema: { params: clientParams } }, async (request) =>
    deleteClient(services, membershipOf(request).workspaceId, request.params.clientId, changeAuthorOf(request)))

  app.post<{ Params: ClientParams; Body: { ttlSeconds?: number } | undefined }>(
    '/clients/:clientId/token',
    { config: { access: 'operate' }, schema: { params: clientParams, body: { type: 'object', properties: { ttlSeconds }, additionalProperties: false } } },
    async (request, reply) =>
      reply.code(201).send(await issueClientToken(services, membershipOf(request).workspaceId, request.params.clientId, request.body?.ttlSeconds ?? null)),
  )

  app.post<{ Params: ClientParams }>(
    '/clients/:clientId/token/revoke-all',
    { config: { access: 'operate' }, schema: { params: clientParams, body: emptyBody } },
    async (request) => revokeAllClientTokens(services, membershipOf(request).workspaceId, request.params.clientId, changeAuthorOf(request)),
  )

  app.post<{ Params: ClientParams }>(
    '/clients/:clientId/device-password/reveal',
    { config: { access: 'devicePasswords' }, schema: { params: clientParams, body: emptyBody } },
    async (request) => revealDevicePassword(services, membershipOf(request).workspaceId, request.params.clientId, actorOf(request), { generate: true }),
  )

  app.post<{ Params: ClientParams }>(
    '/clients/:clientId/device-password/reset',
    { config: { access: 'devicePasswords' }, schema: { params: clientParams, body: emptyBody } },
    async (request) => resetDevicePassword(services, membershipOf(request).workspaceId, request.params.clientId, actorOf(request)),
  )
}
