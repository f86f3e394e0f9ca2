/**
 * The console's settings are its plugin's own section: they exist only while the plugin is
 * registered, come with their HARK_* variables and flags, are validated with the engine's, and
 * `console.enabled: false` starts no listener.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { resolveSettings, SettingsSchema } from '../../core/index.js'
import { startTestEngine } from '../../core/test/helpers.js'
import { consolePlugin } from './index.js'

let stop: (() => Promise<void>) | undefined
afterEach(async () => {
  await stop?.()
  stop = undefined
})

const file = (settings: unknown) => ({ file: { source: 'engine config', settings } })

describe('console settings', () => {
  it('belong to the console plugin: unknown without it, with defaults, variables and flags with it', () => {
    expect(() => resolveSettings(file({ console: { port: 9000 } }))).toThrow('invalid setting console.port (from engine config): unknown setting')
    const console = (layers: Parameters<typeof resolveSettings>[0]) =>
      (resolveSettings(layers, [consolePlugin]) as unknown as { console: unknown }).console
    expect(console({})).toEqual({ enabled: true, port: 8090, headersTimeoutMs: 10_000, sessionIdleSeconds: 43_200, sessionMaxSeconds: 604_800 })
    expect(console({ env: { HARK_CONSOLE_PORT: '9001', HARK_CONSOLE_ENABLED: 'false' }, flags: { 'console.sessionIdleSeconds': '600' } })).toEqual({
      enabled: false, port: 9001, headersTimeoutMs: 10_000, sessionIdleSeconds: 600, sessionMaxSeconds: 604_800,
    })
    expect(() => console({ env: { HARK_CONSOLE_HEADERS_TIMEOUT_MS: '120000' } })).toThrow(/^invalid setting console\.headersTimeoutMs \(from HARK_CONSOLE_HEADERS_TIMEOUT_MS\)/)
    expect(() => console({ env: { HARK_CONSOLE_SESSION_IDLE_SECONDS: '59' } })).toThrow(/^invalid setting console\.sessionIdleSeconds \(from HARK_CONSOLE_SESSION_IDLE_SECONDS\)/)
    expect(() => console({ env: { HARK_CONSOLE_ENABLED: 'no' } })).toThrow(/^invalid setting console\.enabled \(from HARK_CONSOLE_ENABLED\)/)
    const described = new SettingsSchema([consolePlugin]).descriptors.filter((d) => d.path.startsWith('console.'))
    expect(described.map((d) => [d.path, d.env, d.flag, d.owner])).toEqual([
      ['console.enabled', 'HARK_CONSOLE_ENABLED', 'console-enabled', 'plugin console'],
      ['console.port', 'HARK_CONSOLE_PORT', 'console-port', 'plugin console'],
      ['console.headersTimeoutMs', 'HARK_CONSOLE_HEADERS_TIMEOUT_MS', 'console-headers-timeout-ms', 'plugin console'],
      ['console.sessionIdleSeconds', 'HARK_CONSOLE_SESSION_IDLE_SECONDS', 'console-session-idle-seconds', 'plugin console'],
      ['console.sessionMaxSeconds', 'HARK_CONSOLE_SESSION_MAX_SECONDS', 'console-session-max-seconds', 'plugin console'],
    ])
  })

  it('starts no console listener when console.enabled is false', async () => {
    const on = await startTestEngine({ extensions: [consolePlugin] })
    stop = on.stop
    expect(on.engine.ports.console).toBeGreaterThan(0)
    await on.stop()
    const off = await startTestEngine({ extensions: [consolePlugin], console: { enabled: false } })
    stop = off.stop
    expect(off.engine.ports.console).toBeUndefined()
    expect(off.engine.host.names('plugin')).toEqual(['console'])
  })
})
