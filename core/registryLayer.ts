/**
 * The extension registry in an engine: its service and layer. The registry itself is registry.ts
 * (the CLI and provider workers build one without an engine); this gathers what extensions may
 * receive (services.ts) from the engine's layers, builds the engine's registry on them, imports the
 * extensions defined with `load`, and gives the dispatcher its providers.
 */
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { Agents, providerDirectory } from './agentRuntime/dispatcherLayer.js'
import { containAgentFaults } from './agentRuntime/faultContainment.js'
import { ProviderWorkers } from './agentRuntime/isolation/workersLayer.js'
import { ApiRoutes } from './apiRoutes.js'
import { Clock } from './clock.js'
import type { Settings } from './config.js'
import type { Extension } from './define.js'
import { GatewayRoutes } from './gatewayRoutes.js'
import type { EngineHost } from './host.js'
import { EngineLeases } from './leases.js'
import { RecordingsService } from './recordings/recordingsLayer.js'
import { Log } from './log.js'
import { Metrics } from './metrics.js'
import { PresenceService } from './presence.js'
import { ExtensionRegistry } from './registry.js'
import { Security } from './security/security.js'
import type { EngineServiceMap } from './services.js'
import { ExtensionError, messageOf } from './startupErrors.js'
import { Storage } from './storage/storage.js'
import { Terminals } from './terminals.js'
import { Tls } from './tls.js'
import { WebhookOutboxService } from './webhooks/outboxLayer.js'

export interface ExtensionsShape {
  readonly registry: ExtensionRegistry
  /** What extensions receive, by service key. */
  readonly services: EngineServiceMap
  /** The same, with the registry's extensions: the embedder's view (`engine.host`). */
  readonly host: EngineHost
  /** Webhook endpoint leases: every key held on a single node; the cluster's when it joins. */
  readonly leases: EngineLeases
}

export class Extensions extends Context.Service<Extensions, ExtensionsShape>()('hark/Extensions') {}

/** `ports`: where bound listeners are written, by name (the engine's `ports`). */
export const makeExtensions = (settings: Settings, extensions: ReadonlyArray<Extension>, ports: Record<string, number>) =>
  Effect.gen(function* () {
    const log = yield* Log
    const agents = yield* Agents
    // What extensions may receive, by service key (services.ts); nothing else of the engine reaches them.
    const leases = new EngineLeases()
    const operations = {
      settings,
      clock: yield* Clock,
      storage: yield* Storage,
      security: yield* Security,
      presence: yield* PresenceService,
      terminals: yield* Terminals,
      agents,
      recordings: yield* RecordingsService,
    }
    const services: EngineServiceMap = {
      ...operations,
      operations,
      log,
      metrics: yield* Metrics,
      tls: yield* Tls,
      gatewayRoutes: new GatewayRoutes(),
      apiRoutes: new ApiRoutes(),
      webhookOutbox: yield* WebhookOutboxService,
      leases,
      listeners: {
        listening: (name, port) => {
          ports[name] = port
          log.info({ listener: name, host: settings.host, port }, 'listening')
        },
        port: (name) => ports[name] ?? null,
      },
    }
    const registry = yield* Effect.try({
      try: () => new ExtensionRegistry(services, extensions),
      catch: (e) => new ExtensionError({ extension: 'registry', message: messageOf(e), cause: e }),
    })
    // Extensions defined with `load` are imported now, not when the config was read.
    yield* Effect.tryPromise({ try: () => registry.load(), catch: (e) => new ExtensionError({ extension: 'load', message: messageOf(e), cause: e }) })
    agents.useProviders(providerDirectory(registry, yield* ProviderWorkers))
    const providers = registry.names('agentProvider')
    if (providers.length > 0) {
      // A provider's own timers and sockets must fail its agent, not the process.
      yield* Effect.acquireRelease(Effect.sync(() => containAgentFaults(log)), (uninstall) => Effect.sync(uninstall))
      if (!providers.includes(settings.agents.defaultProvider)) {
        log.warn(
          { defaultProvider: settings.agents.defaultProvider, registered: providers },
          'agents.defaultProvider is not a registered agent provider: dispatches without a presetId will be refused',
        )
      }
    }
    const host: EngineHost = { ...services, resolve: (kind, name) => registry.resolve(kind, name), names: (kind) => registry.names(kind) }
    return { registry, services, host, leases } satisfies ExtensionsShape
  })

export const extensionsLayer = (settings: Settings, extensions: ReadonlyArray<Extension>, ports: Record<string, number>) =>
  Layer.effect(Extensions, makeExtensions(settings, extensions, ports))
