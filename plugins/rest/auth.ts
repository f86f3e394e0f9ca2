/**
 * API-key authentication of /api/v1 calls: `Authorization: Bearer <API_KEY>` names the workspace.
 * The check runs first (onRequest) but its refusal is raised only after the rate limiter has
 * counted the request, so unauthenticated floods are limited per IP before any body is read.
 * core's ApiKeys caches valid keys and batches lastUsedAt; nothing here touches disk per call.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ApiScope, ChangeAuthor, SecurityShape } from '../../core/extension.js'
import type { ApiKeyPrincipal } from '../../core/security/apiKeys.js'
import { bodyErrors, errorResponses } from './schemas.js'

const principals = new WeakMap<FastifyRequest, ApiKeyPrincipal>()
const failures = new WeakMap<FastifyRequest, Error>()

/** Routes with `config: { public: true }` (the OpenAPI document) take no API key. */
export interface RouteAuthConfig {
  readonly public?: boolean
}

export const isPublicRoute = (request: FastifyRequest): boolean =>
  (request.routeOptions.config as RouteAuthConfig | undefined)?.public === true

/** The authenticated principal of a request; only called by handlers of non-public routes. */
export const principalOf = (request: FastifyRequest): ApiKeyPrincipal => {
  const principal = principals.get(request)
  if (!principal) throw new Error('principalOf called on an unauthenticated request')
  return principal
}

/** Who makes the changes of an authenticated request: its API key. */
export const authorOf = (request: FastifyRequest): ChangeAuthor => ({ type: 'apiKey', keyId: principalOf(request).keyId })

/** What a resource other plugins add to the API is told (core/apiRoutes.ts): the caller, the error responses. */
export const apiScope: ApiScope = {
  caller: (request) => ({ workspaceId: principalOf(request).workspaceId, author: authorOf(request) }),
  errorResponses,
  bodyErrors,
}

/** Workspace of an authenticated request, or null (the rate limiter then keys by IP). */
export const workspaceOf = (request: FastifyRequest): string | null => principals.get(request)?.workspaceId ?? null

/** Install the two hooks on a scope; the rate limiter must be registered between them (it runs on onRequest). */
export const installAuth = (app: FastifyInstance, security: SecurityShape): void => {
  // Callback hooks: an async one costs a promise and a microtask turn on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!isPublicRoute(request)) {
      try {
        principals.set(request, security.apiKeys.authenticate(request.headers.authorization))
      } catch (e) {
        failures.set(request, e instanceof Error ? e : new Error(String(e)))
      }
    }
    done()
  })
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const failure = failures.get(request)
    if (failure !== undefined) done(failure)
    else done(null, payload)
  })
}
