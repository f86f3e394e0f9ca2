/**
 * The EnginePlugin contract: server-side features that are neither transports nor agents —
 * the REST API, a console, an exporter. A plugin may add routes to the REST-port HTTP server.
 */
import type { FastifyInstance } from 'fastify'

export interface EnginePlugin {
  /** Add routes to the REST-port server (fastify, encapsulated per plugin) before it listens. */
  register?(app: FastifyInstance): Promise<void> | void
  /** Called after every listener is up. */
  start?(): Promise<void> | void
  /** Called at shutdown, before storage closes. */
  stop?(): Promise<void> | void
}
