/**
 * The console plugin's descriptor: its name and settings. Its implementation (plugin.ts: the
 * HTTPS server, sessions, the live feed) is imported only when an engine starts it, so a `hark`
 * command that only reads the config does not load it (spec/extensions.md, Loading on start).
 */
import { definePlugin } from '../../core/extension.js'
import { consoleSettings } from './settings.js'

export type { ConsolePlugin } from './plugin.js'

export const consolePlugin = definePlugin('console', {
  settings: consoleSettings,
  load: async () => (await import('./plugin.js')).ConsolePlugin,
})
