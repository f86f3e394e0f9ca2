/**
 * Engine settings: how a setting is declared, the engine's own settings, and how a value arrives
 * from a config file, `HARK_*` environment variables or `hark start` flags.
 *
 * A setting is declared once, with `setting(schema, default, doc)`: its schema validates it, its
 * default is written there and nowhere else, and its one line of doc is what `hark settings`, the
 * flags' help and the README's settings table print. The engine declares its own settings here
 * (`coreSettings`); every extension declares its own section with `defineSettings(path, tree)`
 * and passes it to `defineTransport` / `definePlugin` / `defineAgentProvider`. The settings of an
 * engine are the core tree with the sections of its extensions merged in; a section may share a
 * node with the core tree (`rest`, `agents`) but never a setting. Every setting then has one path
 * (`mqtt.port`), one environment variable (`HARK_MQTT_PORT`) and one flag (`--mqtt-port`), all
 * derived from the path so they cannot drift apart.
 */
// Effect's modules one by one, not the 'effect' barrel (which loads all of them): this module runs in provider workers too (core/provider.ts).
import * as Context from 'effect/Context'
import * as Schema from 'effect/Schema'
import * as SchemaIssue from 'effect/SchemaIssue'
import { ConfigError } from './configError.js'
import { serviceKey, type ServiceKey } from './inject.js'
import { parseMcpServerSettings } from './agentRuntime/mcpServerSettings.js'

export { ConfigError }

// ---- Declaring settings ----

/** Brands a Setting across copies of this module (a provider module may import another copy of hark/provider). */
const SETTING = Symbol.for('hark/Setting')

/** One setting: what validates it, its default, and one line saying what it does. */
export class Setting<A = unknown> {
  readonly [SETTING] = true

  /** A Setting of this module or of another copy of it (instanceof alone would miss the latter). */
  static is(u: unknown): u is Setting {
    return u instanceof Setting || (typeof u === 'object' && u !== null && (u as { [SETTING]?: unknown })[SETTING] === true)
  }

  constructor(
    readonly schema: Schema.Top,
    readonly defaultValue: A,
    readonly doc: string,
    /** The flag when it is not the one derived from the path (`dataDir` is `--data`). */
    readonly flag: string | null = null,
  ) {}
}

export const setting = <S extends Schema.Top>(
  schema: S,
  defaultValue: S['Type'],
  doc: string,
  options: { readonly flag?: string } = {},
): Setting<S['Type']> => new Setting(schema, defaultValue, doc, options.flag ?? null)

/** A tree of settings: leaves are `setting(...)`, inner nodes are plain objects. */
export interface SettingsTree {
  readonly [key: string]: Setting | SettingsTree
}

/** The values a tree of settings decodes to. */
export type SettingsOf<T extends SettingsTree> = {
  readonly [K in keyof T]: T[K] extends Setting<infer A> ? A : T[K] extends SettingsTree ? SettingsOf<T[K]> : never
}

/** An extension's own settings, at `path` in the engine's settings (e.g. `mqtt`, `agents.openaiRealtime`). */
export interface SettingsSection<P extends string = string, T extends SettingsTree = SettingsTree> {
  readonly path: P
  readonly tree: T
  /** Inject the decoded section with `@inject(section.key)`. */
  readonly key: ServiceKey<SettingsOf<T>>
  /** Type only: what the section decodes to (`typeof section.Type`). */
  readonly Type: SettingsOf<T>
}

const PATH = /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$/

/** Declare an extension's settings section. */
export const defineSettings = <const P extends string, const T extends SettingsTree>(path: P, tree: T): SettingsSection<P, T> => {
  if (!PATH.test(path)) throw new Error(`settings section path "${path}" must be dot-separated camelCase names`)
  return { path, tree, key: serviceKey<SettingsOf<T>>(`hark.settings.${path}`), Type: undefined as never }
}

