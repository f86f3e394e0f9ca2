/**
 * The console's HTTPS server (fastify, the engine's certificate, its own port): the single-page
 * app's bundle at `/` (built by `npm run build` into dist/plugins/console/bundle, served with
 * @fastify/static; any other page path gets index.html, the app routes itself), and its JSON API
 * under `/api` behind the session (access.ts). Errors are the same envelope as the REST API's.
 */
import { existsSync } from 'node:fs'
import { createServer } from 'node:https'
import { fileURLToPath } from 'node:url'
import cookie from '@fastify/cookie'
import fastifyStatic from '@fastify/static'
import { fastify, type FastifyInstance } from 'fastify'
import { errorEnvelope, NotFound } from '../../core/errors.js'
import { errorHandler } from '../../core/httpApi/errorHandler.js'
import { installJsonOnly } from '../../core/httpApi/jsonBodies.js'
import { lazySerializers, warmSchemaCompilers } from '../../core/httpApi/lazySchemas.js'
import { validatorCompiler } from '../../core/httpApi/validation.js'
import { installAccess, type Access } from './access.js'
import { accountRoutes } from './api/account.js'
import { clientRoutes } from './api/clients.js'
import { deviceRoutes } from './api/devices.js'
import { eventRoutes } from './api/events.js'
import { recordingRoutes } from './api/recordings.js'
import { roomRoutes } from './api/rooms.js'
import { transcriptRoutes } from './api/transcripts.js'
import { usageRoutes } from './api/usage.js'
import { webhookRoutes } from './api/webhooks.js'
import { workspaceRoutes } from './api/workspace.js'
import { contentSecurityPolicy, SECURITY_HEADERS } from './headers.js'
import type { ConsoleServices } from './services.js'

export const API_PREFIX = '/api'
export const WORKSPACE_PREFIX = '/api/workspaces/:workspaceId'

/** One route of the console API and who may call it (the role-table test walks this list). */
export interface ConsoleRoute {
  readonly method: string
  readonly url: string
  readonly access: Access
}

/**
 * Where the built app is: beside the compiled server (dist/plugins/console/bundle), or, when the
 * server runs from its TypeScript sources (tests), in the repository's dist.
 */
export const bundleDir = (): string | null => {
  for (const candidate of ['./bundle/', '../../dist/plugins/console/bundle/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url))
    if (existsSync(`${dir}index.html`)) return dir
  }
  return null
}

/** A Host name safe to write into a header (a name or an IP literal), else null. */
const safeHostname = (hostname: string): string | null => (/^([A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])$/.test(hostname) ? hostname : null)

export const createConsoleServer = async (services: ConsoleServices): Promise<{ app: FastifyInstance; routes: ConsoleRoute[] }> => {
  const { tls } = services
  const { headersTimeoutMs } = services.console
  warmSchemaCompilers()
  const app = fastify({
    // An HTTPS server under fastify's default (HTTP/1.1) types: the route modules are plain FastifyInstances.
    serverFactory: (handler) => {
      const server = createServer(
        {
          cert: tls.cert,
          key: tls.key,
          // A socket that never sends a ClientHello is held 120 s by default: bound it as every listener is (README, Ports).
          handshakeTimeout: headersTimeoutMs,
          // Node looks for late heads every 30 s by default, which held a silent connection 10–40 s.
          connectionsCheckingInterval: Math.min(1000, Math.floor(headersTimeoutMs / 2)),
        },
        handler,
      )
      server.headersTimeout = headersTimeoutMs
      server.requestTimeout = 30_000
      return server as unknown as import('node:http').Server
    },
    logger: false,
    bodyLimit: 64 * 1024,
    // Response serializers built on their first use, not at start (core/httpApi/lazySchemas.ts).
    schemaController: lazySerializers,
    // Server-sent-event streams stay open; heartbeats (api/events.ts) keep them under this.
    connectionTimeout: 120_000,
    keepAliveTimeout: 5000,
    requestTimeout: 30_000,
    routerOptions: { maxParamLength: 256 },
  })
  const routes: ConsoleRoute[] = []
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(API_PREFIX)) return
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue
      routes.push({ method, url: route.url, access: route.config?.access ?? 'user' })
    }
  })
  app.addHook('onSend', async (request, reply) => {
    reply.headers(SECURITY_HEADERS)
    const host = safeHostname(request.hostname)
    reply.header('content-security-policy', contentSecurityPolicy(host ?? 'invalid', host === null ? null : (services.listeners.port('gateway') ?? null)))
  })
  await app.register(cookie)

  await app.register(
    async (api) => {
      api.setValidatorCompiler(validatorCompiler)
      api.setErrorHandler(errorHandler(services.log))
      installJsonOnly(api)
      installAccess(api, services.sessions, services.storage)
      api.addHook('onSend', async (_request, reply) => {
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
      })
      api.setNotFoundHandler(() => {
        throw new NotFound({ message: 'no such endpoint' })
      })
      await api.register(accountRoutes(services))
      await api.register(
        async (workspace) => {
          await workspace.register(workspaceRoutes(services))
          await workspace.register(clientRoutes(services))
          await workspace.register(roomRoutes(services))
          await workspace.register(transcriptRoutes(services))
          await workspace.register(usageRoutes(services))
          await workspace.register(recordingRoutes(services))
          await workspace.register(eventRoutes(services))
          await workspace.register(webhookRoutes(services))
          await workspace.register(deviceRoutes(services))
        },
        { prefix: '/workspaces/:workspaceId' },
      )
    },
    { prefix: API_PREFIX },
  )

  const bundle = bundleDir()
  if (bundle === null) {
    services.log.warn({}, 'the console bundle is not built (npm run build): the console serves its API only')
    app.setNotFoundHandler((_request, reply) => {
      void reply.code(503).type('text/plain; charset=utf-8').send('The console is not built: run npm run build.\n')
    })
  } else {
    await app.register(fastifyStatic, {
      root: bundle,
      wildcard: false,
      index: false,
      setHeaders: (reply, path) => {
        // Hashed asset names change with their content; index.html must be asked for again each time.
        reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache')
      },
    })
    // Every other page path is the app's own route (/w/ws_…/clients): it gets index.html.
    app.setNotFoundHandler((request, reply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return reply.code(404).type('application/json; charset=utf-8').send(errorEnvelope(new NotFound({ message: 'no such endpoint' })))
      }
      return reply.header('cache-control', 'no-cache').sendFile('index.html')
    })
  }
  return { app, routes }
}
