/**
 * The REST plugin's descriptor: its name and settings. Its implementation (plugin.ts: fastify
 * routes, Ajv schemas, OpenAPI) is imported only when an engine starts it, so a `hark` command
 * that only reads the config does not load it (spec/extensions.md, Loading on start).
 */
import { definePlugin } from '../../core/extension.js'
import { restSettings } from './services.js'

export { API_PREFIX } from './services.js'
export type { RestPlugin } from './plugin.js'

export const restPlugin = definePlugin('rest', {
  settings: restSettings,
  load: async () => (await import('./plugin.js')).RestPlugin,
})