/** Integer bounds, remembered so the docs can print them. */
const ranges = new WeakMap<Schema.Top, string>()
export const intBetween = (minimum: number, maximum: number): Schema.Top & { readonly Type: number } => {
  const schema = Schema.Int.check(Schema.isBetween({ minimum, maximum }))
  ranges.set(schema, `${minimum}–${maximum}`)
  return schema
}
export const Port = intBetween(0, 65535)
const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const LogLevel = Schema.Literals(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
const LogFormat = Schema.Literals(['auto', 'pretty', 'json'])
const Text = Schema.NonEmptyString
const OptionalText = Schema.NullOr(Schema.NonEmptyString)
const DatabaseUrl = Schema.NullOr(
  Schema.String.check(
    Schema.isPattern(/^(libsql|https?):\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, {
      message: 'a libsql://, http:// or https:// URL of a libSQL server (host[:port], no credentials: those go in storage.authToken)',
    }),
  ),
)

// ---- The engine's own settings ----

/** storage.walCheckpointMs by default (bench/webhookOutboxCost.ts runs its checkpoint thread the same). */
export const DEFAULT_WAL_CHECKPOINT_MS = 250

export const coreSettings = {
  host: setting(Text, '127.0.0.1', 'interface every listener binds to'),
  dataDir: setting(Text, './data', 'the libSQL file (hark.db), generated TLS material and the master key', { flag: 'data' }),
  log: {
    level: setting(LogLevel, 'info', 'fatal, error, warn, info, debug, trace or silent'),
    format: setting(
      LogFormat,
      'auto',
      'auto: readable lines (time, level, message, key=value) when stderr is a terminal, JSON lines otherwise; pretty or json to choose',
    ),
  },
  rest: {
    port: setting(Port, 8080, 'REST API, /healthz and /metrics (plain HTTP; put TLS in front in production)'),
    bodyLimitBytes: setting(intBetween(1024, 10_485_760), 65_536, 'largest accepted request body'),
    headersTimeoutMs: setting(
      intBetween(1000, 300_000),
      10_000,
      'request line and headers must arrive within it (from their first byte or the connection start), else 408 and the connection closes',
    ),
    requestTimeoutMs: setting(intBetween(1000, 600_000), 30_000, 'the whole request, body included, at least headersTimeoutMs'),
    keepAliveTimeoutMs: setting(intBetween(100, 600_000), 5000, 'an idle keep-alive connection closes after it'),
    connectionTimeoutMs: setting(
      intBetween(1000, 3_600_000),
      130_000,
      'no traffic either way this long closes a connection, also while an answer is pending; above agents.startTimeoutMs and agents.stopTimeoutMs',
    ),
  },
  tls: {
    certFile: setting(OptionalText, null, 'PEM certificate; null (with keyFile null) → a self-signed pair generated into the data dir'),
    keyFile: setting(OptionalText, null, 'PEM private key of certFile'),
  },
  security: {
    masterKey: setting(OptionalText, null, 'base64 of 32 bytes (prefer the environment variable); null → read from, or generated into, masterKeyFile'),
    masterKeyFile: setting(OptionalText, null, 'null → <dataDir>/master.key'),
    secretGraceSeconds: setting(NonNegativeInt, 86_400, 'how long the previous signing secret keeps verifying after a rotation'),
    maxTokenTtlSeconds: setting(PositiveInt, 31_536_000, 'upper bound of ttlSeconds when a client token is issued'),
  },
  storage: {
    changePollMs: setting(
      intBetween(20, 1000),
      200,
      'how often the engine reads changes another process (the CLI, another node) made; with storage.url each poll syncs the replica first',
    ),
    url: setting(
      DatabaseUrl,
      null,
      'libSQL server (sqld) holding the database: libsql:// (TLS) or http(s)://; each node keeps a replica in its data dir. null → the file <dataDir>/hark.db, no server',
      { flag: 'database-url' },
    ),
    authToken: setting(OptionalText, null, 'token the libSQL server accepts (a JWT; prefer the environment variable)', { flag: 'database-token' }),
    walCheckpointMs: setting(
      intBetween(0, 10_000),
      DEFAULT_WAL_CHECKPOINT_MS,
      "a thread of its own copies the file's write-ahead log into it (a WAL checkpoint, with its fsyncs) every N ms when something was written, so the engine's commits never wait for one; 0 → SQLite's default: the commit that takes the log past 1000 pages checkpoints, on the engine's thread (a replica on a libSQL server is not checkpointed either way)",
    ),
  },
  recordings: {
    dir: setting(OptionalText, null, 'where room recordings are written, a directory per recording; null → <dataDir>/recordings'),
    minFreeMb: setting(
      intBetween(0, 1_048_576),
      512,
      'free disk space (MiB) below which a running recording stops with recording.failed (the room goes on) and none starts; 0 → no floor',
    ),
    retentionDays: setting(intBetween(0, 36_500), 0, 'ended recordings older than this are deleted with their files; 0 → kept until deleted'),
    flushMs: setting(intBetween(100, 1000), 1000, 'how often a recording writes its pages: the most audio a crash can lose'),
  },
  overload: {
    targetLagMs: setting(
      intBetween(5, 1000),
      25,
      'how late (ms) the event loop may run while audio flows before the engine sheds a share of uplink frames, the same share of every talker, so the audio it delivers stays fresh (counted `overload`; rooms told with room.degraded)',
    ),
    staleMs: setting(
      intBetween(50, 5000),
      100,
      'with at least minTalkers talking, an uplink frame read while the event loop is this much later than its timer has waited about as long: it is dropped (counted `stale`) instead of delivered late',
    ),
    minTalkers: setting(
      PositiveInt,
      20,
      'below this many terminals sending audio at once nothing is shed, however late the loop is (a few talkers cannot overload the data plane: a pause or other work is not audio overload)',
    ),
  },
  usage: {
    checkpointMs: setting(intBetween(100, 5000), 5000, 'how often open sessions are checkpointed: the most metered time a crash can lose'),
    groupCommitMs: setting(
      intBetween(0, 1000),
      4,
      "the least time between two commits of sessions' usage rows: under a connect storm, the most a new session's `session` event waits to share a commit (0: a commit per event-loop turn)",
    ),
  },
  cluster: {
    natsUrl: setting(
      OptionalText,
      null,
      'NATS server (nats://host:port, JetStream on) that joins this node to a cluster; null → a single node (spec/cluster.md)',
    ),
    nodeId: setting(
      Schema.NullOr(Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{1,64}$/))),
      null,
      'this node in the cluster ([A-Za-z0-9_-], ≤ 64); null → generated once and kept in <dataDir>/node-id',
    ),
    leaseTtlMs: setting(intBetween(1000, 5000), 3000, "a room owner's lease: another node takes the room over within this after the owner is gone"),
    relayBatchMs: setting(
      intBetween(0, 20),
      0,
      'latency budget of audio to other nodes: 0 (default): the frames of one event-loop turn for a node leave in one NATS message at the end of the turn; N: the first frame queued for a node waits N to N+1 ms more (a Node timer) for others to share its message: fewer messages, that much added latency',
    ),
    relaySpacingUs: setting(
      intBetween(0, 20000),
      1000,
      'least time between two relay messages to one node under load, in µs: while turns with frames for a node come less than half of this apart, frames for a node that got a message less than this ago wait for a later turn to share the next one; at lighter load each turn sends its frames; 0: a message at the end of every turn with frames (spec/cluster.md, Pacing)',
    ),
    relayLink: setting(
      Schema.Boolean,
      true,
      "audio to another node over a direct link (one per node pair and direction; TCP on `host` at a port the kernel picks, and between nodes on one machine an abstract Unix socket; advertised in the heartbeat), NATS only while a link is down; false, or a wildcard `host`: audio over NATS only (spec/cluster.md, The relay link)",
    ),
  },
  agents: {
    defaultProvider: setting(Text, 'echo', 'provider of the platform default agent (a dispatch without presetId), at its config defaults'),
    startTimeoutMs: setting(intBetween(100, 120_000), 15_000, 'an agent whose provider session has not started (and joined its room) by then fails'),
    stopTimeoutMs: setting(intBetween(100, 60_000), 5000, 'stopping waits this long for the provider to release, then the agent is stopped anyway'),
    playoutLeadMs: setting(intBetween(0, 200), 40, 'agent audio sent ahead of real time at the start of a talk spurt'),
    maxPerRoom: setting(intBetween(1, 64), 4, 'agents at once in one room'),
    transcriptRetentionDays: setting(
      intBetween(0, 36_500),
      90,
      "agents' stored conversations are deleted this many days after the agent ended (an hourly sweep); 0 keeps them",
    ),
    workers: setting(
      Schema.NullOr(intBetween(1, 1024)),
      null,
      'provider worker threads at most; null → one per CPU the engine may use (os.availableParallelism(), which follows its CPU affinity)',
    ),
    agentsPerWorker: setting(
      intBetween(1, 1024),
      32,
      'isolated agents one provider worker hosts at most (a new agent goes to the least-loaded worker); a dispatch beyond workers × this fails to start',
    ),
    workerMemoryMb: setting(
      intBetween(32, 65_536),
      512,
      "a provider worker's JavaScript heap limit (resourceLimits.maxOldGenerationSizeMb); past it the worker ends and its agent fails",
    ),
    workerStallMs: setting(
      intBetween(100, 600_000),
      5000,
      'a provider worker that leaves a heartbeat unanswered this long (engine clock) is stalled: its agent fails, the worker is replaced',
    ),
    providerModules: setting(
      Schema.String,
      '',
      'comma-separated paths (or file: URLs) of ES modules whose default export is defineAgentProvider(...), registered at start',
    ),
    mcpServers: setting(
      Schema.String.check(
        Schema.makeFilter((raw: string) => {
          const parsed = parseMcpServerSettings(raw)
          return typeof parsed === 'string' ? parsed : true
        }),
      ),
      '',
      'JSON object: an MCP server\'s name (as presets name it in mcpServers) → {"headers": {…}, "allowPrivateNetworks": false}; headers are secrets, sent with each request to that server; a server whose URL resolves to a private address is refused unless allowPrivateNetworks',
    ),
    functionsCaFile: setting(
      Schema.String,
      '',
      "a PEM file of CA certificates trusted, besides the system's, for the HTTPS endpoints of agents' back-end functions (a back end with a private CA); empty: system CAs only",
    ),
    defaultAgentStopDelaySeconds: setting(
      intBetween(0, 86_400),
      30,
      "a room's default agent stays this long after the last terminal left (a room may set its own)",
    ),
  },
} as const satisfies SettingsTree

