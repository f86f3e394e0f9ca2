/**
 * createEngine: the composition of Hark's services as Effect Layers. Building the layer starts
 * the engine (storage, security, the REST-port HTTP server, every registered transport and
 * plugin); disposing the runtime stops it, in reverse order, so listeners close before storage
 * is flushed and closed.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Cause, Context, Effect, Exit, Layer, ManagedRuntime, Schedule } from 'effect'
import type { FastifyInstance } from 'fastify'
import type { AgentProvider } from './agentProvider.js'
import { RoomDefaultAgents } from './agentRuntime/defaultAgents.js'
import { AgentDispatcher } from './agentRuntime/dispatcher.js'
import { containAgentFaults } from './agentRuntime/faultContainment.js'
import { Clock, clockLayer, type ClockShape } from './clock.js'
import { EngineSettings, resolveSettings, type Settings, type SettingsLayers } from './config.js'
import { masterKeyFileOf } from './dataDir.js'
import type { EngineConfig, Extension } from './extension.js'
import { GatewayRoutes } from './gatewayRoutes.js'
import type { EngineHost } from './host.js'
import { beginHttpDrain, createHttpServer, finishHttpDrain } from './http.js'
import { createLogger, Log, logLayer, type Logger } from './log.js'
import { Metrics, metricsLayer } from './metrics.js'
import type { EnginePlugin } from './plugin.js'
import { PresenceService } from './presence.js'
import { ExtensionRegistry } from './registry.js'
import { loadMasterKey, makeMasterKey, MasterKey } from './security/masterKey.js'
import { Security, securityLayer } from './security/security.js'
import type { EngineServices } from './services.js'
import { Storage, storageLayer } from './storage/storage.js'
import { presenceLayer, Terminals, terminalsLayer } from './terminals.js'
import { loadTls, Tls } from './tls.js'
import type { EngineServiceMap } from './tokens.js'
import { ListenError, type Transport } from './transport.js'
import { usageLayer } from './usage/meter.js'

export type EngineState = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped'

export interface EngineOptions {
  /** A controllable clock for tests and simulations; the system clock otherwise. */
  readonly clock?: ClockShape
  /** A logger to use instead of pino on stderr at settings.log.level and settings.log.format. */
  readonly logger?: Logger
  /** Environment and flag layers over the config (the CLI passes process.env and its flags). */
  readonly env?: SettingsLayers['env']
  readonly flags?: SettingsLayers['flags']
  /** Name of the config's origin in error messages. */
  readonly configSource?: string
}

export interface Engine {
  readonly settings: Settings
  readonly state: EngineState
  /** Bound ports by listener name ("rest", and whatever transports report), valid once running. */
  readonly ports: Readonly<Record<string, number>>
  /** The engine's services and extensions, resolved from its container (extensions receive them by injection instead); once running. */
  readonly host: EngineHost
  start(): Promise<void>
  stop(): Promise<void>
}

/** Run an Effect and throw its typed failure as-is (not wrapped), for Promise-facing callers. */
export const runThrowing = async <A, E>(run: Promise<Exit.Exit<A, E>>): Promise<A> => {
  const exit = await run
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

const baseLayer = (settings: Settings, options: EngineOptions) => {
  const masterKeyFile = masterKeyFileOf(settings)
  const basics = Layer.mergeAll(
    Layer.succeed(EngineSettings, settings),
    clockLayer(options.clock),
    logLayer(options.logger ?? createLogger(settings.log.level, undefined, settings.log.format)),
    metricsLayer,
  )
  const masterKey = Layer.effect(
    MasterKey,
    Effect.gen(function* () {
      const log = yield* Log
      const { key, generated } = loadMasterKey({ value: settings.security.masterKey, file: masterKeyFile })
      if (generated) log.warn({ file: masterKeyFile }, 'generated a new master key; back it up with the data dir')
      return makeMasterKey(key)
    }),
  )
  const tls = Layer.effect(
    Tls,
    Effect.gen(function* () {
      const log = yield* Log
      const material = yield* Effect.promise(() =>
        loadTls({
          certFile: settings.tls.certFile,
          keyFile: settings.tls.keyFile,
          dataDir: settings.dataDir,
          host: settings.host,
        }),
      )
      if (material.selfSigned) {
        log.warn({ certFile: material.certFile }, 'using a self-signed TLS certificate (local use only)')
      }
      return material
    }),
  )
  return Layer.mergeAll(masterKey, tls).pipe(Layer.provideMerge(basics))
}

/** Apply committed changes (ours and other processes') to the in-memory security caches. */
const cacheInvalidation = Effect.gen(function* () {
  const storage = yield* Storage
  const security = yield* Security
  const unsubscribe = storage.onChange((change) => {
    if (change.kind === 'apikey.revoked' && change.subject) security.apiKeys.forget(change.subject)
    else if (change.kind === 'secret.rotated' && change.workspaceId) security.keyring.invalidate(change.workspaceId)
    else if (change.kind === 'token.revoked' && change.subject) security.revocations.add(change.subject)
  })
  yield* Effect.addFinalizer(() => Effect.sync(unsubscribe))
})

/** Background chores: poll the change log, flush batched writes, prune expired records. */
const housekeeping = (settings: Settings) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    const security = yield* Security
    const clock = yield* Clock
    const log = yield* Log
    const guarded = (what: string, f: () => unknown) =>
      Effect.sync(() => {
        try {
          f()
        } catch (e) {
          log.error({ err: e }, `${what} failed`)
        }
      })
    yield* Effect.forkScoped(
      guarded('change poll', () => storage.pollRemoteChanges()).pipe(
        Effect.repeat(Schedule.spaced(settings.storage.changePollMs)),
      ),
    )
    yield* Effect.forkScoped(
      guarded('lastUsedAt flush', () => security.apiKeys.flushLastUsed()).pipe(Effect.repeat(Schedule.spaced(5000))),
    )
    yield* Effect.forkScoped(
      guarded('prune', () => {
        const now = clock.now()
        storage.issuedTokens.prune(now)
        storage.signingSecrets.prune(now)
        storage.changes.prune(now - 86_400_000)
        security.revocations.reload()
      }).pipe(Effect.repeat(Schedule.spaced(60_000))),
    )
  })

