/**
 * Engine settings: their schema, their defaults, and how a value arrives from a config
 * file, `HARK_*` environment variables or `hark start` flags. Every setting has one path
 * (`rest.port`), one environment variable (`HARK_REST_PORT`) and one flag (`--rest-port`);
 * all three are derived from the schema so they cannot drift apart.
 */
import { Schema, SchemaIssue } from 'effect'
import { ConfigError } from './configError.js'
import type { Extension } from './extension.js'

const Port = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 }))
const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const LogLevel = Schema.Literals(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
const LogFormat = Schema.Literals(['auto', 'pretty', 'json'])

/** One OpenAI-compatible HTTP API of the pipeline agent: base URL and key (null and no variable: no key). */
const PipelineApi = Schema.Struct({
  /** e.g. https://api.openai.com/v1, or a local server speaking the same API. */
  baseUrl: Schema.String.check(Schema.isPattern(/^https?:\/\/[^\s]+$/)),
  apiKey: Schema.NullOr(Schema.NonEmptyString),
  /** Environment variable read for the key when apiKey is null. */
  apiKeyEnv: Schema.NonEmptyString,
})

export const SettingsSchema = Schema.Struct({
  /** Interface every listener binds to. */
  host: Schema.NonEmptyString,
  /** Where the libSQL file, generated TLS material and master key live. */
  dataDir: Schema.NonEmptyString,
  log: Schema.Struct({
    level: LogLevel,
    /** pretty: readable lines (time, level, message, key=value); json: one object a line; auto: pretty when stderr is a terminal. */
    format: LogFormat,
  }),
  rest: Schema.Struct({
    /** REST API, /healthz and /metrics (plain HTTP; put TLS in front in production). */
    port: Port,
    /** Largest accepted request body. */
    bodyLimitBytes: Schema.Int.check(Schema.isBetween({ minimum: 1024, maximum: 10_485_760 })),
    /** Requests allowed per workspace per window. */
    rateLimitMax: PositiveInt,
    rateLimitWindowSeconds: PositiveInt,
    /** The request head (line and headers) must arrive within this, counted from its first byte or the connection's start. */
    headersTimeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 1000, maximum: 300_000 })),
    /** The whole request (head and body) must arrive within this; at least headersTimeoutMs. */
    requestTimeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 1000, maximum: 600_000 })),
    /** An idle keep-alive connection is closed after this long without a new request. */
    keepAliveTimeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 600_000 })),
    /** A connection with no traffic either way for this long is closed, also while an answer is pending; above agents.startTimeoutMs. */
    connectionTimeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 1000, maximum: 3_600_000 })),
  }),
  gateway: Schema.Struct({
    /** TLS listener for WSS (/v1/connect) and WebRTC signalling (/v1/webrtc/offer). */
    port: Port,
  }),
  webrtc: Schema.Struct({
    /**
     * Addresses offered as ICE host candidates, comma-separated IP literals. null: `host` when it
     * is one address, every non-internal IPv4 interface address when `host` is 0.0.0.0 or ::.
     */
    hostAddresses: Schema.NullOr(Schema.NonEmptyString),
    /** Public IP of a 1:1 NAT in front of this machine: announced instead of the host addresses. */
    announcedAddress: Schema.NullOr(Schema.NonEmptyString),
    /** UDP ports for peers (one per peer); 0 and 0 let the OS pick any free port. */
    portMin: Port,
    portMax: Port,
    /** ICE servers handed to clients, comma-separated stun:/turn:/turns: URLs; null for none. */
    iceServerUrls: Schema.NullOr(Schema.NonEmptyString),
    /** Static TURN credentials for the turn: URLs (ignored when turnSecret is set). */
    turnUsername: Schema.NullOr(Schema.NonEmptyString),
    turnCredential: Schema.NullOr(Schema.NonEmptyString),
    /** Shared secret of a TURN server using time-limited credentials (coturn use-auth-secret). */
    turnSecret: Schema.NullOr(Schema.NonEmptyString),
    /** Peers (connecting or connected) beyond which offers are refused with 503. */
    maxPeers: PositiveInt,
    /** An answered peer whose data channel is not open after this long is closed. */
    connectTimeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 120_000 })),
  }),
  mqtt: Schema.Struct({
    /** Plain-TCP MQTT listener. */
    port: Port,
    /** Optional MQTT over TLS listener (uses the gateway certificate); null disables it. */
    tlsPort: Schema.NullOr(Port),
    /** Largest MQTT packet accepted (and announced to MQTT 5 clients); a bigger one closes the connection. */
    maxPacketBytes: Schema.Int.check(Schema.isBetween({ minimum: 2048, maximum: 268_435_455 })),
    /** Keepalive ceiling: MQTT 5 clients asking for 0 or more get this as Server Keep Alive. */
    maxKeepAliveSeconds: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 65_535 })),
    /** How long the subscriptions and unacknowledged events of a non-clean session outlive its connection. */
    maxSessionExpirySeconds: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4_294_967_295 })),
    /** A connection that sends no CONNECT within this time is closed. */
    connectTimeoutSeconds: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 300 })),
    /** Unacknowledged QoS 1 events per connection (also the Receive Maximum announced to MQTT 5 clients). */
    maxInflight: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 65_535 })),
    /** Events waiting behind a full inflight window; one more closes the connection (quota exceeded). */
    maxQueuedEvents: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000 })),
    /** Downlink audio is dropped (and counted) while more than this many bytes wait to be written. */
    maxBufferedAudioBytes: Schema.Int.check(Schema.isBetween({ minimum: 1024, maximum: 67_108_864 })),
  }),
  console: Schema.Struct({
    /** Serve the web console (plugins/console) when its plugin is registered. */
    enabled: Schema.Boolean,
    /** HTTPS listener of the console (the engine's certificate), bound to `host`. */
    port: Port,
    /** A console session unused this long ends (sign in again). */
    sessionIdleSeconds: Schema.Int.check(Schema.isBetween({ minimum: 60, maximum: 2_592_000 })),
    /** A console session ends this long after sign-in, used or not. */
    sessionMaxSeconds: Schema.Int.check(Schema.isBetween({ minimum: 300, maximum: 31_536_000 })),
  }),
  tls: Schema.Struct({
    /** PEM certificate and key; when both are null a self-signed pair is generated into the data dir. */
    certFile: Schema.NullOr(Schema.NonEmptyString),
    keyFile: Schema.NullOr(Schema.NonEmptyString),
  }),
  security: Schema.Struct({
    /** Base64 of 32 bytes. When null the key is read from (or generated into) masterKeyFile. */
    masterKey: Schema.NullOr(Schema.NonEmptyString),
    /** Defaults to <dataDir>/master.key. */
    masterKeyFile: Schema.NullOr(Schema.NonEmptyString),
    /** How long the previous signing secret keeps verifying after a rotation. */
    secretGraceSeconds: NonNegativeInt,
    /** Upper bound of ttlSeconds on token endpoints. */
    maxTokenTtlSeconds: PositiveInt,
  }),
  storage: Schema.Struct({
    /** How often the engine looks for changes made by another process (the CLI) in the data dir. */
    changePollMs: Schema.Int.check(Schema.isBetween({ minimum: 20, maximum: 1000 })),
  }),
  usage: Schema.Struct({
    /** How often open sessions are checkpointed: the most metered time a crash can lose. */
    checkpointMs: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 5000 })),
  }),
  agents: Schema.Struct({
    /** Provider of the platform default agent (a dispatch without presetId), at its config defaults. */
    defaultProvider: Schema.NonEmptyString,
    /** A provider session that has not started (and joined its room) by then fails. */
    startTimeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 120_000 })),
    /** Stopping waits this long for the provider to release, then the agent is stopped anyway. */
    stopTimeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 60_000 })),
    /** How far ahead of real time the start of an agent's talk spurt is sent (listeners' pre-buffer). */
    playoutLeadMs: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 200 })),
    /** Agents at once in one room. */
    maxPerRoom: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 64 })),
    /** How long a room's default agent stays after the last terminal left (a room may set its own). */
    defaultAgentStopDelaySeconds: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 86_400 })),
    openaiRealtime: Schema.Struct({
      /** Realtime API base; the session connects to <baseUrl>/realtime?model=…. */
      baseUrl: Schema.NonEmptyString,
      /** The API key; prefer apiKeyEnv (or HARK_AGENTS_OPENAI_REALTIME_API_KEY) over a config file. */
      apiKey: Schema.NullOr(Schema.NonEmptyString),
      /** Environment variable read for the key when apiKey is null. */
      apiKeyEnv: Schema.NonEmptyString,
    }),
    /** The `pipeline` provider: speech-to-text, chat model and text-to-speech, each its own endpoint. */
    pipeline: Schema.Struct({
      stt: PipelineApi,
      llm: PipelineApi,
      tts: PipelineApi,
      /** A request must answer, and each streamed chunk arrive, within this (else the turn fails). */
      requestTimeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 120_000 })),
    }),
  }),
})