/** The engine's own settings (extensions read theirs through their section's key). */
export type Settings = SettingsOf<typeof coreSettings>

/** The engine's resolved settings as an Effect service. */
export class EngineSettings extends Context.Service<EngineSettings, Settings>()('hark/Settings') {}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object | null ? DeepPartial<NonNullable<T[K]>> | Extract<T[K], null> : T[K] }

export type SettingsInput = DeepPartial<Settings>

/** Part of a config that sets the settings of a section: `{ agents: { openaiRealtime: {…} } }`. */
export type SectionInput<P extends string, T extends SettingsTree> = P extends `${infer Head}.${infer Rest}`
  ? { readonly [K in Head]?: SectionInput<Rest, T> }
  : { readonly [K in P]?: DeepPartial<SettingsOf<T>> }

// ---- The merged tree of an engine ----

/** A setting as the CLI, the docs and error messages see it. */
export interface SettingDescriptor {
  readonly path: string
  readonly env: string
  readonly flag: string
  readonly defaultValue: unknown
  readonly doc: string
  /** Integer bounds when the schema has them ("1–64"), else null. */
  readonly range: string | null
  /** "core", or the extension that declared it ("transport mqtt"). */
  readonly owner: string
}

/** Who declares a section: an extension (structurally, so this file needs no import of extension.ts). */
export interface SettingsOwner {
  readonly kind: string
  readonly name: string
  readonly settings: SettingsSection | null
}

