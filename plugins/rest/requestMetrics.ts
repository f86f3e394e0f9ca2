/** Prometheus counter of REST calls by route template, method and status (on the engine's registry). */
import type { FastifyInstance } from 'fastify'
import { Counter, type Registry } from 'prom-client'

export const installRequestMetrics = (app: FastifyInstance, registry: Registry): void => {
  const requests = new Counter({
    name: 'hark_rest_requests_total',
    help: 'REST API calls answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  })
  // A callback hook: an async one costs a promise and a microtask turn on every request.
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label value so arbitrary paths cannot grow the series count.
    const route = request.routeOptions.url ?? 'unmatched'
    requests.inc({ route, method: request.method, status: String(reply.statusCode) })
    done()
  })
}
