/**
 * The `xiaozhi.*` settings as the engine sees them: declared by the transport's section, decoded
 * with the engine's own (defaults, config file, HARK_XIAOZHI_* variables, --xiaozhi-* flags), bad
 * values and unknown settings refused with one line naming the setting, and absent when the
 * transport is not registered.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, createEngine, resolveSettings, sectionOf, SettingsSchema } from '../../core/index.js'
import { websocketTransport } from '../websocket/index.js'
import { xiaozhi } from './index.js'
import { xiaozhiSettings } from './settings.js'

const extensions = [websocketTransport, ...xiaozhi]
const resolve = (layers: Parameters<typeof resolveSettings>[0]) => sectionOf(resolveSettings(layers, extensions), xiaozhiSettings)
const file = (settings: unknown) => ({ file: { source: 'engine config', settings } })
const refusal = (layers: Parameters<typeof resolveSettings>[0]): string => {
  try {
    resolve(layers)
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return (e as Error).message
  }
  throw new Error('expected a refusal')
}

describe('xiaozhi settings', () => {
  it('default to the documented values, declared by the transport, with a variable and a flag each', () => {
    expect(resolve({})).toEqual({ path: '/xiaozhi/v1/', plainPort: null, websocketUrl: null, autoAgent: true })
    const declared = new SettingsSchema(extensions).descriptors.filter((d) => d.path.startsWith('xiaozhi.'))
    expect(declared.map((d) => [d.path, d.env, d.flag, d.owner])).toEqual([
      ['xiaozhi.path', 'HARK_XIAOZHI_PATH', 'xiaozhi-path', 'transport xiaozhi'],
      ['xiaozhi.plainPort', 'HARK_XIAOZHI_PLAIN_PORT', 'xiaozhi-plain-port', 'transport xiaozhi'],
      ['xiaozhi.websocketUrl', 'HARK_XIAOZHI_WEBSOCKET_URL', 'xiaozhi-websocket-url', 'transport xiaozhi'],
      ['xiaozhi.autoAgent', 'HARK_XIAOZHI_AUTO_AGENT', 'xiaozhi-auto-agent', 'transport xiaozhi'],
    ])
  })

  it('take values from the config, then HARK_* variables, then flags', () => {
    expect(resolve(file({ xiaozhi: { plainPort: 8090, path: '/xz/' } }))).toMatchObject({ plainPort: 8090, path: '/xz/' })
    expect(
      resolve({
        ...file({ xiaozhi: { plainPort: 8090 } }),
        env: { HARK_XIAOZHI_PLAIN_PORT: '8091', HARK_XIAOZHI_AUTO_AGENT: 'false', HARK_XIAOZHI_WEBSOCKET_URL: 'wss://hark.example.com/xz/' },
        flags: { 'xiaozhi.plainPort': '8092' },
      }),
    ).toEqual({ path: '/xiaozhi/v1/', plainPort: 8092, websocketUrl: 'wss://hark.example.com/xz/', autoAgent: false })
    expect(resolve({ env: { HARK_XIAOZHI_PLAIN_PORT: 'null' } }).plainPort).toBeNull()
  })

  it('refuse a bad value or an unknown setting with one line naming it and where it came from', () => {
    expect(refusal(file({ xiaozhi: { path: 'xiaozhi' } }))).toMatch(/^invalid setting xiaozhi\.path \(from engine config\): an absolute path/)
    expect(refusal({ env: { HARK_XIAOZHI_PATH: '/v1/connect' } })).toMatch(/^invalid setting xiaozhi\.path \(from HARK_XIAOZHI_PATH\): not under \/v1\//)
    expect(refusal({ flags: { 'xiaozhi.path': '/xiaozhi/ota/' } })).toMatch(/^invalid setting xiaozhi\.path \(from --xiaozhi-path\): not under/)
    expect(refusal({ env: { HARK_XIAOZHI_PLAIN_PORT: '70000' } })).toMatch(/^invalid setting xiaozhi\.plainPort \(from HARK_XIAOZHI_PLAIN_PORT\)/)
    expect(refusal(file({ xiaozhi: { websocketUrl: 'http://x/' } }))).toMatch(/^invalid setting xiaozhi\.websocketUrl \(from engine config\): a ws:\/\/ or wss:\/\/ URL/)
    expect(refusal({ env: { HARK_XIAOZHI_AUTO_AGENT: 'sometimes' } })).toMatch(/^invalid setting xiaozhi\.autoAgent \(from HARK_XIAOZHI_AUTO_AGENT\)/)
    expect(refusal(file({ xiaozhi: { plainprot: 8090 } }))).toBe('invalid setting xiaozhi.plainprot (from engine config): unknown setting')
    for (const message of [refusal(file({ xiaozhi: { path: 'x' } })), refusal(file({ xiaozhi: { plainprot: 1 } }))]) expect(message).not.toContain('\n')
  })

  it('exist only while the transport is registered', () => {
    expect(() => createEngine({ extensions: [websocketTransport], xiaozhi: { plainPort: 8090 } } as never)).toThrow(
      /^invalid setting xiaozhi\.plainPort \(from engine config\): unknown setting$/,
    )
  })
})
