/**
 * The webhooks plugin: the /api/v1/webhooks resource (inside the REST API's scope) and the
 * delivery worker that sends the outbox's events to the endpoints. The outbox itself, the event
 * catalog and the endpoint rules live in core/webhooks (the CLI shares them); this plugin adds
 * HTTP in both directions.
 *
 * `webhooksPlugin` is the default; `createWebhooksPlugin(options)` lets a test or an embedder hand
 * in its own name resolution (the SSRF guard's), jitter source or attempt timeout.
 */
import { Effect } from 'effect'
import { definePlugin } from '../../core/extension.js'
import type { EngineHost } from '../../core/host.js'
import type { EnginePlugin } from '../../core/plugin.js'
import { MasterKey } from '../../core/security/masterKey.js'
import { WebhookEndpoints } from '../../core/webhooks/endpoints.js'
import { systemResolver, type HostResolver } from '../../core/webhooks/urlGuard.js'
import { DeliveryWorker } from './delivery.js'
import { webhookRoutes } from './routes.js'
import { WebhookSender } from './sender.js'

export interface WebhooksPluginOptions {
  /** Name resolution of the SSRF guard, at create time and on every delivery connection. */
  readonly resolve?: HostResolver
  /** Jitter of the retry schedule, in [0, 1). */
  readonly random?: () => number
  /** Per-attempt timeout (default 10 s). */
  readonly attemptTimeoutMs?: number
}

export interface WebhooksPlugin extends EnginePlugin {
  /** The endpoints service (the REST routes and the console use it). */
  endpoints(): Promise<WebhookEndpoints>
  /** The running worker, once started (tests read its queue). */
  readonly worker: DeliveryWorker | null
}

export const createWebhooksPlugin = (options: WebhooksPluginOptions = {}) =>
  definePlugin('webhooks', (host: EngineHost) => {
    const resolve = options.resolve ?? systemResolver
    const policy = { allowPrivateNetworks: host.settings.webhooks.allowPrivateNetworks }
    let endpoints: Promise<WebhookEndpoints> | undefined
    const getEndpoints = () =>
      (endpoints ??= host
        .run(Effect.gen(function* () {
          return yield* MasterKey
        }))
        .then(
          (masterKey) =>
            new WebhookEndpoints({ storage: host.storage, masterKey, clock: host.clock, policy, resolve, outbox: host.webhookOutbox }),
        ))
    let worker: DeliveryWorker | null = null
    const plugin: WebhooksPlugin = {
      endpoints: getEndpoints,
      get worker() {
        return worker
      },
      api: async (app) => {
        await app.register(webhookRoutes(await getEndpoints()))
      },
      start: async () => {
        worker = new DeliveryWorker({
          storage: host.storage,
          clock: host.clock,
          log: host.log,
          metrics: host.metrics,
          sender: new WebhookSender({ policy, resolve, timeoutMs: options.attemptTimeoutMs }),
          endpoints: await getEndpoints(),
          outbox: host.webhookOutbox,
          random: options.random,
        })
        worker.start()
      },
      stop: () => worker?.stop(),
    }
    return plugin
  })

export const webhooksPlugin = createWebhooksPlugin()