export type Settings = typeof SettingsSchema.Type

/** The documented defaults; engine.config.ts spells every one of them out. */
export const defaultSettings: Settings = {
  host: '127.0.0.1',
  dataDir: './data',
  log: { level: 'info', format: 'auto' },
  rest: {
    port: 8080,
    bodyLimitBytes: 65_536,
    rateLimitMax: 1200,
    rateLimitWindowSeconds: 60,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5000,
    connectionTimeoutMs: 130_000,
  },
  gateway: { port: 8443 },
  webrtc: {
    hostAddresses: null,
    announcedAddress: null,
    portMin: 0,
    portMax: 0,
    iceServerUrls: null,
    turnUsername: null,
    turnCredential: null,
    turnSecret: null,
    maxPeers: 1000,
    connectTimeoutMs: 10_000,
  },
  mqtt: {
    port: 2883,
    tlsPort: null,
    maxPacketBytes: 16_384,
    maxKeepAliveSeconds: 1200,
    maxSessionExpirySeconds: 3600,
    connectTimeoutSeconds: 10,
    maxInflight: 16,
    maxQueuedEvents: 1000,
    maxBufferedAudioBytes: 65_536,
  },
  console: { enabled: true, port: 8090, sessionIdleSeconds: 43_200, sessionMaxSeconds: 604_800 },
  tls: { certFile: null, keyFile: null },
  security: {
    masterKey: null,
    masterKeyFile: null,
    secretGraceSeconds: 86_400,
    maxTokenTtlSeconds: 31_536_000,
  },
  storage: { changePollMs: 200 },
  usage: { checkpointMs: 5000 },
  agents: {
    defaultProvider: 'echo',
    startTimeoutMs: 15_000,
    stopTimeoutMs: 5000,
    playoutLeadMs: 40,
    maxPerRoom: 4,
    defaultAgentStopDelaySeconds: 30,
    openaiRealtime: { baseUrl: 'wss://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' },
    pipeline: {
      stt: { baseUrl: 'https://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' },
      llm: { baseUrl: 'https://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' },
      tts: { baseUrl: 'https://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' },
      requestTimeoutMs: 15_000,
    },
  },
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object | null ? DeepPartial<NonNullable<T[K]>> | Extract<T[K], null> : T[K] }

