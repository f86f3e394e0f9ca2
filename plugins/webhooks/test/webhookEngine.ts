/**
 * An engine with the REST and webhooks plugins on free ports (webhooks.allowPrivateNetworks on,
 * so loopback receivers are allowed), a driven clock when the test asks for one, and helpers to
 * create an endpoint for a receiver and follow the delivery worker's attempts.
 */
import { ManualClock, type EngineConfig } from '../../../core/index.js'
import type { Logger } from '../../../core/log.js'
import { Inbox, mergeConfig } from '../../../core/test/helpers.js'
import { startRestEngine } from '../../rest/test/restEngine.js'
import type { AttemptRecord } from '../delivery.js'
import { createWebhooksPlugin, type WebhooksPlugin, type WebhooksPluginOptions } from '../plugin.js'
import type { WebhookReceiver } from './receiver.js'

export interface WebhookEngineOptions {
  readonly config?: EngineConfig
  /** Drive time: the engine's clock starts here and moves only when the test advances it. */
  readonly clock?: ManualClock
  readonly plugin?: WebhooksPluginOptions
  readonly logger?: Logger
}

export const startWebhookEngine = async (options: WebhookEngineOptions = {}) => {
  const config = mergeConfig({ webhooks: { allowPrivateNetworks: true } }, options.config ?? {}) as EngineConfig
  const t = await startRestEngine(
    { ...config, extensions: [createWebhooksPlugin(options.plugin), ...(config.extensions ?? [])] },
    { ...(options.clock ? { clock: options.clock } : {}), ...(options.logger ? { logger: options.logger } : {}) },
  )
  const plugin = () => t.engine.host.resolve<WebhooksPlugin>('plugin', 'webhooks')
  const attempts = new Inbox<AttemptRecord>()
  plugin().worker!.onAttempt((a) => attempts.push(a))
  /** A workspace with an endpoint (every event type unless `events`) pointing at the receiver. */
  const workspaceWithEndpoint = async (receiver: WebhookReceiver, name = 'acme', events?: string[]) => {
    const ws = t.workspace(name)
    const res = await ws.api.post('/webhooks', { url: receiver.url, ...(events ? { events } : {}) })
    if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${JSON.stringify(res.body)}`)
    receiver.secrets.push(res.body.secret as string)
    return { ...ws, webhookId: res.body.webhookId as string, secret: res.body.secret as string }
  }
  /**
   * With a driven clock: let every due attempt settle, then move the clock to the next retry, again
   * and again, until nothing is pending or `untilMs` of engine time have passed. Returns the steps taken.
   */
  const runRetries = async (clock: ManualClock, untilMs: number, maxSteps = 200): Promise<number> => {
    const end = clock.now() + untilMs
    let steps = 0
    for (;;) {
      await plugin().worker!.whenIdle()
      const due = plugin().worker!.nextDueAt
      if (due === null || due > end || steps >= maxSteps) return steps
      // Synchronous: timers due on the way fire once, so days pass without running every periodic chore in between.
      clock.advance(Math.max(0, due - clock.now()))
      steps++
    }
  }
  return { ...t, plugin, worker: () => plugin().worker!, attempts, workspaceWithEndpoint, runRetries }
}

export type WebhookEngine = Awaited<ReturnType<typeof startWebhookEngine>>
