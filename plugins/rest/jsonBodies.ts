/**
 * The REST API speaks JSON only: fastify's built-in text/plain parser is removed from the scope
 * (so such bodies get 415 like every other non-JSON type), and a body sent without any
 * Content-Type — which fastify would silently ignore — is refused with 415 too.
 */
import type { FastifyInstance } from 'fastify'
import { UnsupportedMediaType } from '../../core/errors.js'

export const installJsonOnly = (app: FastifyInstance): void => {
  app.removeContentTypeParser('text/plain')
  app.addHook('preParsing', async (request) => {
    if (request.headers['content-type'] !== undefined) return
    const length = request.headers['content-length']
    const hasBody = request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
    if (hasBody) throw new UnsupportedMediaType({ message: 'request body must be application/json' })
  })
}
