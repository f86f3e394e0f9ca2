/**
 * Hark's JSON APIs (REST, console) speak JSON in UTF-8 only: fastify's built-in text/plain parser is removed from the
 * scope (so such bodies get 415 like every other non-JSON type), a body sent without any
 * Content-Type — which fastify would silently ignore — is refused with 415 too, and so is
 * `application/json` with a charset other than UTF-8. A parsed body nesting objects and arrays
 * deeper than MAX_JSON_DEPTH levels is refused (400) before validation or any handler walks it.
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

export const installJsonOnly = (app: FastifyInstance): void => {
  app.removeContentTypeParser('text/plain')
  app.addHook('preParsing', async (request) => {
    const length = request.headers['content-length']
    const hasBody = request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
    if (!hasBody) return
    const contentType = request.headers['content-type']
    if (contentType === undefined) throw notJson()
    const charset = charsetOf(contentType)
    if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') throw notJson()
  })
  app.addHook('preValidation', async (request) => {
    if (exceedsJsonDepth(request.body)) {
      throw new ValidationFailed({ field: 'body', message: `body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels` })
    }
  })
}