export type SettingsInput = DeepPartial<Settings>

/** What `defineConfig` takes and `createEngine` accepts: settings plus the extensions to register. */
export interface EngineConfig extends SettingsInput {
  /** Transports, plugins and agent providers, registered by name exactly like the built-in ones. */
  readonly extensions?: ReadonlyArray<Extension>
}

/** Typed identity: gives embedders and engine.config.ts autocompletion and type errors. */
export const defineConfig = <const C extends EngineConfig>(config: C): C => config

export { ConfigError }

export interface SettingDescriptor {
  readonly path: string
  readonly env: string
  readonly flag: string
  readonly defaultValue: unknown
}

const toSnake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()
const toKebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()

const leaves = (value: unknown, prefix: string[] = []): Array<[string[], unknown]> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.entries(value).flatMap(([k, v]) => leaves(v, [...prefix, k]))
    : [[prefix, value]]

/** Every setting with its env variable and flag, in schema order. */
export const settingDescriptors: ReadonlyArray<SettingDescriptor> = leaves(defaultSettings).map(([path, v]) => ({
  path: path.join('.'),
  env: 'HARK_' + path.map(toSnake).join('_'),
  flag: path.map(toKebab).join('-'),
  defaultValue: v,
}))

const StringTreeCodec = Schema.toCodecStringTree(SettingsSchema)
const encodeTree = Schema.encodeUnknownSync(StringTreeCodec)
const decodeTree = Schema.decodeUnknownResult(StringTreeCodec, { onExcessProperty: 'error' })
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

