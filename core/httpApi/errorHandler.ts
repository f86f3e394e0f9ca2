/**
 * The one error handler of Hark's JSON APIs (the REST API and the console's): every failure — a domain error from core, a schema
 * violation, a body the parser refused, the rate limiter — leaves as the envelope
 * `{ "error": { "message", "code" } }` with the status of core/errors.ts's wire table.
 * Internal failures are logged and answered 500 without details.
 */
import type { ErrorObject } from 'ajv'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import {
  errorEnvelope,
  isHarkError,
  MalformedJson,
  NotFound,
  PayloadTooLarge,
  ProtocolError,
  UnsupportedMediaType,
  wireCodesOf,
} from '../errors.js'
import type { Logger } from '../log.js'
import { validationFailure } from './validation.js'

/** Translate what fastify throws into a domain error; anything unknown stays as it is (→ 500). */
export const toDomainError = (error: unknown): unknown => {
  if (isHarkError(error)) return error
  const e = error as Partial<FastifyError> & { validationContext?: string }
  if (Array.isArray(e.validation)) return validationFailure(e.validation as ErrorObject[], e.validationContext)
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaType({ message: 'request body must be application/json (UTF-8)' })
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLarge({ message: 'request body too large' })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new MalformedJson({ message: 'empty JSON body' })
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new MalformedJson({ message: 'malformed JSON body' })
    case 'FST_ERR_NOT_FOUND':
      return new NotFound({ message: 'no such endpoint' })
    default:
      break
  }
  // fastify's JSON parser throws a SyntaxError (or a prototype-poisoning error) with statusCode 400.
  if (error instanceof SyntaxError || /prototype/i.test(e.message ?? '')) {
    if (e.statusCode === 400) return new MalformedJson({ message: 'malformed JSON body' })
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ProtocolError({ message: `bad request (${e.code ?? e.statusCode})` })
  }
  return error
}

export const errorHandler =
  (log: Logger) =>
  (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const domain = toDomainError(error)
    const status = wireCodesOf(domain).http
    if (status >= 500) {
      // The route's pattern, not the URL: a path may hold a secret (an invitation link's token).
      log.error({ err: error, method: request.method, route: request.routeOptions.url ?? '(no route)' }, 'HTTP API request failed')
    }
    // A refusal that says when to come back (429, 503) says it in Retry-After too, unless a limiter already did.
    if (isHarkError(domain) && 'retryAfterSeconds' in domain && !reply.hasHeader('retry-after')) {
      void reply.header('retry-after', String(domain.retryAfterSeconds))
    }
    return reply.code(status).type('application/json; charset=utf-8').send(errorEnvelope(domain))
  }