const KIND_WORDS: Readonly<Record<string, string>> = { transport: 'transport', plugin: 'plugin', agentProvider: 'agent provider' }

interface MutableTree {
  [key: string]: Setting | MutableTree
}

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  u !== null && typeof u === 'object' && !Array.isArray(u)

/** Copy `tree` into `into` at `path`; a setting already there (core or another section) is refused. */
const graft = (into: MutableTree, path: string[], tree: SettingsTree, owner: string, owners: Map<string, string>) => {
  let node = into
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!
    const next = node[key]
    if (Setting.is(next)) {
      throw new Error(`settings section ${owner} collides with the setting ${path.slice(0, i + 1).join('.')} of ${owners.get(path.slice(0, i + 1).join('.'))}`)
    }
    node = (next ?? (node[key] = {})) as MutableTree
  }
  for (const [key, value] of Object.entries(tree)) {
    const at = [...path, key]
    if (Setting.is(value)) {
      if (node[key] !== undefined) {
        const other = Setting.is(node[key]) ? owners.get(at.join('.')) : 'a section nested there'
        throw new Error(`settings section ${owner} declares ${at.join('.')}, already declared by ${other}`)
      }
      node[key] = value
      owners.set(at.join('.'), owner)
    } else {
      graft(into, at, value, owner, owners)
    }
  }
}

