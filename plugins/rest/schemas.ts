/**
 * JSON Schemas shared by the REST routes: identifier patterns, the client representation and
 * the error envelope. Request schemas are inlined into each route (they are validated by our
 * own Ajv, see core/httpApi/validation.ts); response schemas refer to the shared ones by `$id`, which the
 * OpenAPI document lists under components.schemas. spec/rest.md explains every rule here.
 */

import {
  ANY_CLIENT_ID_PATTERN,
  CLIENT_ID_PATTERN,
  JTI_PATTERN,
  KIND_PATTERN,
  NAME_PATTERN,
  ROOM_PATTERN,
} from '../../core/naming.js'

export { ANY_CLIENT_ID_PATTERN, CLIENT_ID_PATTERN, JTI_PATTERN, KIND_PATTERN, NAME_PATTERN, ROOM_PATTERN }

import { anyClientId, clientId, jti, kind, name, room } from '../../core/httpApi/fields.js'

export { anyClientId, clientId, jti, kind, name, room }

/** `{id}` in /clients/{id}… paths. */
export const clientIdParams = {
  type: 'object',
  properties: { id: anyClientId },
  required: ['id'],
  additionalProperties: false,
} as const

const isoOrNull = { type: ['string', 'null'], format: 'date-time' } as const

/** Shared response schemas, added to the REST scope with addSchema; routes use `{ $ref: '<id>#' }`. */
export const sharedSchemas = [
  {
    $id: 'Error',
    description: 'The error envelope of every failed call.',
    type: 'object',
    properties: {
      error: {
        type: 'object',
        properties: {
          message: { type: 'string', description: 'Human-readable; names the offending field on validation errors.' },
          code: { type: 'string', description: 'Stable machine-readable code (see spec/rest.md, Errors).' },
        },
        required: ['message', 'code'],
        additionalProperties: false,
      },
    },
    required: ['error'],
    additionalProperties: false,
  },
  {
    $id: 'Connection',
    description: 'The live session of an online client.',
    type: 'object',
    properties: {
      transport: { type: 'string', description: 'mqtt, websocket or webrtc.' },
      connectedAt: { type: 'string', format: 'date-time' },
      room: { type: ['string', 'null'], description: 'Room the session is in now (null while unmapped).' },
    },
    required: ['transport', 'connectedAt', 'room'],
    additionalProperties: false,
  },
  {
    $id: 'Client',
    description: 'A client (device, app or web page) with its room mapping and online state.',
    type: 'object',
    properties: {
      clientId: { type: 'string' },
      name: { type: ['string', 'null'] },
      kind: { type: ['string', 'null'] },
      room: { type: ['string', 'null'], description: 'The stored client-to-room mapping.' },
      ephemeral: { type: 'boolean' },
      expiresAt: { ...isoOrNull, description: 'When an ephemeral client is removed; null for regular clients.' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      status: { type: 'string', enum: ['online', 'offline'] },
      online: { type: 'boolean', description: 'Same as status = online.' },
      connection: {
        anyOf: [{ $ref: 'Connection#' }, { type: 'null' }],
        description: 'The live session while online, otherwise null.',
      },
    },
    required: [
      'clientId', 'name', 'kind', 'room', 'ephemeral', 'expiresAt', 'createdAt', 'updatedAt', 'status', 'online',
      'connection',
    ],
    additionalProperties: false,
  },
] as const

/** Error responses every /api/v1 route can give, plus the ones a route adds. */
const errorResponse = (description: string) => ({ description, $ref: 'Error#' })

const rateLimitHeaders = {
  'retry-after': { type: 'integer', description: 'Seconds to wait before retrying.' },
  'ratelimit-limit': { type: 'integer', description: 'Requests allowed per window (sent on every response).' },
  'ratelimit-remaining': { type: 'integer', description: 'Requests left in the window (sent on every response).' },
  'ratelimit-reset': { type: 'integer', description: 'Seconds until the window resets (sent on every response).' },
} as const

export const errorResponses = (...extra: Array<400 | 404 | 409 | 413 | 415 | 502 | 503>) => {
  const all: Record<number, { description: string; $ref: string; headers?: object }> = {
    401: errorResponse('Missing, malformed, unknown or revoked API key.'),
    429: {
      ...errorResponse('Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded.'),
      headers: rateLimitHeaders,
    },
    408: errorResponse('The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed.'),
    431: errorResponse('Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed.'),
    500: errorResponse('Internal error (no details are revealed).'),
    503: errorResponse(
      'server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff.',
    ),
  }
  const descriptions = {
    400: 'Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds.',
    404: 'No such resource in this workspace (another workspace’s resource looks exactly the same).',
    409: 'Conflict with the current state (for example a duplicate clientId).',
    413: 'Request body larger than rest.bodyLimitBytes.',
    415: 'A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body).',
    502: 'The agent provider failed to start the agent (the reason is in the message; no secrets).',
    503:
      'server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; ' +
      'nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and ' +
      'its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff.',
  } as const
  for (const status of extra) all[status] = errorResponse(descriptions[status])
  return all
}

/** Errors of a route that takes a JSON body. */
export const bodyErrors = [400, 413, 415] as const
