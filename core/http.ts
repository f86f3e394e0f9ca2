/**
 * The REST-port HTTP server (fastify): /healthz and /metrics here, every plugin's routes
 * registered beside them in their own encapsulated scope.
 */
import { fastify, type FastifyInstance, type FastifyReply } from 'fastify'
import type { Registry } from 'prom-client'
import type { Settings } from './config.js'
import { errorEnvelope, NotFound, ValidationFailed } from './errors.js'

export const createHttpServer = (settings: Settings, metrics: Registry, isReady: () => boolean): FastifyInstance => {
  const app = fastify({
    logger: false,
    bodyLimit: settings.rest.bodyLimitBytes,
    // Keep-alive sockets must not hold shutdown past the 5 s budget.
    forceCloseConnections: true,
    return503OnClosing: true,
    // Path ids may be up to 128 characters; routes check the exact bounds and answer 400.
    routerOptions: { maxParamLength: 1024 },
    // A URL the router cannot even decode (bad percent-encoding) gets the error envelope too.
    frameworkErrors: (error, _req, reply: FastifyReply) => {
      const failure = new ValidationFailed({ field: 'url', message: `malformed request URL (${error.code})` })
      void reply.code(400).send(errorEnvelope(failure))
    },
  })
  // Plugins set their own handler under their prefix; everything else gets the same envelope.
  app.setNotFoundHandler((_req, reply) => {
    void reply.code(404).send(errorEnvelope(new NotFound({ message: 'no such endpoint' })))
  })
  app.get('/healthz', async (_req, reply) => {
    const ready = isReady()
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable' })
  })
  app.get('/metrics', async (_req, reply) => {
    return reply.type(metrics.contentType).send(await metrics.metrics())
  })
  return app
}
