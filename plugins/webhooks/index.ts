/**
 * The webhooks plugin's descriptor: its name and settings. Its implementation (plugin.ts: the
 * /api/v1/webhooks routes, the delivery worker and its thread) is imported only when an engine
 * starts it, so a `hark` command that only reads the config does not load it (spec/extensions.md,
 * Loading on start). A test or an embedder with options of its own uses plugin.ts's
 * `createWebhooksPlugin`.
 */
import { definePlugin } from '../../core/extension.js'
import { webhooksSettings } from './settings.js'

export type { WebhooksPlugin, WebhooksPluginOptions } from './plugin.js'

export const webhooksPlugin = definePlugin('webhooks', {
  settings: webhooksSettings,
  load: async () => (await import('./plugin.js')).webhooksCreate(),
})
