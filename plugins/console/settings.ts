/** The console plugin's settings (spec/console.md, Serving and Sessions). */
import * as Schema from 'effect/Schema'
import { defineSettings, intBetween, Port, setting } from '../../core/extension.js'

export const consoleSettings = defineSettings('console', {
  enabled: setting(Schema.Boolean, true, 'serve the web console when its plugin is registered; false: the plugin starts nothing'),
  port: setting(Port, 8090, 'HTTPS listener of the web console and its JSON API, with the engine certificate'),
  headersTimeoutMs: setting(
    intBetween(1000, 30_000),
    10_000,
    'a connection must finish its TLS handshake within it, and then send each request line and headers within it, else it is closed (Node alone waits 120 s for a handshake)',
  ),
  sessionIdleSeconds: setting(intBetween(60, 2_592_000), 43_200, 'a console session unused this long ends (sign in again)'),
  sessionMaxSeconds: setting(intBetween(300, 31_536_000), 604_800, 'a console session ends this long after sign-in, used or not'),
})

export type ConsoleSettings = typeof consoleSettings.Type
