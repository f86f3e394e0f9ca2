import { describe, expect, it } from 'vitest'
import defaultConfig from '../engine.config.js'
import { ConfigError, defaultSettings, resolveSettings, settingDescriptors } from './config.js'

describe('settings', () => {
  it('defaults match the documented engine.config.ts', () => {
    const { extensions: _e, ...settings } = defaultConfig
    expect(resolveSettings({ file: { source: 'engine.config.ts', settings } })).toEqual(defaultSettings)
    expect(defaultSettings.host).toBe('127.0.0.1')
    expect(defaultSettings.rest.port).toBe(8080)
    expect(defaultSettings.gateway.port).toBe(8443)
    expect(defaultSettings.mqtt.port).toBe(2883)
    expect(defaultSettings.dataDir).toBe('./data')
  })

  it('derives one env variable and one flag per setting', () => {
    const restPort = settingDescriptors.find((d) => d.path === 'rest.port')!
    expect(restPort).toMatchObject({ env: 'HARK_REST_PORT', flag: 'rest-port', defaultValue: 8080 })
    const grace = settingDescriptors.find((d) => d.path === 'security.secretGraceSeconds')!
    expect(grace).toMatchObject({ env: 'HARK_SECURITY_SECRET_GRACE_SECONDS', flag: 'security-secret-grace-seconds' })
    expect(new Set(settingDescriptors.map((d) => d.env)).size).toBe(settingDescriptors.length)
  })

  it('layers file < env < flags and decodes strings to typed values', () => {
    const s = resolveSettings({
      file: { source: 'f.json', settings: { rest: { port: 9000 }, log: { level: 'debug' } } },
      env: { HARK_REST_PORT: '9100', HARK_MQTT_TLS_PORT: '8883', HARK_TLS_CERT_FILE: '/x.pem', UNRELATED: 'x' },
      flags: { 'rest.port': '9200' },
    })
    expect(s.rest.port).toBe(9200)
    expect(s.mqtt.tlsPort).toBe(8883)
    expect(s.tls.certFile).toBe('/x.pem')
    expect(s.log.level).toBe('debug')
    expect(s.gateway.port).toBe(8443)
  })

  it.each([
    [{ env: { HARK_REST_PORT: 'abc' } }, 'rest.port', 'HARK_REST_PORT'],
    [{ flags: { 'gateway.port': '70000' } }, 'gateway.port', '--gateway-port'],
    [{ env: { HARK_LOG_LEVEL: 'loud' } }, 'log.level', 'HARK_LOG_LEVEL'],
    [{ file: { source: 'c.json', settings: { rest: { prot: 1 } } } }, 'rest.prot', 'c.json'],
    [{ file: { source: 'c.json', settings: { security: { secretGraceSeconds: -1 } } } }, 'security.secretGraceSeconds', 'c.json'],
    [{ file: { source: 'c.json', settings: { host: '' } } }, 'host', 'c.json'],
  ])('a bad value names the setting and where it came from (%#)', (layers, setting, source) => {
    let error: unknown
    try {
      resolveSettings(layers)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    const e = error as ConfigError
    expect(e.setting).toBe(setting)
    expect(e.source).toBe(source)
    expect(e.message.split('\n')).toHaveLength(1)
    expect(e.message).toContain(setting)
  })
})
