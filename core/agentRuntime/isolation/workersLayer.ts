/**
 * The provider workers in an engine: its service and layer. The pool itself is pool.ts; this
 * finds which registered providers run isolated (and the module a worker imports for each), and
 * starts a pool only when one does. The pool closes when the layer is released: after every agent
 * stopped (the dispatcher's layer is built on top of this one).
 */
import { availableParallelism } from 'node:os'
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { Clock } from '../../clock.js'
import type { Settings } from '../../config.js'
import type { Extension } from '../../define.js'
import { Log } from '../../log.js'
import { Metrics } from '../../metrics.js'
import { ExtensionError, messageOf } from '../../startupErrors.js'
import { runnableModule } from './modules.js'
import { ProviderWorkerPool } from './pool.js'

export interface ProviderWorkersShape {
  /** The pool; null when no registered provider runs isolated. */
  readonly pool: ProviderWorkerPool | null
  /** The module a worker imports, by isolated provider name. */
  readonly modules: ReadonlyMap<string, string>
}

export class ProviderWorkers extends Context.Service<ProviderWorkers, ProviderWorkersShape>()('hark/ProviderWorkers') {}

/** The isolated providers' modules, refusing one defined without its module. */
const isolatedModules = (extensions: ReadonlyArray<Extension>) =>
  Effect.gen(function* () {
    const modules = new Map<string, string>()
    for (const ext of extensions) {
      if (ext.kind !== 'agentProvider' || !ext.isolate) continue
      if (ext.module === null) {
        return yield* Effect.fail(
          new ExtensionError({
            extension: `agentProvider ${ext.name}`,
            message:
              `agent provider ${ext.name} runs in a provider worker, which needs its module: ` +
              `defineAgentProvider('${ext.name}', { module: import.meta.url, … }), or isolate: false to run it in the engine's thread`,
          }),
        )
      }
      const module = yield* Effect.try({
        try: () => runnableModule(ext.module!),
        catch: (e) => new ExtensionError({ extension: `agentProvider ${ext.name}`, message: `agent provider ${ext.name}: ${messageOf(e)}`, cause: e }),
      })
      modules.set(ext.name, module)
    }
    return modules
  })

export const makeProviderWorkers = (settings: Settings, extensions: ReadonlyArray<Extension>) =>
  Effect.gen(function* () {
    const modules = yield* isolatedModules(extensions)
    if (modules.size === 0) return { pool: null, modules } satisfies ProviderWorkersShape
    const log = yield* Log
    const clock = yield* Clock
    const metrics = yield* Metrics
    const pool = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new ProviderWorkerPool({
            size: settings.agents.workers ?? availableParallelism(),
            agentsPerWorker: settings.agents.agentsPerWorker,
            memoryMb: settings.agents.workerMemoryMb,
            stallMs: settings.agents.workerStallMs,
            boot: { settings, preload: [...modules].map(([name, module]) => ({ name, module })) },
            clock,
            log: log.child({ component: 'provider-workers' }),
            metrics,
          }),
      ),
      (pool) => Effect.promise(() => pool.close()),
    )
    return { pool, modules } satisfies ProviderWorkersShape
  })

export const providerWorkersLayer = (settings: Settings, extensions: ReadonlyArray<Extension>) =>
  Layer.effect(ProviderWorkers, makeProviderWorkers(settings, extensions))
