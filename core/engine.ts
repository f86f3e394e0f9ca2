/**
 * createEngine: the composition of Hark's services as Effect Layers. Building the layer starts
 * the engine (storage, security, the REST-port HTTP server, every registered transport and
 * plugin); disposing the runtime stops it, in reverse order, so listeners close before storage
 * is flushed and closed.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import * as Cause from 'effect/Cause'
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Exit from 'effect/Exit'
import * as Layer from 'effect/Layer'
import * as ManagedRuntime from 'effect/ManagedRuntime'
import * as Schedule from 'effect/Schedule'
import { roomDefaultAgentsLayer } from './agentRuntime/defaultAgents.js'
import { agentDispatcherLayer, Agents } from './agentRuntime/dispatcherLayer.js'
import { providerModuleList, resolveWithProviderModules } from './agentRuntime/isolation/modules.js'
import { providerWorkersLayer } from './agentRuntime/isolation/workersLayer.js'
import { Clock, clockLayer, type ClockShape } from './clock.js'
import { Cluster, clusterLayer } from './cluster/clusterLayer.js'
import { EngineSettings, resolveSettings, type Settings, type SettingsLayers } from './config.js'
import { databaseFileOf, masterKeyFileOf, remoteOf } from './dataDir.js'
import type { EngineConfig, Extension } from './define.js'
import type { EngineHost } from './host.js'
import { beginHttpDrain, HttpServer, httpServerLayer } from './http.js'
import { createLogger, Log, logLayer, type Logger } from './log.js'
import { Metrics, metricsLayer } from './metrics.js'
import type { EnginePlugin } from './plugin.js'
import { recordingsLayer } from './recordings/recordingsLayer.js'
import { Extensions, extensionsLayer } from './registryLayer.js'
import { checkMasterKey, loadMasterKey, makeMasterKey, MasterKey } from './security/masterKey.js'
import { Security, securityLayer } from './security/security.js'
import type { EngineContext } from './engineContext.js'
import { ExtensionError, messageOf } from './startupErrors.js'
import { BackgroundCheckpoints } from './storage/checkpointer.js'
import { Storage, storageLayer } from './storage/storage.js'
import { presenceLayer, Terminals, terminalsLayer } from './terminals.js'
import { loadTls, Tls } from './tls.js'
import { StorageUnavailable } from './errors.js'
import { ListenError, type Transport } from './transport.js'
import { usageLayer } from './usage/meter.js'
import { webhookOutboxLayer } from './webhooks/outboxLayer.js'

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
  /** What /metrics answers instead of this engine's registry (`hark start --nodes N`: every node's metrics). */
  readonly scrape?: () => Promise<string>
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
      // Its thread starts once the log holds LAZY_START_PAGES (checkpointer.ts): not with an idle engine.
      yield* Effect.acquireRelease(
        Effect.sync(() => checkpoints.startOnWrites()),
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

/**
 * What runs on top of the layers: the transports, the rooms' agent policies and the plugins, then
 * the engine is ready. Their stops are finalizers, run in reverse: no new REST requests first,
 * then plugins, agents, the terminals, the transports — before the layers below are released.
 */
const serving = (settings: Settings) =>
  Effect.gen(function* () {
    const log = yield* Log
    const { registry, host } = yield* Extensions
    const http = yield* HttpServer
    const agents = yield* Agents
    yield* Cluster // joined before any terminal can connect, left after they are closed
    const transports: Transport[] = []
    for (const name of registry.names('transport')) {
      const transport = registry.resolve<Transport>('transport', name)
      transports.push(transport)
      yield* Effect.tryPromise({
        try: () => transport.start(),
        catch: (e) => (e instanceof ListenError ? e : new ExtensionError({ extension: `transport ${name}`, message: `transport ${name} failed to start: ${messageOf(e)}`, cause: e })),
      })
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => transport.stop()).pipe(
          Effect.catchCause((cause) => Effect.sync(() => log.error({ cause: String(cause) }, `stopping ${name} failed`))),
        ),
      )
    }
    // Finalizers run in reverse: terminals hear session.closing before listeners go away.
    const terminals = yield* Terminals
    yield* Effect.addFinalizer(() => Effect.sync(() => terminals.closeAll()))
    // The rooms' agent policies from here on; agents leave their rooms (telling the terminals) before the terminals are closed.
    agents.start()
    yield* Effect.addFinalizer(() => Effect.promise(() => agents.shutdown()))
    for (const name of registry.names('plugin')) {
      const plugin = registry.resolve<EnginePlugin>('plugin', name)
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
    http.setReady(true)
    // Runs first: no new REST requests, while those in flight go on during the rest of the stop;
    // and no new terminal connections (Transport.stopAccepting) before any terminal hears `session.closing`.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        http.setReady(false)
        beginHttpDrain(http.app)
        for (const transport of transports) {
          try {
            transport.stopAccepting?.()
          } catch (e) {
            log.error({ err: e }, 'a transport failed to stop accepting connections')
          }
        }
      }),
    )
    return host
  })

/**
 * The engine's own layers, each built on those before it and released in reverse: the provider
 * workers, the dispatcher, the room default agents, room recordings, the extensions' registry, the HTTP server
 * (listening), the cluster; then `serving`.
 */
const engineLayers = (settings: Settings, extensions: ReadonlyArray<Extension>, ports: Record<string, number>, scrape?: () => Promise<string>) =>
  clusterLayer(settings, ports).pipe(
    Layer.provideMerge(httpServerLayer(settings, scrape)),
    Layer.provideMerge(extensionsLayer(settings, extensions, ports)),
    Layer.provideMerge(recordingsLayer(settings)),
    Layer.provideMerge(roomDefaultAgentsLayer(settings)),
    Layer.provideMerge(agentDispatcherLayer(settings)),
    Layer.provideMerge(providerWorkersLayer(settings, extensions)),
  )

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
  /** Chores on the engine's services before anything serves: the database's news, cache invalidation, housekeeping. */
  const prepared = Layer.effectDiscard(
    Effect.gen(function* () {
      if (createsDatabase) (yield* Log).info({ file: databaseFile }, 'created the database (hark.db)')
      if (remote) {
        checkMasterKey(yield* MasterKey, (yield* Storage).signingSecrets.sample())
        ;(yield* Log).info({ url: remote.url, replica: databaseFile }, 'database on a libSQL server; replica in the data dir')
      }
      yield* cacheInvalidation
      yield* housekeeping(resolved)
    }),
  )
  /** The whole engine: its services, the chores, its own layers, then what serves (built at start: the settings and extensions are final then). */
  const serverLayer = (settings: Settings, all: ReadonlyArray<Extension>) =>
    Layer.effect(Server, Effect.map(serving(settings), (host): Running => ({ host, ports }))).pipe(
      Layer.provideMerge(engineLayers(settings, all, ports, options.scrape)),
      Layer.provideMerge(prepared),
      Layer.provideMerge(services),
    )

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
      runtime = ManagedRuntime.make(serverLayer(current, extensions))
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