const toSnake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()
const toKebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()

/** The environment variable and flag (without `--`) derived from a setting's path. */
export const settingNames = (path: string): { readonly env: string; readonly flag: string } => {
  const keys = path.split('.')
  return { env: 'HARK_' + keys.map(toSnake).join('_'), flag: keys.map(toKebab).join('-') }
}

const leaves = (tree: MutableTree, prefix: string[] = []): Array<[string[], Setting]> =>
  Object.entries(tree).flatMap(([k, v]) => (Setting.is(v) ? [[[...prefix, k], v] as [string[], Setting]] : leaves(v, [...prefix, k])))

/** The struct of a tree; every leaf schema decodes without services, so neither does the struct. */
const schemaOf = (tree: MutableTree): Schema.Codec<unknown> =>
  Schema.Struct(Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, Setting.is(v) ? v.schema : schemaOf(v)]))) as unknown as Schema.Codec<unknown>

const defaultsOf = (tree: MutableTree): Record<string, unknown> =>
  Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, Setting.is(v) ? v.defaultValue : defaultsOf(v)]))

/** The settings of one engine: core plus the sections of its extensions. */
export class SettingsSchema {
  readonly descriptors: ReadonlyArray<SettingDescriptor>
  readonly defaults: Record<string, unknown>
  private readonly tree: MutableTree = {}
  private readonly schema: Schema.Codec<unknown>

  /** `declared`: bare sections, or the extensions that declare them (named as owners in the docs). */
  constructor(declared: ReadonlyArray<SettingsSection | SettingsOwner> = []) {
    const owners = new Map<string, string>()
    graft(this.tree, [], coreSettings, 'core', owners)
    for (const d of declared) {
      const section = 'tree' in d ? d : d.settings
      if (section === null) continue
      const owner = 'tree' in d ? section.path : `${KIND_WORDS[d.kind] ?? d.kind} ${d.name}`
      graft(this.tree, section.path.split('.'), section.tree, owner, owners)
    }
    this.descriptors = leaves(this.tree).map(([path, s]) => ({
      path: path.join('.'),
      env: settingNames(path.join('.')).env,
      flag: s.flag ?? settingNames(path.join('.')).flag,
      defaultValue: s.defaultValue,
      doc: s.doc,
      range: ranges.get(s.schema) ?? null,
      owner: owners.get(path.join('.'))!,
    }))
    this.defaults = defaultsOf(this.tree)
    this.schema = schemaOf(this.tree)
  }

