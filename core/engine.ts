/**
 * createEngine: the composition of Hark's services as Effect Layers. Building the layer starts
 * the engine (storage, security, the REST-port HTTP server, every registered transport and
 * plugin); disposing the runtime stops it, in reverse order, so listeners close before storage
 * is flushed and closed.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import * as Cause from 'effect/Cause'
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Exit from 'effect/Exit'
import * as Layer from 'effect/Layer'
import * as ManagedRuntime from 'effect/ManagedRuntime'
import * as Schedule from 'effect/Schedule'
import type { FastifyInstance } from 'fastify'
import type { AgentProvider } from './agentProvider.js'
import { AgentDispatcher } from './agentRuntime/dispatcher.js'
import { containAgentFaults } from './agentRuntime/faultContainment.js'
import { isolatedProvider } from './agentRuntime/isolation/isolatedProvider.js'
import { providerModuleList, resolveWithProviderModules, runnableModule } from './agentRuntime/isolation/modules.js'
import { ProviderWorkerPool } from './agentRuntime/isolation/pool.js'
import { ApiRoutes } from './apiRoutes.js'
import { Clock, clockLayer, type ClockShape } from './clock.js'
import { singleNode, type ClusterAdapter, type ClusterNode } from './cluster/cluster.js'
import { nodeIdOf } from './cluster/nodeId.js'
import { Recordings } from './recordings/recordings.js'
import { EngineSettings, resolveSettings, type Settings, type SettingsLayers } from './config.js'
import { databaseFileOf, masterKeyFileOf, remoteOf } from './dataDir.js'
import type { EngineConfig, Extension } from './define.js'
import { GatewayRoutes } from './gatewayRoutes.js'
import type { EngineHost } from './host.js'
import { beginHttpDrain, createHttpServer, finishHttpDrain } from './http.js'
import { createLogger, Log, logLayer, type Logger } from './log.js'
import { Metrics, metricsLayer } from './metrics.js'
import type { EnginePlugin } from './plugin.js'
import { PresenceService } from './presence.js'
import { ExtensionRegistry } from './registry.js'
import { checkMasterKey, loadMasterKey, makeMasterKey, MasterKey } from './security/masterKey.js'
import { Security, securityLayer } from './security/security.js'
import type { EngineContext } from './engineContext.js'
import { BackgroundCheckpoints } from './storage/checkpointer.js'
import { Storage, storageLayer } from './storage/storage.js'
import { presenceLayer, Terminals, terminalsLayer } from './terminals.js'
import { loadTls, Tls } from './tls.js'
import { EngineLeases } from './leases.js'
import type { EngineServiceMap } from './services.js'
import { StorageUnavailable } from './errors.js'
import { ListenError, type Transport } from './transport.js'
import { usageLayer } from './usage/meter.js'
import { attachAgentEvents } from './webhooks/liveEvents.js'
import { WebhookOutboxService, webhookOutboxLayer } from './webhooks/outboxLayer.js'

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
      // Nodes sharing a libSQL server need one key: it is given to them, never generated.
      const generate = settings.storage.url === null
      const { key, generated } = loadMasterKey({ value: settings.security.masterKey, file: masterKeyFile, generate })
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
  const offs = [
    storage.feed.on('apikey.revoked', (change) => security.apiKeys.forget(change.subject)),
    storage.feed.on('secret.rotated', (change) => security.keyring.invalidate(change.workspaceId)),
    storage.feed.on('token.revoked', (change) => security.revocations.add(change.subject)),
  ]
  yield* Effect.addFinalizer(() => Effect.sync(() => offs.forEach((off) => off())))
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
          // An unreachable primary is logged once, when it goes (see the poll), not per chore.
          if (e instanceof StorageUnavailable) log.debug({ err: e }, `${what} skipped`)
          else log.error({ err: e }, `${what} failed`)
        }
      })
    // On a libSQL server each poll first pulls the primary's log into the replica (off the event
    // loop), so another node's writes show within storage.changePollMs plus one sync.
    const unsubscribe = storage.onPrimary((primary) => {
      if (primary.available) log.info({ url: storage.remote?.url }, 'database primary reachable again: writes resume')
      else log.warn({ url: storage.remote?.url, reason: primary.reason }, 'database primary unreachable: writes answer storage_unavailable, reads go on from the replica')
    })
    yield* Effect.addFinalizer(() => Effect.sync(unsubscribe))
    yield* Effect.forkScoped(
      Effect.promise(() => storage.refresh()).pipe(
        Effect.andThen(guarded('change poll', () => storage.feed.poll())),
        Effect.repeat(Schedule.spaced(settings.storage.changePollMs)),
      ),
    )
    if (storage.remote === null && settings.storage.walCheckpointMs > 0) {
      const checkpoints = new BackgroundCheckpoints(storage, { intervalMs: settings.storage.walCheckpointMs, log, metrics: yield* Metrics })
      yield* Effect.acquireRelease(
        Effect.tryPromise(() => checkpoints.start()).pipe(
          Effect.catch((e) =>
            Effect.sync(() => log.warn({ err: e }, "no checkpoint thread: the engine's own commits checkpoint the WAL (SQLite's default)")),
          ),
        ),
        () => Effect.promise(() => checkpoints.stop()),
      )
    }
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
    const ctx = yield* Effect.context<EngineContext>()
    const log = yield* Log
    let registry: ExtensionRegistry | undefined
    // Isolated providers run their sessions in provider workers; a worker imports the provider's module.
    const isolatedModules = new Map<string, string>()
    for (const ext of extensions) {
      if (ext.kind !== 'agentProvider' || !ext.isolate) continue
      if (ext.module === null) {
        return yield* Effect.fail(
          new Error(
            `agent provider ${ext.name} runs in a provider worker, which needs its module: ` +
              `defineAgentProvider('${ext.name}', { module: import.meta.url, … }), or isolate: false to run it in the engine's thread`,
          ),
        )
      }
      const module = yield* Effect.try({ try: () => runnableModule(ext.module!), catch: (e) => new Error(`agent provider ${ext.name}: ${(e as Error).message}`) })
      isolatedModules.set(ext.name, module)
    }
    const pool =
      isolatedModules.size === 0
        ? null
        : new ProviderWorkerPool({
            size: settings.agents.workers ?? availableParallelism(),
            agentsPerWorker: settings.agents.agentsPerWorker,
            memoryMb: settings.agents.workerMemoryMb,
            stallMs: settings.agents.workerStallMs,
            boot: { settings, preload: [...isolatedModules].map(([name, module]) => ({ name, module })) },
            clock: Context.get(ctx, Clock),
            log: log.child({ component: 'provider-workers' }),
            metrics: Context.get(ctx, Metrics),
          })
    // Added before the agents' own finalizer, so it runs after every agent has stopped.
    if (pool) yield* Effect.addFinalizer(() => Effect.promise(() => pool.close()))
    const providers = new Map<string, AgentProvider>()
    const agents = new AgentDispatcher({
      hub: Context.get(ctx, Terminals),
      storage: Context.get(ctx, Storage),
      settings,
      log,
      clock: Context.get(ctx, Clock),
      metrics: Context.get(ctx, Metrics),
      providers: {
        names: () => registry!.names('agentProvider'),
        get: (name) => {
          let provider = providers.get(name)
          if (!provider) {
            provider = registry!.resolve<AgentProvider>('agentProvider', name)
            const module = isolatedModules.get(name)
            if (module !== undefined && pool) provider = isolatedProvider(name, module, provider, pool)
            providers.set(name, provider)
          }
          return provider
        },
      },
    })
    const webhookOutbox = Context.get(ctx, WebhookOutboxService)
    // Added first, so it runs after the agents' shutdown: their last events are published.
    const detachAgentEvents = attachAgentEvents(agents, Context.get(ctx, Clock), (e) => webhookOutbox.publish(e))
    yield* Effect.addFinalizer(() => Effect.sync(detachAgentEvents))
    // What extensions may receive, by service key (services.ts); nothing else of the engine reaches them.
    const leases = new EngineLeases()
    const recordings = new Recordings({
      settings,
      storage: Context.get(ctx, Storage),
      clock: Context.get(ctx, Clock),
      hub: Context.get(ctx, Terminals),
      log: log.child({ component: 'recordings' }),
      nodeId: nodeIdOf(settings.cluster.nodeId, settings.dataDir),
      publish: (e) => webhookOutbox.publish(e),
    })
    // Recovery first (what a crash left open), before any terminal can join a room.
    yield* Effect.tryPromise({ try: () => recordings.start(), catch: (e) => new Error(`recordings could not start: ${(e as Error).message}`) })
    // Added before the transports' finalizers: it runs after them, when every room has closed and finished its recording.
    yield* Effect.addFinalizer(() => Effect.promise(() => recordings.stop()))
    const operations = {
      settings,
      clock: Context.get(ctx, Clock),
      storage: Context.get(ctx, Storage),
      security: Context.get(ctx, Security),
      presence: Context.get(ctx, PresenceService),
      terminals: Context.get(ctx, Terminals),
      agents,
      recordings,
    }
    const services: EngineServiceMap = {
      ...operations,
      operations,
      log,
      metrics: Context.get(ctx, Metrics),
      tls: Context.get(ctx, Tls),
      gatewayRoutes: new GatewayRoutes(),
      apiRoutes: new ApiRoutes(),
      webhookOutbox,
      leases,
      listeners: {
        listening: (name, port) => {
          ports[name] = port
          log.info({ listener: name, host: settings.host, port }, 'listening')
        },
        port: (name) => ports[name] ?? null,
      },
    }
    registry = new ExtensionRegistry(services, extensions)
    const r = registry
    // Extensions defined with `load` are imported now, not when the config was read.
    yield* Effect.tryPromise({ try: () => r.load(), catch: (e) => e as Error })
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

    // In a cluster, the node joins before any terminal can connect, and leaves after they are closed.
    let cluster: ClusterNode = singleNode
    const natsUrl = settings.cluster.natsUrl
    if (natsUrl !== null) {
      // The cluster extension (engine.config.ts: cluster/nats/) imports its implementation when asked to join.
      const [name] = r.names('cluster')
      if (name === undefined) return yield* Effect.fail(new Error('cluster.natsUrl is set, but the engine config registers no cluster extension (engine.config.ts: natsCluster)'))
      const adapter = r.resolve<ClusterAdapter>('cluster', name)
      const node = yield* Effect.tryPromise({
        try: async () => {
          const node = await adapter.join({
            natsUrl,
            nodeId: nodeIdOf(settings.cluster.nodeId, settings.dataDir),
            leaseTtlMs: settings.cluster.leaseTtlMs,
            relayBatchMs: settings.cluster.relayBatchMs,
            hub: Context.get(ctx, Terminals),
            storage: services.storage,
            security: services.security,
            clock: services.clock,
            log,
            endpoints: () => ({ ...ports }),
          })
          await node.start()
          return node
        },
        catch: (e) => new Error(`cannot join the cluster at cluster.natsUrl ${natsUrl}: ${(e as Error).message}`),
      })
      yield* Effect.addFinalizer(() => Effect.promise(() => node.stop()))
      node.installMetrics(services.metrics)
      agents.setPlacement(node.placement)
      node.setAgentHooks(agents.nodeHooks())
      // Before any plugin starts: the webhook delivery worker asks for endpoint leases from its start.
      leases.attach(node.leases)
      cluster = node
      recordings.setOwnership((ws, room) => node.owns(ws, room))
    }

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
    // The rooms' agent policies from here on; agents leave their rooms (telling the terminals) before the terminals are closed.
    agents.start()
    yield* Effect.addFinalizer(() => Effect.promise(() => agents.shutdown()))
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
  const configured = config.extensions ?? []
  /** The config's extensions, then (from start on) the providers of agents.providerModules. */
  let extensions: ReadonlyArray<Extension> = configured
  const layers: SettingsLayers = { file: { source: options.configSource ?? 'engine config', settings: config }, env: options.env, flags: options.flags }
  // With provider modules listed, their settings sections are known once start() has loaded them:
  // until then settings of undeclared sections are left aside (start resolves everything again, strictly).
  const modulesListed = providerModuleList(resolveSettings(layers, configured, { unknown: 'ignore' }).agents.providerModules).length > 0
  const settings = resolveSettings(layers, configured, modulesListed ? { unknown: 'ignore' } : {})
  const dataDir = resolve(settings.dataDir)
  const resolved: Settings = { ...settings, dataDir }
  /** The settings of the running engine: `resolved` plus the sections of its provider modules (from start on). */
  let current: Settings = resolved
  let state: EngineState = 'idle'
  let running: Running | undefined
  const ports: Record<string, number> = {}

  const databaseFile = databaseFileOf(resolved)
  const remote = remoteOf(resolved)
  /** Whether this start creates the database (the operator is told, as for the master key). */
  let createsDatabase = false
  const services = Layer.mergeAll(
    Layer.mergeAll(usageLayer, webhookOutboxLayer).pipe(Layer.provideMerge(presenceLayer), Layer.provideMerge(terminalsLayer)),
    securityLayer({ secretGraceSeconds: resolved.security.secretGraceSeconds }),
  ).pipe(
    Layer.provideMerge(storageLayer(databaseFile, remote)),
    Layer.provideMerge(baseLayer(resolved, options)),
  )
  class Server extends Context.Service<Server, Running>()('hark/Server') {}
  const serverLayer = Layer.effect(
    Server,
    Effect.gen(function* () {
      if (createsDatabase) (yield* Log).info({ file: databaseFile }, 'created the database (hark.db)')
      if (remote) {
        checkMasterKey(yield* MasterKey, (yield* Storage).signingSecrets.sample())
        ;(yield* Log).info({ url: remote.url, replica: databaseFile }, 'database on a libSQL server; replica in the data dir')
      }
      yield* cacheInvalidation
      yield* housekeeping(resolved)
      return yield* serve(current, extensions, ports)
    }),
  ).pipe(Layer.provideMerge(services))

  let runtime: ManagedRuntime.ManagedRuntime<Server | EngineContext, unknown> | undefined

  return {
    get settings() {
      return current
    },
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
      try {
        const { settings: full, modules } = await resolveWithProviderModules(layers, configured)
        extensions = [...configured, ...modules]
        current = { ...full, dataDir }
      } catch (e) {
        state = 'stopped'
        throw e
      }
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      createsDatabase = !remote && !existsSync(databaseFile)
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
