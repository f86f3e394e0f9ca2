import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import defaultConfig from '../engine.config.js'
import { resolveSettings, SettingsSchema } from '../core/index.js'
import { repoRoot } from '../core/test/helpers.js'
import { between, errorTable, ERRORS_MARKERS, replaceBetween, SETTINGS_MARKERS, settingsTable } from './docs.js'

const builtins = defaultConfig.extensions ?? []
const { descriptors } = new SettingsSchema(builtins)

describe('generated tables in the docs', () => {
  it("README.md's settings table is the one the declarations give (npm run docs rewrites it)", () => {
    const readme = readFileSync(`${repoRoot}README.md`, 'utf8')
    expect(between(readme, SETTINGS_MARKERS)).toBe(settingsTable(descriptors))
    expect(replaceBetween(readme, SETTINGS_MARKERS, settingsTable(descriptors))).toBe(readme)
  })

  it("spec/extensions.md's error table is core/errors.ts's", () => {
    const spec = readFileSync(`${repoRoot}spec/extensions.md`, 'utf8')
    expect(between(spec, ERRORS_MARKERS)).toBe(errorTable())
    expect(errorTable()).toContain('| `TokenRevoked` | `token_revoked` | 401 | 0x87 | 0x05 | 4003 |')
  })
})

describe('the settings of the default engine', () => {
  it('engine.config.ts states only documented defaults: resolving it equals resolving nothing', () => {
    const { extensions: _e, ...settings } = defaultConfig
    expect(resolveSettings({ file: { source: 'engine.config.ts', settings } }, builtins)).toEqual(resolveSettings({}, builtins))
  })

  it("keeps every HARK_* variable main's README documented before the settings moved into their extensions", () => {
    const before = `HARK_AGENTS_DEFAULT_AGENT_STOP_DELAY_SECONDS HARK_AGENTS_DEFAULT_PROVIDER HARK_AGENTS_MAX_PER_ROOM
      HARK_AGENTS_OPENAI_REALTIME_API_KEY HARK_AGENTS_OPENAI_REALTIME_API_KEY_ENV
      HARK_AGENTS_OPENAI_REALTIME_BASE_URL HARK_AGENTS_PIPELINE_LLM_API_KEY HARK_AGENTS_PIPELINE_LLM_API_KEY_ENV
      HARK_AGENTS_PIPELINE_LLM_BASE_URL HARK_AGENTS_PIPELINE_REQUEST_TIMEOUT_MS HARK_AGENTS_PIPELINE_STT_API_KEY
      HARK_AGENTS_PIPELINE_STT_API_KEY_ENV HARK_AGENTS_PIPELINE_STT_BASE_URL HARK_AGENTS_PIPELINE_TTS_API_KEY
      HARK_AGENTS_PIPELINE_TTS_API_KEY_ENV HARK_AGENTS_PIPELINE_TTS_BASE_URL HARK_AGENTS_PLAYOUT_LEAD_MS
      HARK_AGENTS_START_TIMEOUT_MS HARK_AGENTS_STOP_TIMEOUT_MS HARK_DATA_DIR HARK_GATEWAY_PORT HARK_HOST
      HARK_LOG_FORMAT HARK_LOG_LEVEL HARK_MQTT_CONNECT_TIMEOUT_SECONDS HARK_MQTT_MAX_BUFFERED_AUDIO_BYTES
      HARK_MQTT_MAX_INFLIGHT HARK_MQTT_MAX_KEEP_ALIVE_SECONDS HARK_MQTT_MAX_PACKET_BYTES HARK_MQTT_MAX_QUEUED_EVENTS
      HARK_MQTT_MAX_SESSION_EXPIRY_SECONDS HARK_MQTT_PORT HARK_MQTT_TLS_PORT HARK_REST_BODY_LIMIT_BYTES
      HARK_REST_CONNECTION_TIMEOUT_MS HARK_REST_HEADERS_TIMEOUT_MS HARK_REST_KEEP_ALIVE_TIMEOUT_MS HARK_REST_PORT
      HARK_REST_RATE_LIMIT_MAX HARK_REST_RATE_LIMIT_WINDOW_SECONDS HARK_REST_REQUEST_TIMEOUT_MS
      HARK_SECURITY_MASTER_KEY HARK_SECURITY_MASTER_KEY_FILE HARK_SECURITY_MAX_TOKEN_TTL_SECONDS
      HARK_SECURITY_SECRET_GRACE_SECONDS HARK_STORAGE_CHANGE_POLL_MS HARK_TLS_CERT_FILE
      HARK_TLS_KEY_FILE HARK_USAGE_CHECKPOINT_MS HARK_WEBRTC_ANNOUNCED_ADDRESS HARK_WEBRTC_CONNECT_TIMEOUT_MS
      HARK_WEBRTC_HOST_ADDRESSES HARK_WEBRTC_ICE_SERVER_URLS HARK_WEBRTC_MAX_PEERS HARK_WEBRTC_PORT_MAX
      HARK_WEBRTC_PORT_MIN HARK_WEBRTC_TURN_CREDENTIAL HARK_WEBRTC_TURN_SECRET HARK_WEBRTC_TURN_USERNAME`.split(/\s+/)
    const now = new Set(descriptors.map((d) => d.env))
    expect(before.filter((env) => !now.has(env))).toEqual([])
    expect(descriptors.find((d) => d.path === 'mqtt.port')).toMatchObject({ defaultValue: 2883, owner: 'transport mqtt' })
    expect(descriptors.find((d) => d.path === 'gateway.port')).toMatchObject({ defaultValue: 8443, owner: 'transport websocket' })
  })
})