  /**
   * Resolve settings: defaults, then the file, then HARK_* variables, then flags. All layers are
   * merged as a string tree and decoded once, so a bad value is reported with the layer it came from.
   */
  resolve(layers: SettingsLayers = {}, options: ResolveOptions = {}): Settings {
    const codec = Schema.toCodecStringTree(this.schema)
    const tree = Schema.encodeUnknownSync(codec)(this.defaults) as Record<string, unknown>
    const sources = new Map<string, string>()
    const known = new Set(this.descriptors.map((d) => d.path))

    if (layers.file) {
      const { source, settings } = layers.file
      const { extensions: _ignored, ...rest } = (isPlainObject(settings) ? settings : {}) as Record<string, unknown>
      for (const [path, value] of flatten(rest)) {
        if (!known.has(path)) {
          if (options.unknown === 'ignore') continue
          throw new ConfigError(path, source, 'unknown setting')
        }
        const encoded = value === null ? 'null' : typeof value === 'object' ? value : String(value)
        setPath(tree, path, encoded)
        sources.set(path, source)
      }
    }
    for (const d of this.descriptors) {
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

    const result = Schema.decodeUnknownResult(codec, { onExcessProperty: 'error' })(tree)
    if (result._tag === 'Success') return result.success as Settings
    const first = formatIssue(result.failure.issue).issues[0]
    const path = (first?.path ?? []).map(String).join('.')
    throw new ConfigError(path || '(root)', sources.get(path) ?? 'defaults', first?.message ?? 'invalid value')
  }
}

/** The decoded values of `section` in an engine's settings. */
export const sectionOf = <T extends SettingsTree>(settings: Settings, section: SettingsSection<string, T>): SettingsOf<T> => {
  let node: unknown = settings
  for (const key of section.path.split('.')) node = (node as Record<string, unknown>)[key]
  const values = node as Record<string, unknown>
  return Object.fromEntries(Object.keys(section.tree).map((k) => [k, values[k]])) as SettingsOf<T>
}

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

/** Flatten a partial settings object to `path -> value`, keeping unknown keys so they are reported. */
const flatten = (input: unknown, prefix = ''): Array<[string, unknown]> =>
  isPlainObject(input)
    ? Object.entries(input).flatMap(([k, v]) =>
        isPlainObject(v) ? flatten(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as [string, unknown]],
      )
    : []

export interface ResolveOptions {
  /**
   * 'ignore': leave settings of sections not declared yet out, rather than refuse them — only to
   * read `agents.providerModules` before the modules that declare more sections are loaded
   * (resolveWithProviderModules); the settings are then resolved again, strictly.
   */
  readonly unknown?: 'error' | 'ignore'
}

export interface SettingsLayers {
  /** A config file or an embedder's defineConfig(...) value (typed values). */
  readonly file?: { readonly source: string; readonly settings: unknown }
  /** Environment, usually process.env; only HARK_* names matching a setting are read. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Parsed flags keyed by setting path (strings, as typed on the command line). */
  readonly flags?: Readonly<Record<string, string>>
}

/** Resolve the settings of an engine with these sections (or extensions declaring them); see SettingsSchema.resolve. */
export const resolveSettings = (
  layers: SettingsLayers = {},
  declared: ReadonlyArray<SettingsSection | SettingsOwner> = [],
  options: ResolveOptions = {},
): Settings => new SettingsSchema(declared).resolve(layers, options)
