/**
 * The webhooks plugin's implementation, imported when an engine starts it (its descriptor,
 * `webhooksPlugin`, is index.ts): the /api/v1/webhooks resource (added to the REST API's scope
 * through `services.apiRoutes`, with the OpenAPI `webhooks` section describing what receivers get)
 * and the delivery worker that sends the outbox's events to the endpoints. The outbox itself (an engine
 * service, `services.webhookOutbox`), the event catalog and the endpoint rules live in core/webhooks
 * (the CLI shares them); this plugin adds HTTP in both directions and its setting,
 * `webhooks.allowPrivateNetworks`.
 *
 * `createWebhooksPlugin(options)` lets a test or an embedder hand in its own name resolution (the
 * SSRF guard's), jitter source or attempt timeout.
 */
import type { Registry } from 'prom-client'
import {
  definePlugin,
  services,
  type ApiRoutes,
  type ClockShape,
  type EnginePlugin,
  type Leases,
  type Logger,
  type Resolve,
  type SecurityShape,
  type StorageShape,
  type WebhookOutbox,
} from '../../core/extension.js'
import type { AgentDispatcher } from '../../core/agentRuntime/dispatcher.js'
import { WebhookEndpoints } from '../../core/webhooks/endpoints.js'
import { systemResolver, type HostResolver } from '../../core/webhooks/urlGuard.js'
import { DeliveryWorker } from './delivery.js'
import { DeliveryThread } from './deliveryThread.js'
import { webhookDocuments } from './openapi.js'
import type { PaceLoop } from './pace.js'
import { webhookRoutes } from './routes.js'
import { webhooksSettings, type WebhooksSettings } from './settings.js'

export interface WebhooksPluginOptions {
  /** Name resolution of the SSRF guard, at create time and on every delivery connection. */
  readonly resolve?: HostResolver
  /** Jitter of the retry schedule, in [0, 1). */
  readonly random?: () => number
  /** Per-attempt timeout (default 10 s). */
  readonly attemptTimeoutMs?: number
  /** The event loop the delivery pace watches (tests play a saturated one and end its windows). */
  readonly paceLoop?: PaceLoop
}

interface WebhooksServices {
  readonly settings: WebhooksSettings
  readonly log: Logger
  readonly metrics: Registry
  readonly clock: ClockShape
  readonly storage: StorageShape
  readonly security: SecurityShape
  readonly outbox: WebhookOutbox
  readonly apiRoutes: ApiRoutes
  readonly leases: Leases
  /** The agent dispatcher, resolved at start (the CLI's container, which builds the plugin too, has none). */
  readonly agents?: () => Pick<AgentDispatcher, 'useFunctionEndpoints'>
}

export class WebhooksPlugin implements EnginePlugin {
  /** The endpoints service (the REST routes and `hark webhook` use it). */
  readonly endpoints: WebhookEndpoints
  private running: DeliveryWorker | null = null
  private sender: DeliveryThread | null = null

  constructor(
    private readonly services: WebhooksServices,
    private readonly options: WebhooksPluginOptions = {},
  ) {
    const { settings, storage, security, clock, outbox, apiRoutes } = services
    this.endpoints = new WebhookEndpoints({
      storage,
      secrets: security.webhookSecrets,
      clock,
      policy: settings,
      resolve: options.resolve ?? systemResolver,
      outbox,
    })
    // Added while being built: the REST plugin registers every resource when it registers itself.
    apiRoutes.add({
      name: 'webhooks',
      register: async (app, api) => {
        await app.register(webhookRoutes(this.endpoints, api))
      },
      tags: [{ name: 'webhooks', description: 'Webhook endpoints: signed, ordered, at-least-once event delivery (spec/webhooks.md).' }],
      webhooks: webhookDocuments(),
    })
  }

  /** The running worker, once started (tests read its queue). */
  get worker(): DeliveryWorker | null {
    return this.running
  }

  /** The delivery thread, once started (tests end it as a crash would). */
  get thread(): DeliveryThread | null {
    return this.sender
  }

  start(): void {
    const { settings, storage, clock, log, metrics, outbox, leases } = this.services
    // Agents' back-end functions go to a webhook endpoint of the workspace, signed with its secret(s).
    this.services.agents?.().useFunctionEndpoints((workspaceId, webhookId) => {
      const r = storage.webhookEndpoints.get(workspaceId, webhookId)
      if (!r) return { unavailable: `no function endpoint: there is no webhook ${webhookId} in this workspace` }
      return { url: r.url, secrets: this.endpoints.signingSecrets(r, clock.now()), allowPrivateNetworks: settings.allowPrivateNetworks }
    })
    // Signing and HTTP run on a thread of their own, off the event loop terminals connect on.
    this.sender = new DeliveryThread({ policy: settings, resolve: this.options.resolve, timeoutMs: this.options.attemptTimeoutMs, log, metrics })
    this.sender.start()
    this.running = new DeliveryWorker({
      storage,
      clock,
      log,
      metrics,
      sender: this.sender,
      endpoints: this.endpoints,
      outbox,
      random: this.options.random,
      leases,
      paceLoop: this.options.paceLoop,
    })
    this.running.start()
  }

  async stop(): Promise<void> {
    await this.running?.stop()
  }
}

/** How the plugin is built in an engine's container, with `options`. */
export const webhooksCreate =
  (options: WebhooksPluginOptions = {}) =>
  (resolve: Resolve): WebhooksPlugin =>
    new WebhooksPlugin(
      {
        settings: resolve(webhooksSettings.key),
        log: resolve(services.log),
        metrics: resolve(services.metrics),
        clock: resolve(services.clock),
        storage: resolve(services.storage),
        security: resolve(services.security),
        outbox: resolve(services.webhookOutbox),
        apiRoutes: resolve(services.apiRoutes),
        leases: resolve(services.leases),
        agents: () => resolve(services.agents),
      },
      options,
    )

/** The plugin with options of a test's or an embedder's (the default, `webhooksPlugin`, is index.ts's). */
export const createWebhooksPlugin = (options: WebhooksPluginOptions = {}) =>
  definePlugin('webhooks', { settings: webhooksSettings, create: webhooksCreate(options) })
