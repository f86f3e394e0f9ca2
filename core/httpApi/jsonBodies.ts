/**
 * Hark's JSON APIs (REST, console) speak JSON in UTF-8 only: fastify's built-in text/plain parser is removed from the
 * scope (so such bodies get 415 like every other non-JSON type), a body sent without any
 * Content-Type — which fastify would silently ignore — is refused with 415 too, and so is
 * `application/json` with a charset other than UTF-8. An empty body (Content-Length: 0, or chunked
 * with no data) is no body, whatever its Content-Type says: many clients send
 * `Content-Type: application/json` on every request, a DELETE included, and the route then sees
 * what it would without the header (an optional body absent, a required one reported missing by
 * name). A parsed body nesting objects and arrays deeper than MAX_JSON_DEPTH levels is refused
 * (400) before validation or any handler walks it.
 */
import type { FastifyInstance } from 'fastify'
import { UnsupportedMediaType, ValidationFailed } from '../errors.js'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../jsonDepth.js'

const notJson = () => new UnsupportedMediaType({ message: 'request body must be application/json (UTF-8)' })

/** The charset parameter of a Content-Type value, lower-cased and unquoted, or null. */
const charsetOf = (contentType: string): string | null => {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType)
  return match ? match[2]!.toLowerCase() : null
}

const JSON_TYPE = /^\s*application\/json\s*(;|$)/i

/** No charset parameter, or UTF-8. */
const isUtf8 = (contentType: string | undefined): boolean => {
  const charset = contentType === undefined ? null : charsetOf(contentType)
  return charset === null || charset === 'utf-8' || charset === 'utf8'
}

/** JSON in UTF-8; the last answer is kept, as a client sends the same Content-Type on every call. */
let lastType: string | null = null
let lastTypeIsJson = false
const isUtf8Json = (contentType: string): boolean => {
  if (contentType !== lastType) {
    lastTypeIsJson = JSON_TYPE.test(contentType) && isUtf8(contentType)
    lastType = contentType
  }
  return lastTypeIsJson
}

export const installJsonOnly = (app: FastifyInstance): void => {
  app.removeContentTypeParser('text/plain')
  // fastify's own JSON parser (its prototype-poisoning checks included), but zero bytes are no body, not an error.
  const parseJson = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined)
    // Checked here too for a chunked body, whose emptiness preParsing cannot know.
    if (!isUtf8(request.headers['content-type'])) return done(notJson(), undefined)
    parseJson(request, body as string, done)
  })
  // Any other type, or none (a chunked body without Content-Type): read, and only an empty one passes.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if (body.length === 0) done(null, undefined)
    else done(notJson(), undefined)
  })
  // Callback hooks: an async one costs a promise and a microtask turn on every request.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const length = request.headers['content-length']
    // A body of known, non-zero length is refused by its headers alone, before a byte of it is read.
    const contentType = request.headers['content-type']
    if (length !== undefined && Number(length) !== 0 && (contentType === undefined || !isUtf8Json(contentType))) done(notJson())
    else done(null, payload)
  })
  app.addHook('preValidation', (request, _reply, done) => {
    if (exceedsJsonDepth(request.body)) {
      done(new ValidationFailed({ field: 'body', message: `body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels` }))
    } else done()
  })
}
