/**
 * Client tokens over REST: issue one for a client, create an ephemeral client with its token in
 * one call, revoke one token by jti, or revoke every token of a client. Revocations reach live
 * sessions through the change log (`token.revoked`, `client.tokensRevoked`), which the terminal
 * hub applies by closing the sessions that used them.
 */
import type { FastifyInstance } from 'fastify'
import type { RestServices } from './services.js'
import {
  createEphemeralClient,
  EPHEMERAL_TTL_DEFAULT_SECONDS,
  issueClientToken,
  revokeAllClientTokens,
} from '../../core/operations/tokens.js'
import { authorOf, principalOf } from './auth.js'
import { bodyErrors, clientIdParams, errorResponses, jti, kind, room } from './schemas.js'

export { EPHEMERAL_TTL_DEFAULT_SECONDS }

interface IdParams {
  id: string
}

const tokenProperties = {
  token: { type: 'string', description: 'The client token (HS256 JWT).' },
  clientId: { type: 'string' },
  jti: { type: 'string', description: 'Token id, for POST /api/v1/tokens/revoke.' },
  expiresAt: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'Expiry as ISO-8601 UTC (whole seconds, equal to the exp claim); null for a long-lived token.',
  },
} as const

export const tokenRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  const { security, settings } = host
  const maxTtl = settings.security.maxTokenTtlSeconds
  const ttlSeconds = (description: string) =>
    ({ type: 'integer', minimum: 1, maximum: maxTtl, description }) as const

  app.post<{ Params: IdParams; Body: { ttlSeconds?: number } | undefined }>(
    '/clients/:id/token',
    {
      schema: {
        operationId: 'issueClientToken',
        summary: 'Issue a client token',
        description:
          'A token for the client named in the path, usable on MQTT, WSS and WebRTC. Without ttlSeconds it is ' +
          'long-lived (no exp). The body may be omitted. For an ephemeral client the token never outlives the client.',
        tags: ['tokens'],
        params: clientIdParams,
        body: {
          type: 'object',
          properties: { ttlSeconds: ttlSeconds('Lifetime in seconds; omit for a long-lived token.') },
          additionalProperties: false,
        },
        response: {
          201: {
            description: 'The token.',
            type: 'object',
            properties: tokenProperties,
            required: ['token', 'clientId', 'jti', 'expiresAt'],
            additionalProperties: false,
          },
          ...errorResponses(...bodyErrors, 404),
        },
      },
    },
    async (request, reply) => {
      const { workspaceId } = principalOf(request)
      return reply.code(201).send(await issueClientToken(host, workspaceId, request.params.id, request.body?.ttlSeconds ?? null))
    },
  )

  app.post<{ Body: { room: string; kind?: string; ttlSeconds: number } }>(
    '/clients/ephemeral',
    {
      schema: {
        operationId: 'createEphemeralClient',
        summary: 'Create an ephemeral client and its token',
        description:
          'Creates a temporary client (clientId eph_…) bound to the room and returns its token. The client is ' +
          'removed, and a connected terminal disconnected, once expiresAt has passed.',
        tags: ['tokens'],
        body: {
          type: 'object',
          properties: {
            room,
            kind,
            ttlSeconds: { ...ttlSeconds('Lifetime of the client and its token.'), default: Math.min(EPHEMERAL_TTL_DEFAULT_SECONDS, maxTtl) },
          },
          required: ['room'],
          additionalProperties: false,
        },
        response: {
          201: {
            description: 'The ephemeral client’s token.',
            type: 'object',
            properties: {
              ...tokenProperties,
              room: { type: 'string' },
              expiresAt: { type: 'string', format: 'date-time', description: 'When the client and its token expire.' },
            },
            required: ['token', 'clientId', 'room', 'jti', 'expiresAt'],
            additionalProperties: false,
          },
          ...errorResponses(...bodyErrors),
        },
      },
    },
    async (request, reply) => {
      const { workspaceId } = principalOf(request)
      const { room: roomName, kind: kindName, ttlSeconds: ttl } = request.body
      return reply.code(201).send(await createEphemeralClient(host, workspaceId, { room: roomName, kind: kindName ?? null, ttlSeconds: ttl }, authorOf(request)))
    },
  )

  app.post<{ Body: { jti: string } }>(
    '/tokens/revoke',
    {
      schema: {
        operationId: 'revokeToken',
        summary: 'Revoke one token by its jti',
        description:
          'The token stops working at once and live sessions that connected with it are closed. Revoking a ' +
          'revoked token again succeeds. A jti that is not one of this workspace’s tokens is 404.',
        tags: ['tokens'],
        body: { type: 'object', properties: { jti }, required: ['jti'], additionalProperties: false },
        response: {
          200: {
            description: 'The token is revoked.',
            type: 'object',
            properties: { jti: { type: 'string' }, clientId: { type: 'string' }, revoked: { type: 'boolean', const: true } },
            required: ['jti', 'clientId', 'revoked'],
            additionalProperties: false,
          },
          ...errorResponses(...bodyErrors, 404),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const r = security.tokens.revoke(workspaceId, request.body.jti, authorOf(request))
      return { jti: r.jti, clientId: r.clientId, revoked: true }
    },
  )

  app.post<{ Params: IdParams }>(
    '/clients/:id/token/revoke-all',
    {
      schema: {
        operationId: 'revokeAllClientTokens',
        summary: 'Revoke every token of a client',
        description:
          'Every token issued for the client up to and including this instant stops working and its live ' +
          'token session is closed; tokens issued afterwards work. The device password is not affected.',
        tags: ['tokens'],
        params: clientIdParams,
        body: { type: 'object', properties: {}, additionalProperties: false, description: 'No fields; may be omitted.' },
        response: {
          200: {
            description: 'Tokens issued before tokensNotBefore are revoked.',
            type: 'object',
            properties: {
              clientId: { type: 'string' },
              tokensNotBefore: { type: 'string', format: 'date-time' },
            },
            required: ['clientId', 'tokensNotBefore'],
            additionalProperties: false,
          },
          ...errorResponses(...bodyErrors, 404),
        },
      },
    },
    async (request) => revokeAllClientTokens(host, principalOf(request).workspaceId, request.params.id, authorOf(request)),
  )
}
