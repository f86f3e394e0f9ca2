/**
 * The agent dispatcher in an engine: its service and layer. The dispatcher itself is
 * dispatcher.ts; this builds it on the engine's services, finds its providers (built on first use,
 * an isolated one as a session proxy to the provider workers) and sends what its agents reach to
 * the webhook outbox. Released after the serving finalizers (the agents have stopped by then:
 * `serve` stops them), so their last events are published.
 */
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import type { AgentProvider } from '../agentProvider.js'
import { Clock } from '../clock.js'
import type { Settings } from '../config.js'
import { Log } from '../log.js'
import { Metrics } from '../metrics.js'
import type { RegisteredExtensions } from '../registry.js'
import { Storage } from '../storage/storage.js'
import { Terminals } from '../terminals.js'
import { TranscriptWriter } from '../transcripts/writer.js'
import { attachAgentEvents, attachTurnEvents } from '../webhooks/liveEvents.js'
import { WebhookOutboxService } from '../webhooks/outboxLayer.js'
import { AgentDispatcher, type ProviderDirectory } from './dispatcher.js'
import { isolatedProvider } from './isolation/isolatedProvider.js'
import { ProviderWorkers, type ProviderWorkersShape } from './isolation/workersLayer.js'

export class Agents extends Context.Service<Agents, AgentDispatcher>()('hark/Agents') {}

/** The registry's agent providers, each built once; an isolated one runs its sessions in the provider workers. */
export const providerDirectory = (registry: RegisteredExtensions, workers: ProviderWorkersShape): ProviderDirectory => {
  const built = new Map<string, AgentProvider>()
  return {
    names: () => registry.names('agentProvider'),
    get: (name) => {
      let provider = built.get(name)
      if (!provider) {
        provider = registry.resolve<AgentProvider>('agentProvider', name)
        const module = workers.modules.get(name)
        if (module !== undefined && workers.pool) provider = isolatedProvider(name, module, provider, workers.pool)
        built.set(name, provider)
      }
      return provider
    },
  }
}

export const makeAgentDispatcher = (settings: Settings) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    const storage = yield* Storage
    const log = yield* Log
    const transcripts = new TranscriptWriter(storage, clock, log.child({ component: 'transcripts' }), settings.agents.transcriptRetentionDays)
    const agents = new AgentDispatcher({
      transcripts,
      hub: yield* Terminals,
      storage,
      settings,
      log,
      clock,
      metrics: yield* Metrics,
    })
    const outbox = yield* WebhookOutboxService
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const detachAgents = attachAgentEvents(agents, clock, (e) => outbox.publish(e))
        const detachTurns = attachTurnEvents(transcripts, (e) => outbox.publish(e))
        return () => (detachAgents(), detachTurns())
      }),
      (detach) => Effect.sync(detach),
    )
    // Released before the events are detached and before storage closes: the agents' last turns
    // (they have stopped by then) are written, and their agent.turn webhooks published.
    yield* Effect.addFinalizer(() => Effect.promise(() => transcripts.flush()).pipe(Effect.andThen(Effect.sync(() => transcripts.stop()))))
    transcripts.start()
    return agents
  })

/** Needs the provider workers only for their order: it is released before them (agents stop before their workers go). */
export const agentDispatcherLayer = (settings: Settings) =>
  Layer.effect(
    Agents,
    Effect.gen(function* () {
      yield* ProviderWorkers
      return yield* makeAgentDispatcher(settings)
    }),
  )
