/**
 * The REST-port HTTP server (fastify): /healthz and /metrics here, every plugin's routes
 * registered beside them in their own encapsulated scope. Everything the listener refuses before
 * a route runs — a malformed or oversized request head, a request too slow to arrive, a CONNECT —
 * is answered with the JSON error envelope and `Connection: close`, never a bare reset. A stop
 * drains: no new requests, those in flight finish (for at most REST_DRAIN_MS), then the rest is cut.
 */
import type { Duplex } from 'node:stream'
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { fastify, type FastifyInstance, type FastifyReply } from 'fastify'
import type { Registry } from 'prom-client'
import { ConfigError, type Settings } from './config.js'
import {
  errorEnvelope,
  HeadersTooLarge,
  MethodNotAllowed,
  NotFound,
  ProtocolError,
  RequestTimeout,
  ServerShuttingDown,
  ValidationFailed,
  wireCodesOf,
} from './errors.js'
import { statusLine } from './gatewayRoutes.js'
import { lazySerializers, warmSchemaCompilers } from './httpApi/lazySchemas.js'
import { Log } from './log.js'
import { Metrics } from './metrics.js'
import type { EnginePlugin } from './plugin.js'
import { Extensions } from './registryLayer.js'
import { ListenError } from './transport.js'

/** How long a stop lets REST requests in flight finish: inside `hark start`'s 4.5 s stop budget. */
export const REST_DRAIN_MS = 3000
/** Largest request line plus headers read (Node's default); a bigger head gets 431. */
export const MAX_HEADER_BYTES = 16 * 1024
/** After refusing a malformed request, how long the rest of its bytes are read and dropped before the socket is cut. */
const REFUSAL_LINGER_MS = 2000

const shuttingDown = new ServerShuttingDown({ message: 'server shutting down' })

/** Refuse timeouts that contradict each other or cut answers the engine may take long to give. */
const checkTimeouts = ({ rest, agents }: Settings): void => {
  if (rest.headersTimeoutMs > rest.requestTimeoutMs) {
    throw new ConfigError('rest.headersTimeoutMs', 'settings', `must not exceed rest.requestTimeoutMs (${rest.requestTimeoutMs})`)
  }
  const longest = Math.max(agents.startTimeoutMs, agents.stopTimeoutMs)
  if (rest.connectionTimeoutMs <= longest) {
    throw new ConfigError('rest.connectionTimeoutMs', 'settings', `must exceed agents.startTimeoutMs and agents.stopTimeoutMs (${longest}): a dispatch waits that long for its answer`)
  }
}

