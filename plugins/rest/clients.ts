/**
 * /api/v1/clients: list (filters room, kind, status; cursor pagination ordered by clientId),
 * create, detail with online state, update (a room change reaches live sessions through the
 * change log: the terminal hub applies `client.updated`), delete (the hub closes live sessions
 * on `client.deleted`; the client's tokens stop working because admission loads the client).
 */
import type { FastifyInstance } from 'fastify'
import { ClientExists, ClientNotFound, StorageFailure } from '../../core/errors.js'
import type { RestServices } from './services.js'
import type { ClientPatch, ClientRecord } from '../../core/storage/clients.js'
import { isUniqueViolation } from '../../core/storage/db.js'
import { principalOf } from './auth.js'
import { CURSOR_PATTERN, decodeCursor, encodeCursor } from './clientCursor.js'
import { clientView, isLive } from './clientView.js'
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

const nullable = <S extends { type: string }>(s: S) => ({ ...s, type: [s.type, 'null'] })

/** The 404 of a client id; the same words whether the id exists in another workspace or nowhere. */
const missing = (id: string) => new ClientNotFound({ message: `no client ${id} in this workspace` })

/** Load a live client of the workspace or fail with that 404. */
export const requireClient = (host: RestServices, workspaceId: string, id: string): ClientRecord => {
  const client = host.storage.clients.get(workspaceId, id)
  if (!client || !isLive(client, host.clock.now())) throw missing(id)
  return client
}

export const clientRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  const { storage, presence, clock } = host

  /** One page of clients, in clientId order, after `after`; one extra row tells whether more exist. */
  const page = (workspaceId: string, q: ListQuery, after: string): ClientRecord[] => {
    const now = clock.now()
    const wanted = q.limit + 1
    const out: ClientRecord[] = []
    if (q.status === 'online') {
      // Online clients are few next to all clients: walk presence, not the table.
      const ids = presence.list(workspaceId).map((e) => e.clientId).filter((id) => id > after).sort()
      for (const id of ids) {
        const c = storage.clients.get(workspaceId, id)
        if (!c || !isLive(c, now) || (q.room && c.room !== q.room) || (q.kind && c.kind !== q.kind)) continue
        out.push(c)
        if (out.length === wanted) break
      }
      return out
    }
    let cursor = after
    for (;;) {
      const batch = storage.clients.list(workspaceId, {
        room: q.room ?? null, kind: q.kind ?? null, after: cursor, limit: wanted, activeAt: now,
      })
      for (const c of batch) {
        if (q.status === 'offline' && presence.isOnline(workspaceId, c.clientId)) continue
        out.push(c)
        if (out.length === wanted) return out
      }
      if (batch.length < wanted) return out
      cursor = batch[batch.length - 1]!.clientId
    }
  }

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
      const rows = page(workspaceId, q, q.cursor === undefined ? '' : decodeCursor(q.cursor))
      const more = rows.length > q.limit
      const clients = (more ? rows.slice(0, q.limit) : rows).map((c) => clientView(c, presence))
      return { clients, nextCursor: more ? encodeCursor(clients[clients.length - 1]!.clientId) : null }
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
      const b = request.body
      const now = clock.now()
      const record: ClientRecord = {
        workspaceId, clientId: b.clientId, name: b.name ?? null, kind: b.kind ?? null, room: b.room ?? null,
        ephemeral: false, expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
      }
      try {
        storage.transaction(() => {
          storage.clients.insert(record)
          storage.recordChange('client.created', workspaceId, record.clientId, now)
        })
      } catch (e) {
        if (e instanceof StorageFailure && isUniqueViolation(e.cause)) {
          throw new ClientExists({ message: `client ${record.clientId} already exists in this workspace` })
        }
        throw e
      }
      return reply.code(201).send(clientView(record, presence))
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
      const id = request.params.id
      const now = clock.now()
      const updated = storage.transaction(() => {
        const current = storage.clients.get(workspaceId, id)
        if (!current || !isLive(current, now)) throw missing(id)
        const { name: n, kind: k, room: r } = request.body
        const record = storage.clients.update(workspaceId, id, { name: n, kind: k, room: r }, now)
        if (!record) throw missing(id)
        storage.recordChange('client.updated', workspaceId, id, now)
        return record
      })
      return clientView(updated, presence)
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
    async (request) => {
      const { workspaceId } = principalOf(request)
      const id = request.params.id
      const now = clock.now()
      storage.transaction(() => {
        const current = storage.clients.get(workspaceId, id)
        if (!current || !isLive(current, now) || !storage.clients.delete(workspaceId, id)) throw missing(id)
        storage.recordChange('client.deleted', workspaceId, id, now)
      })
      return { clientId: id, deleted: true }
    },
  )
}
