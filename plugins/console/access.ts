/**
 * Who may call what on the console's API, checked by the server on every request before its
 * body is read: the session cookie names the user; a change (POST, PUT, PATCH, DELETE) must come
 * from this origin (`Origin`, or `Sec-Fetch-Site: same-origin`) and, once signed in, carry the
 * session's CSRF token in `X-CSRF-Token`; a workspace route needs a membership of that workspace
 * (another workspace is a 404, as if it did not exist) whose role has the route's permission
 * (core/people/roles.ts), else 403. The page hiding a button is never what keeps a user out.
 */
import type {} from '@fastify/cookie' // request.cookies, reply.clearCookie
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CsrfRejected, Unauthenticated, WorkspaceNotFound, Forbidden } from '../../core/errors.js'
import { authorOf, type Actor } from '../../core/people/audit.js'
import type { ChangeAuthor } from '../../core/storage/changes.js'
import { allows, type Permission } from '../../core/people/roles.js'
import type { Role } from '../../core/storage/memberships.js'
import type { StorageShape } from '../../core/storage/storage.js'
import { SESSION_COOKIE, sameSecret, type ConsoleSessions, type SignedIn } from './sessions.js'

/** `public`: anyone; `user`: any signed-in user; a permission: a member of the route's workspace whose role has it. */
export type Access = 'public' | 'user' | Permission

export interface RouteAccess {
  readonly access?: Access
}

declare module 'fastify' {
  // Every console route says who may call it (`config: { access }`); without it, any signed-in user.
  interface FastifyContextConfig {
    access?: Access
  }
}

interface RequestState {
  signedIn: SignedIn | null
  membership: { readonly workspaceId: string; readonly role: Role } | null
}

const states = new WeakMap<FastifyRequest, RequestState>()

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
export const CSRF_HEADER = 'x-csrf-token'

const accessOf = (request: FastifyRequest): Access =>
  // Unknown paths (the not-found handler) need nothing: they answer 404 to anyone.
  request.is404 ? 'public' : ((request.routeOptions.config as RouteAccess | undefined)?.access ?? 'user')

/** The signed-in user of a request that passed a `user` or permission route's check. */
export const signedInOf = (request: FastifyRequest): SignedIn => {
  const s = states.get(request)?.signedIn
  if (!s) throw new Unauthenticated({ message: 'sign in first' })
  return s
}

/** The signed-in user, if any (public routes). */
export const maybeSignedIn = (request: FastifyRequest): SignedIn | null => states.get(request)?.signedIn ?? null

/** The caller's role in the route's workspace (permission routes only). */
export const membershipOf = (request: FastifyRequest): { workspaceId: string; role: Role } => {
  const m = states.get(request)?.membership
  if (!m) throw new Error('membershipOf called outside a workspace route')
  return m
}

/** The actor recorded in the audit log for this request. */
export const actorOf = (request: FastifyRequest): Actor => {
  const { user } = signedInOf(request)
  return { userId: user.userId, label: user.email, ip: request.ip }
}

/** Who makes the changes of this request, as the change feed records it. */
export const changeAuthorOf = (request: FastifyRequest): ChangeAuthor => authorOf(actorOf(request))

/** Changes must come from the console's own origin: a page elsewhere cannot make the browser send them. */
const checkOrigin = (request: FastifyRequest): void => {
  const origin = request.headers.origin
  if (origin !== undefined) {
    if (origin !== `https://${request.headers.host}`) throw new CsrfRejected({ message: 'cross-origin request refused' })
    return
  }
  const site = request.headers['sec-fetch-site']
  if (site !== 'same-origin') {
    throw new CsrfRejected({ message: 'a change must carry an Origin header naming this console (or Sec-Fetch-Site: same-origin)' })
  }
}

export const installAccess = (app: FastifyInstance, sessions: ConsoleSessions, storage: StorageShape): void => {
  app.addHook('onRequest', async (request, reply) => {
    const access = accessOf(request)
    const state: RequestState = { signedIn: null, membership: null }
    states.set(request, state)
    let failure: unknown = null
    try {
      state.signedIn = sessions.authenticate(request.cookies[SESSION_COOKIE])
    } catch (e) {
      failure = e
      // An ended session's cookie is removed, so the browser stops sending it.
      void reply.clearCookie(SESSION_COOKIE, sessions.cookieOptions())
    }
    const unsafe = UNSAFE.has(request.method)
    if (access !== 'public' && !state.signedIn) throw failure ?? new Unauthenticated({ message: 'sign in first' })
    if (unsafe) checkOrigin(request)
    if (!state.signedIn || access === 'public') return
    if (unsafe) {
      const token = request.headers[CSRF_HEADER]
      if (typeof token !== 'string' || !sameSecret(token, state.signedIn.session.csrfToken)) {
        throw new CsrfRejected({ message: `missing or wrong ${CSRF_HEADER} header` })
      }
    }
    if (access === 'user') return
    const workspaceId = (request.params as { workspaceId?: string }).workspaceId
    const membership = workspaceId === undefined ? null : storage.memberships.get(workspaceId, state.signedIn.user.userId)
    if (!membership || !storage.workspaces.get(membership.workspaceId)) {
      throw new WorkspaceNotFound({ message: `no workspace ${workspaceId ?? ''} of yours` })
    }
    if (!allows(membership.role, access)) {
      throw new Forbidden({ message: `your role (${membership.role}) does not allow this in workspace ${membership.workspaceId}` })
    }
    state.membership = { workspaceId: membership.workspaceId, role: membership.role }
  })
}
