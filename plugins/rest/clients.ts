/**
 * /api/v1/clients: list (filters room, kind, status; cursor pagination ordered by clientId),
 * create, detail with online state, update (a room change reaches live sessions through the
 * change log: the terminal hub applies `client.updated`), delete (the hub closes live sessions
 * on `client.deleted`; the client's tokens stop working because admission loads the client).
 */
import type { FastifyInstance } from 'fastify'
import type { RestServices } from './services.js'
import { createClient, deleteClient, listClients, requireClient, updateClient } from '../../core/operations/clients.js'
import { clientView } from '../../core/operations/views.js'
import type { ClientPatch } from '../../core/storage/clients.js'
import { authorOf, principalOf } from './auth.js'
import { CURSOR_PATTERN, decodeCursor, encodeCursor } from './clientCursor.js'
import { nullable } from '../../core/httpApi/fields.js'
import { bodyErrors, clientId, clientIdParams, errorResponses, kind, name, room } from './schemas.js'

export const LIST_LIMIT_DEFAULT = 50
export const LIST_LIMIT_MAX = 200

interface ListQuery {
  room?: string
  kind?: string
  status?: 'online' | 'offline'
  limit: number
  cursor?: string
}
interface CreateBody {
  clientId: string
  name?: string
  kind?: string
  room?: string
}
interface IdParams {
  id: string
}
type UpdateBody = ClientPatch

export const clientRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  const { presence } = host

  app.get<{ Querystring: ListQuery }>(
    '/clients',
    {
      schema: {
        operationId: 'listClients',
        summary: 'List clients',
        description:
          'Clients of the workspace in ascending clientId order. Filters combine with AND. ' +
          'Pass nextCursor back as cursor for the next page; it is null on the last page.',
        tags: ['clients'],
        querystring: {
          type: 'object',
          properties: {
            room: { ...room, description: 'Only clients mapped to this room.' },
            kind: { ...kind, description: 'Only clients of this kind.' },
            status: { type: 'string', enum: ['online', 'offline'], description: 'Only clients online (or offline) now.' },
            limit: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT },
            cursor: { type: 'string', pattern: CURSOR_PATTERN, description: 'nextCursor of the previous page.' },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'A page of clients.',
            type: 'object',
            properties: {
              clients: { type: 'array', items: { $ref: 'Client#' } },
              nextCursor: { type: ['string', 'null'] },
            },
            required: ['clients', 'nextCursor'],
            additionalProperties: false,
          },
          ...errorResponses(400),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const q = request.query
      const page = listClients(host, workspaceId, q, q.cursor === undefined ? '' : decodeCursor(q.cursor))
      const clients = page.clients.map((c) => clientView(c, presence))
      return { clients, nextCursor: page.more ? encodeCursor(clients[clients.length - 1]!.clientId) : null }
    },
  )

  app.post<{ Body: CreateBody }>(
    '/clients',
    {
      schema: {
        operationId: 'createClient',
        summary: 'Create a client',
        description: 'Creates a client. Tokens can be issued for it right away; none issued before it existed work.',
        tags: ['clients'],
        body: {
          type: 'object',
          properties: { clientId, name, kind, room },
          required: ['clientId'],
          additionalProperties: false,
        },
        response: { 201: { description: 'The created client.', $ref: 'Client#' }, ...errorResponses(...bodyErrors, 409) },
      },
    },
    async (request, reply) => {
      const { workspaceId } = principalOf(request)
      return reply.code(201).send(clientView(createClient(host, workspaceId, request.body, authorOf(request)), presence))
    },
  )

  app.get<{ Params: IdParams }>(
    '/clients/:id',
    {
      schema: {
        operationId: 'getClient',
        summary: 'Client detail with online state',
        tags: ['clients'],
        params: clientIdParams,
        response: { 200: { description: 'The client.', $ref: 'Client#' }, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      return clientView(requireClient(host, workspaceId, request.params.id), presence)
    },
  )

  app.patch<{ Params: IdParams; Body: UpdateBody }>(
    '/clients/:id',
    {
      schema: {
        operationId: 'updateClient',
        summary: 'Update a client',
        description:
          'Sets name, kind and/or room; null clears a field. A room change moves a connected client to the new ' +
          'room at once (or out of every room when cleared).',
        tags: ['clients'],
        params: clientIdParams,
        body: {
          type: 'object',
          properties: { name: nullable(name), kind: nullable(kind), room: nullable(room) },
          minProperties: 1,
          additionalProperties: false,
        },
        response: { 200: { description: 'The updated client.', $ref: 'Client#' }, ...errorResponses(...bodyErrors, 404) },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      return clientView(updateClient(host, workspaceId, request.params.id, request.body, authorOf(request)), presence)
    },
  )

  app.delete<{ Params: IdParams }>(
    '/clients/:id',
    {
      schema: {
        operationId: 'deleteClient',
        summary: 'Delete a client',
        description: 'Removes the client; its live session ends and its tokens and device password stop working.',
        tags: ['clients'],
        params: clientIdParams,
        response: {
          200: {
            description: 'Deletion result.',
            type: 'object',
            properties: { clientId: { type: 'string' }, deleted: { type: 'boolean', const: true } },
            required: ['clientId', 'deleted'],
            additionalProperties: false,
          },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => deleteClient(host, principalOf(request).workspaceId, request.params.id, authorOf(request)),
  )
}