const setPath = (tree: Record<string, unknown>, path: string, value: unknown) => {
  const keys = path.split('.')
  let node = tree
  for (const key of keys.slice(0, -1)) {
    const next = node[key]
    if (next === null || typeof next !== 'object') node[key] = {}
    node = node[key] as Record<string, unknown>
  }
  node[keys[keys.length - 1]!] = value
}

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  u !== null && typeof u === 'object' && !Array.isArray(u)

/** Flatten a partial settings object to `path -> value`, keeping unknown keys so they are reported. */
const flatten = (input: unknown, prefix = ''): Array<[string, unknown]> =>
  isPlainObject(input)
    ? Object.entries(input).flatMap(([k, v]) =>
        isPlainObject(v) ? flatten(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as [string, unknown]],
      )
    : []

export interface SettingsLayers {
  /** A config file or an embedder's defineConfig(...) value (typed values). */
  readonly file?: { readonly source: string; readonly settings: unknown }
  /** Environment, usually process.env; only HARK_* names matching a setting are read. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Parsed flags keyed by setting path (strings, as typed on the command line). */
  readonly flags?: Readonly<Record<string, string>>
}

/**
 * Resolve settings: defaults, then the file, then HARK_* variables, then flags. All layers are
 * merged as a string tree and decoded once, so a bad value is reported with the layer it came from.
 */
export const resolveSettings = (layers: SettingsLayers = {}): Settings => {
  const tree = encodeTree(defaultSettings) as Record<string, unknown>
  const sources = new Map<string, string>()
  const known = new Set(settingDescriptors.map((d) => d.path))

  if (layers.file) {
    const { source, settings } = layers.file
    const { extensions: _ignored, ...rest } = (isPlainObject(settings) ? settings : {}) as Record<string, unknown>
    for (const [path, value] of flatten(rest)) {
      if (!known.has(path)) throw new ConfigError(path, source, 'unknown setting')
      const encoded = value === null ? 'null' : typeof value === 'object' ? value : String(value)
      setPath(tree, path, encoded)
      sources.set(path, source)
    }
  }
  for (const d of settingDescriptors) {
    const fromEnv = layers.env?.[d.env]
    if (fromEnv !== undefined && fromEnv !== '') {
      setPath(tree, d.path, fromEnv)
      sources.set(d.path, d.env)
    }
    const fromFlag = layers.flags?.[d.path]
    if (fromFlag !== undefined) {
      setPath(tree, d.path, fromFlag)
      sources.set(d.path, `--${d.flag}`)
    }
  }

  const result = decodeTree(tree)
  if (result._tag === 'Success') return result.success
  const first = formatIssue(result.failure.issue).issues[0]
  const path = (first?.path ?? []).map(String).join('.')
  throw new ConfigError(path || '(root)', sources.get(path) ?? 'defaults', first?.message ?? 'invalid value')
}
