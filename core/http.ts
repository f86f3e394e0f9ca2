/**
 * The REST-port HTTP server (fastify): /healthz and /metrics here, every plugin's routes
 * registered beside them in their own encapsulated scope.
 */
import { fastify, type FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import type { Settings } from './config.js'

export const createHttpServer = (settings: Settings, metrics: Registry, isReady: () => boolean): FastifyInstance => {
  const app = fastify({
    logger: false,
    bodyLimit: settings.rest.bodyLimitBytes,
    // Keep-alive sockets must not hold shutdown past the 5 s budget.
    forceCloseConnections: true,
    return503OnClosing: true,
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