/** Write one whole HTTP error response with the envelope straight to the socket, then close it gently. */
const refuseOnSocket = (socket: Duplex, error: unknown, extraHeaders = ''): void => {
  const status = wireCodesOf(error).http
  const body = JSON.stringify(errorEnvelope(error))
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${statusLine(status)}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}Connection: close\r\n\r\n${body}`,
    )
  }
  // FIN after the answer, while what the client is still sending is read and dropped: closing with
  // unread bytes would make the kernel send a reset, which can destroy the answer at the client.
  socket.end()
  socket.resume()
  const cut = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS)
  cut.unref()
  socket.once('close', () => clearTimeout(cut))
}

/** Sockets already answered: Node reports every later chunk of a broken request again. */
const refused = new WeakSet<Duplex>()

/** fastify's clientErrorHandler: the parser or a timeout refused a request before any route. */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || refused.has(socket)) return
  refused.add(socket)
  const failure =
    error.code === 'HPE_HEADER_OVERFLOW' ? new HeadersTooLarge({ message: `request line and headers exceed ${MAX_HEADER_BYTES} bytes` })
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? new RequestTimeout({ message: 'the request did not arrive in time' })
    : new ProtocolError({ message: `malformed HTTP request (${error.code ?? 'parse error'})` })
  refuseOnSocket(socket, failure)
}

const draining = new WeakMap<FastifyInstance, { closed: Promise<void>; deadline: number }>()

/** `scrape`: what /metrics answers instead of the engine's own registry (`hark start --nodes N`: every node's). */
export const createHttpServer = (settings: Settings, metrics: Registry, isReady: () => boolean, scrape: () => Promise<string> = () => metrics.metrics()): FastifyInstance => {
  checkTimeouts(settings)
  const { rest } = settings
  warmSchemaCompilers()
  const app = fastify({
    logger: false,
    bodyLimit: rest.bodyLimitBytes,
    // Response serializers built on their first use, not at start (core/httpApi/lazySchemas.ts).
    schemaController: lazySerializers,
    // At a stop, idle keep-alive sockets close at once; requests in flight finish (see drainHttpServer).
    forceCloseConnections: 'idle',
    // Requests arriving during the drain get the envelope from the hook below, not fastify's own body.
    return503OnClosing: false,
    connectionTimeout: rest.connectionTimeoutMs,
    keepAliveTimeout: rest.keepAliveTimeoutMs,
    requestTimeout: rest.requestTimeoutMs,
    http: {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: rest.headersTimeoutMs,
      requestTimeout: rest.requestTimeoutMs,
      // Node looks for late heads and bodies this often (30 s by default, far coarser than the timeouts).
      connectionsCheckingInterval: Math.min(1000, Math.floor(rest.headersTimeoutMs / 2)),
    },
    clientErrorHandler: answerClientError,
    // Path ids may be up to 128 characters; routes check the exact bounds and answer 400.
    routerOptions: { maxParamLength: 1024 },
    // A URL the router cannot even decode (bad percent-encoding) gets the error envelope too.
    frameworkErrors: (error, _req, reply: FastifyReply) => {
      const failure = new ValidationFailed({ field: 'url', message: `malformed request URL (${error.code})` })
      void reply.code(400).send(errorEnvelope(failure))
    },
  })
  // CONNECT never reaches the router (Node hands the socket to 'connect' listeners, else drops it).
  app.server.on('connect', (_req, socket: Duplex) =>
    refuseOnSocket(socket, new MethodNotAllowed({ message: 'CONNECT is not served: this is not a proxy' }), 'Allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n'),
  )
  // Callback hooks: an async one costs a promise and a microtask turn on every request.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!draining.has(app)) return done()
    // Answered here: done is not called, so the request goes no further.
    void reply.code(503).header('connection', 'close').type('application/json; charset=utf-8').send(errorEnvelope(shuttingDown))
  })
  // Answers finished during the drain close their connection, so it ends with them.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining.has(app)) void reply.header('connection', 'close')
    done(null, payload)
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
    return reply.type(metrics.contentType).send(await scrape())
  })
  return app
}

/** First step of a stop: the listener closes and idle connections with it; requests in flight go on. */
export const beginHttpDrain = (app: FastifyInstance, budgetMs: number = REST_DRAIN_MS): void => {
  if (draining.has(app)) return
  draining.set(app, { closed: app.close(), deadline: performance.now() + budgetMs })
}

/** Last step of a stop: wait for the requests in flight until the drain budget is spent, then cut them. */
export const finishHttpDrain = async (app: FastifyInstance): Promise<void> => {
  beginHttpDrain(app)
  const { closed, deadline } = draining.get(app)!
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), Math.max(0, deadline - performance.now()))
  })
  if (await Promise.race([closed.then(() => false), late])) app.server.closeAllConnections()
  clearTimeout(timer)
  await closed
}

export interface HttpServerShape {
  readonly app: FastifyInstance
  /** /healthz answers 200 once set (the engine is serving), 503 before and again from the stop on. */
  setReady(ready: boolean): void
}

/** The REST-port HTTP server of an engine, listening, with every plugin's routes. */
export class HttpServer extends Context.Service<HttpServer, HttpServerShape>()('hark/HttpServer') {}

/**
 * Build the server, register the plugins' routes and listen on rest.port. Its release waits for
 * the requests still in flight for the rest of the drain budget, then cuts them; the drain itself
 * begins first thing in a stop (`beginHttpDrain`, the engine's last finalizer).
 */
export const makeHttpServer = (settings: Settings, scrape?: () => Promise<string>) =>
  Effect.gen(function* () {
    const log = yield* Log
    const { registry, services } = yield* Extensions
    const metrics = yield* Metrics
    let ready = false
    const app = yield* Effect.acquireRelease(
      Effect.try({ try: () => createHttpServer(settings, metrics, () => ready, scrape), catch: (e) => e as ConfigError }),
      (app) => Effect.promise(() => finishHttpDrain(app)),
    )
    // Every plugin is built before any registers its routes: one may add a resource to another's API (ApiRoutes) when built.
    const plugins = registry.names('plugin').map((name) => ({ name, plugin: registry.resolve<EnginePlugin>('plugin', name) }))
    for (const { name, plugin } of plugins) {
      if (!plugin.register) continue
      yield* Effect.promise(() => app.register(async (scope) => plugin.register!(scope)).after())
      log.debug({ plugin: name }, 'plugin routes registered')
    }
    yield* Effect.tryPromise({
      try: () => app.listen({ host: settings.host, port: settings.rest.port }),
      catch: (e) => new ListenError('rest', settings.host, settings.rest.port, 'rest.port', e),
    })
    const address = app.server.address()
    services.listeners.listening('rest', typeof address === 'object' && address ? address.port : settings.rest.port)
    return { app, setReady: (value) => void (ready = value) } satisfies HttpServerShape
  })

export const httpServerLayer = (settings: Settings, scrape?: () => Promise<string>) => Layer.effect(HttpServer, makeHttpServer(settings, scrape))