interface Running {
  readonly host: EngineHost
  readonly ports: Record<string, number>
}

/** Start the HTTP server, transports and plugins; their stop is registered as finalizers. */
const serve = (settings: Settings, extensions: ReadonlyArray<Extension>, ports: Record<string, number>) =>
  Effect.gen(function* () {
    const ctx = yield* Effect.context<EngineServices>()
    const log = yield* Log
    let registry: ExtensionRegistry | undefined
    const agents = new AgentDispatcher({
      hub: Context.get(ctx, Terminals),
      storage: Context.get(ctx, Storage),
      settings,
      log,
      clock: Context.get(ctx, Clock),
      metrics: Context.get(ctx, Metrics),
      providers: {
        names: () => registry!.names('agentProvider'),
        get: (name) => registry!.resolve<AgentProvider>('agentProvider', name),
      },
    })
    // What extensions may receive, by token (tokens.ts); nothing else of the engine reaches them.
    const services: EngineServiceMap = {
      settings,
      log,
      metrics: Context.get(ctx, Metrics),
      clock: Context.get(ctx, Clock),
      storage: Context.get(ctx, Storage),
      security: Context.get(ctx, Security),
      presence: Context.get(ctx, PresenceService),
      terminals: Context.get(ctx, Terminals),
      agents,
      tls: Context.get(ctx, Tls),
      gatewayRoutes: new GatewayRoutes(),
      listeners: {
        listening: (name, port) => {
          ports[name] = port
          log.info({ listener: name, host: settings.host, port }, 'listening')
        },
        port: (name) => (Object.hasOwn(ports, name) ? ports[name] : undefined),
      },
    }
    registry = new ExtensionRegistry(services, extensions)
    const r = registry
    const host: EngineHost = { ...services, resolve: (kind, name) => r.resolve(kind, name), names: (kind) => r.names(kind) }
    if (r.names('agentProvider').length > 0) {
      // A provider's own timers and sockets must fail its agent, not the process.
      const uninstall = containAgentFaults(log)
      yield* Effect.addFinalizer(() => Effect.sync(uninstall))
    }
    if (r.names('agentProvider').length > 0 && !r.names('agentProvider').includes(settings.agents.defaultProvider)) {
      log.warn(
        { defaultProvider: settings.agents.defaultProvider, registered: r.names('agentProvider') },
        'agents.defaultProvider is not a registered agent provider: dispatches without a presetId will be refused',
      )
    }

    let ready = false
    const app: FastifyInstance = createHttpServer(settings, services.metrics, () => ready)
    // Runs last: REST requests still in flight get the rest of the drain budget, then are cut.
    yield* Effect.addFinalizer(() => Effect.promise(() => finishHttpDrain(app)))

    const plugins = r.names('plugin').map((name) => ({ name, plugin: r.resolve<EnginePlugin>('plugin', name) }))
    for (const { name, plugin } of plugins) {
      if (plugin.register) {
        yield* Effect.promise(() => app.register(async (scope) => plugin.register!(scope)).after())
        log.debug({ plugin: name }, 'plugin routes registered')
      }
    }
    yield* Effect.tryPromise({
      try: () => app.listen({ host: settings.host, port: settings.rest.port }),
      catch: (e) => new ListenError('rest', settings.host, settings.rest.port, 'rest.port', e),
    })
    const address = app.server.address()
    services.listeners.listening('rest', typeof address === 'object' && address ? address.port : settings.rest.port)

    for (const name of r.names('transport')) {
      const transport = r.resolve<Transport>('transport', name)
      yield* Effect.tryPromise({
        try: () => transport.start(),
        catch: (e) => (e instanceof ListenError ? e : new Error(`transport ${name} failed to start: ${(e as Error).message}`)),
      })
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => transport.stop()).pipe(
          Effect.catchCause((cause) => Effect.sync(() => log.error({ cause: String(cause) }, `stopping ${name} failed`))),
        ),
      )
    }
    // Finalizers run in reverse: terminals hear session.closing before listeners go away.
    const terminals = Context.get(ctx, Terminals)
    yield* Effect.addFinalizer(() => Effect.sync(() => terminals.closeAll()))
    // Agents leave their rooms (telling the terminals) before the terminals are closed.
    const defaultAgents = new RoomDefaultAgents(agents, terminals, services.storage, settings, services.clock, log)
    defaultAgents.start()
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        defaultAgents.stop()
        await agents.shutdown()
      }),
    )
    for (const { name, plugin } of plugins) {
      if (plugin.start) yield* Effect.promise(async () => plugin.start!())
      if (plugin.stop) {
        const stop = plugin.stop.bind(plugin)
        yield* Effect.addFinalizer(() =>
          Effect.promise(async () => stop()).pipe(
            Effect.catchCause((cause) => Effect.sync(() => log.error({ cause: String(cause) }, `stopping ${name} failed`))),
          ),
        )
      }
    }
    ready = true
    // Runs first: no new REST requests, while those in flight go on during the rest of the stop.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        ready = false
        beginHttpDrain(app)
      }),
    )
    return { host, ports } satisfies Running
  })

