/**
 * Client tokens over REST: issue one for a client, create an ephemeral client with its token in
 * one call, revoke one token by jti, or revoke every token of a client. Revocations reach live
 * sessions through the change log (`token.revoked`, `client.tokensRevoked`), which the terminal
 * hub applies by closing the sessions that used them.
 */
import type { FastifyInstance } from 'fastify'
import type { RestServices } from './services.js'
import { newEphemeralClientId } from '../../core/ids.js'
import type { ClientRecord } from '../../core/storage/clients.js'
import { principalOf } from './auth.js'
import { isoTime, isoTimeOrNull } from './clientView.js'
import { requireClient } from './clients.js'
import { bodyErrors, clientIdParams, errorResponses, jti, kind, room } from './schemas.js'

export const EPHEMERAL_TTL_DEFAULT_SECONDS = 3600

interface IdParams {
  id: string
}

/** A TTL that makes a token minted now (exp = floor(now/1000) + ttl) expire at `expiresAtMs`, at least 1 s. */
const ttlUntil = (expiresAtMs: number, now: number): number =>
  Math.max(1, Math.floor(expiresAtMs / 1000) - Math.floor(now / 1000))

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
  const { storage, security, clock, settings } = host
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
      const client = requireClient(host, workspaceId, request.params.id)
      let ttl = request.body?.ttlSeconds ?? null
      if (client.expiresAt !== null) {
        // An ephemeral client's token expires with the client at the latest.
        const left = ttlUntil(client.expiresAt, clock.now())
        ttl = ttl === null ? left : Math.min(ttl, left)
      }
      const t = await security.tokens.issue(workspaceId, client.clientId, ttl)
      return reply.code(201).send({ token: t.token, clientId: t.clientId, jti: t.jti, expiresAt: isoTimeOrNull(t.expiresAt) })
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
      const now = clock.now()
      // Whole seconds, like the token's exp claim, so both expire at the same instant.
      const expiresAt = (Math.floor(now / 1000) + ttl) * 1000
      const record: ClientRecord = {
        workspaceId, clientId: newEphemeralClientId(), name: null, kind: kindName ?? null, room: roomName,
        ephemeral: true, expiresAt, tokensNotBefore: now, createdAt: now, updatedAt: now,
      }
      storage.transaction(() => {
        storage.clients.insert(record)
        storage.recordChange('client.created', workspaceId, record.clientId, now)
      })
      const t = await security.tokens.issue(workspaceId, record.clientId, ttlUntil(expiresAt, clock.now()))
      return reply.code(201).send({ token: t.token, clientId: record.clientId, room: roomName, jti: t.jti, expiresAt: isoTime(expiresAt) })
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
      const r = security.tokens.revoke(workspaceId, request.body.jti)
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
    async (request) => {
      const { workspaceId } = principalOf(request)
      const client = requireClient(host, workspaceId, request.params.id)
      const notBefore = clock.now()
      storage.transaction(() => {
        storage.clients.revokeAllTokens(workspaceId, client.clientId, notBefore)
        // Tokens minted earlier in this same millisecond pass the not-before check: revoke them by jti.
        for (const jti of storage.issuedTokens.mintedSince(workspaceId, client.clientId, notBefore)) {
          security.tokens.revoke(workspaceId, jti)
        }
        storage.recordChange('client.tokensRevoked', workspaceId, client.clientId, notBefore)
      })
      return { clientId: client.clientId, tokensNotBefore: isoTime(notBefore) }
    },
  )
}
