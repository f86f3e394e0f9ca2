import * as Schema from 'effect/Schema'
import { describe, expect, it } from 'vitest'
import { ConfigError, defineSettings, intBetween, Port, resolveSettings, sectionOf, setting, SettingsSchema } from './config.js'

// Sections as extensions declare them (core's tests import no extension): one at the top level,
// one nested in a core node, one sharing a core node.
const lineSettings = defineSettings('line', {
  port: setting(Port, 7000, 'TCP listener'),
  tlsPort: setting(Schema.NullOr(Port), null, 'TLS listener; null: off'),
  maxInflight: setting(intBetween(1, 65_535), 16, 'unacknowledged lines'),
})
const voiceSettings = defineSettings('agents.voiceBot', {
  baseUrl: setting(Schema.NonEmptyString, 'wss://voice.example/v1', 'endpoint'),
  apiKeyEnv: setting(Schema.NonEmptyString, 'VOICE_KEY', 'variable holding the key'),
  stt: { model: setting(Schema.NonEmptyString, 'small', 'speech-to-text model') },
})
const limitSettings = defineSettings('rest', { rateLimitMax: setting(intBetween(1, 1e6), 1200, 'requests per window') })
const builtinSections = [lineSettings, voiceSettings, limitSettings]

describe('settings', () => {
  it('resolves to the declared defaults, the sections at their paths', () => {
    const s = resolveSettings({}, builtinSections)
    expect(s.host).toBe('127.0.0.1')
    expect(s.rest.port).toBe(8080)
    expect(s.dataDir).toBe('./data')
    expect(sectionOf(s, lineSettings)).toEqual({ port: 7000, tlsPort: null, maxInflight: 16 })
    expect(sectionOf(s, voiceSettings)).toEqual({ baseUrl: 'wss://voice.example/v1', apiKeyEnv: 'VOICE_KEY', stt: { model: 'small' } })
    expect(sectionOf(s, limitSettings)).toEqual({ rateLimitMax: 1200 })
    expect(s.agents.maxPerRoom).toBe(4)
    expect(s.cluster.relayBatchMs).toBe(0)
    expect(s.cluster.relayLink).toBe(true)
    expect(s.cluster.relaySpacingUs).toBe(1000)
  })

  it("derives one env variable and one flag per setting, the extensions' included", () => {
    const { descriptors } = new SettingsSchema(builtinSections)
    const at = (path: string) => descriptors.find((d) => d.path === path)!
    expect(at('rest.port')).toMatchObject({ env: 'HARK_REST_PORT', flag: 'rest-port', defaultValue: 8080, owner: 'core' })
    expect(at('security.secretGraceSeconds')).toMatchObject({ env: 'HARK_SECURITY_SECRET_GRACE_SECONDS', flag: 'security-secret-grace-seconds' })
    expect(at('line.maxInflight')).toMatchObject({ env: 'HARK_LINE_MAX_INFLIGHT', flag: 'line-max-inflight', range: '1–65535', owner: 'line' })
    expect(new SettingsSchema([{ kind: 'agentProvider', name: 'voice-bot', settings: voiceSettings }]).descriptors.at(-1)!.owner).toBe('agent provider voice-bot')
    expect(at('agents.voiceBot.apiKeyEnv')).toMatchObject({ env: 'HARK_AGENTS_VOICE_BOT_API_KEY_ENV', flag: 'agents-voice-bot-api-key-env', owner: 'agents.voiceBot' })
    expect(at('rest.rateLimitMax')).toMatchObject({ env: 'HARK_REST_RATE_LIMIT_MAX', owner: 'rest' })
    expect(at('agents.voiceBot.stt.model')).toMatchObject({ env: 'HARK_AGENTS_VOICE_BOT_STT_MODEL', flag: 'agents-voice-bot-stt-model', owner: 'agents.voiceBot' })
    expect(at('dataDir').flag).toBe('data')
    expect(new Set(descriptors.map((d) => d.env)).size).toBe(descriptors.length)
    // Without the extensions, their settings do not exist.
    expect(new SettingsSchema().descriptors.some((d) => d.path.startsWith('line.'))).toBe(false)
  })

  it('provider workers: one per CPU unless set; agents per worker from the variable or the flag, validated', () => {
    const d = resolveSettings({})
    expect([d.agents.workers, d.agents.agentsPerWorker]).toEqual([null, 32])
    const s = resolveSettings({ env: { HARK_AGENTS_WORKERS: '2' }, flags: { 'agents.agentsPerWorker': '4' } })
    expect([s.agents.workers, s.agents.agentsPerWorker]).toEqual([2, 4])
    expect(() => resolveSettings({ env: { HARK_AGENTS_AGENTS_PER_WORKER: '0' } })).toThrow(/agents\.agentsPerWorker/)
    expect(() => resolveSettings({ flags: { 'agents.workers': '0' } })).toThrow(/agents\.workers/)
  })

  it('layers file < env < flags and decodes strings to typed values, in the sections too', () => {
    const s = resolveSettings(
      {
        file: { source: 'f.json', settings: { rest: { port: 9000 }, log: { level: 'debug' } } },
        env: { HARK_REST_PORT: '9100', HARK_LINE_TLS_PORT: '8883', HARK_TLS_CERT_FILE: '/x.pem', UNRELATED: 'x' },
        flags: { 'rest.port': '9200' },
      },
      builtinSections,
    )
    expect(s.rest.port).toBe(9200)
    expect(sectionOf(s, lineSettings).tlsPort).toBe(8883)
    expect(s.tls.certFile).toBe('/x.pem')
    expect(s.log.level).toBe('debug')
    expect(sectionOf(s, lineSettings).port).toBe(7000)
  })

  it.each([
    [{ env: { HARK_REST_PORT: 'abc' } }, 'rest.port', 'HARK_REST_PORT'],
    [{ flags: { 'line.port': '70000' } }, 'line.port', '--line-port'],
    [{ env: { HARK_LOG_LEVEL: 'loud' } }, 'log.level', 'HARK_LOG_LEVEL'],
    [{ file: { source: 'c.json', settings: { rest: { prot: 1 } } } }, 'rest.prot', 'c.json'],
    [{ file: { source: 'c.json', settings: { line: { maxInflight: 0 } } } }, 'line.maxInflight', 'c.json'],
    [{ file: { source: 'c.json', settings: { line: { prot: 1 } } } }, 'line.prot', 'c.json'],
    [{ file: { source: 'c.json', settings: { agents: { voiceBot: { baseUrl: '' } } } } }, 'agents.voiceBot.baseUrl', 'c.json'],
    [{ file: { source: 'c.json', settings: { mqtt: { port: 1883 } } } }, 'mqtt.port', 'c.json'],
    [{ file: { source: 'c.json', settings: { security: { secretGraceSeconds: -1 } } } }, 'security.secretGraceSeconds', 'c.json'],
    [{ file: { source: 'c.json', settings: { host: '' } } }, 'host', 'c.json'],
    [{ env: { HARK_CLUSTER_RELAY_BATCH_MS: '21' } }, 'cluster.relayBatchMs', 'HARK_CLUSTER_RELAY_BATCH_MS'],
    [{ flags: { 'cluster.relayBatchMs': '-1' } }, 'cluster.relayBatchMs', '--cluster-relay-batch-ms'],
    [{ env: { HARK_CLUSTER_RELAY_SPACING_US: '20001' } }, 'cluster.relaySpacingUs', 'HARK_CLUSTER_RELAY_SPACING_US'],
  ])('a bad value names the setting and where it came from (%#)', (layers, setting, source) => {
    let error: unknown
    try {
      resolveSettings(layers, builtinSections)
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

  it("refuses a section that declares a setting the core or another extension already has", () => {
    const port = setting(Schema.Int, 1, 'a port')
    expect(() => new SettingsSchema([defineSettings('rest', { port })])).toThrow(/rest\.port, already declared by core/)
    expect(() => new SettingsSchema([lineSettings, defineSettings('line', { port })])).toThrow(/line\.port, already declared by line/)
    expect(() => new SettingsSchema([defineSettings('host', { port })])).toThrow(/collides with the setting host of core/)
    expect(() => defineSettings('Bad-Path', { port })).toThrow(/camelCase/)
  })
})