export const createEngine = <const X extends ReadonlyArray<Extension> = []>(
  config: EngineConfig<X> = {} as EngineConfig<X>,
  options: EngineOptions = {},
): Engine => {
  const extensions = config.extensions ?? []
  const settings = resolveSettings(
    { file: { source: options.configSource ?? 'engine config', settings: config }, env: options.env, flags: options.flags },
    extensions,
  )
  const dataDir = resolve(settings.dataDir)
  const resolved: Settings = { ...settings, dataDir }
  let state: EngineState = 'idle'
  let running: Running | undefined
  const ports: Record<string, number> = {}

  const databaseFile = join(dataDir, 'hark.db')
  /** Whether this start creates the database (the operator is told, as for the master key). */
  let createsDatabase = false
  const services = Layer.mergeAll(
    usageLayer.pipe(Layer.provideMerge(presenceLayer), Layer.provideMerge(terminalsLayer)),
    securityLayer({ secretGraceSeconds: resolved.security.secretGraceSeconds }),
  ).pipe(
    Layer.provideMerge(storageLayer(databaseFile)),
    Layer.provideMerge(baseLayer(resolved, options)),
  )
  class Server extends Context.Service<Server, Running>()('hark/Server') {}
  const serverLayer = Layer.effect(
    Server,
    Effect.gen(function* () {
      if (createsDatabase) (yield* Log).info({ file: databaseFile }, 'created the database (hark.db)')
      yield* cacheInvalidation
      yield* housekeeping(resolved)
      return yield* serve(resolved, extensions, ports)
    }),
  ).pipe(Layer.provideMerge(services))

  let runtime: ManagedRuntime.ManagedRuntime<Server | EngineServices, unknown> | undefined

  return {
    settings: resolved,
    get state() {
      return state
    },
    ports,
    get host() {
      if (!running) throw new Error('engine is not running')
      return running.host
    },
    async start() {
      if (state !== 'idle') throw new Error(`cannot start an engine that is ${state}`)
      state = 'starting'
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      createsDatabase = !existsSync(databaseFile)
      runtime = ManagedRuntime.make(serverLayer)
      try {
        running = await runtime.runPromise(Effect.gen(function* () {
          return yield* Server
        }))
        state = 'running'
      } catch (e) {
        state = 'stopping'
        await runtime.dispose()
        state = 'stopped'
        throw e instanceof Error ? e : new Error(String(e))
      }
    },
    async stop() {
      if (state === 'stopped' || state === 'idle' || state === 'stopping') return
      state = 'stopping'
      await runtime?.dispose()
      running = undefined
      state = 'stopped'
    },
  }
}
