/**
 * What every CLI command shares: loading the config (engine.config.js, or --config FILE), the
 * settings with HARK_* and flag overrides, a storage + security handle on the data dir — or on
 * the libSQL server of --database-url — for the operator commands, and output that is exactly
 * one JSON value with --json.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Command } from 'commander'
import { loadProviderModules, providerModuleList, resolveWithProviderModules } from '../core/agentRuntime/isolation/modules.js'
import { openDataDirChecked, type DataDir } from '../core/dataDir.js'
import { systemClock, type ClockShape } from '../core/clock.js'
import { resolveSettings, SettingsSchema, type Settings } from '../core/config.js'
import type { EngineConfig, Extension } from '../core/extension.js'

export interface CommonOptions {
  readonly data?: string
  readonly databaseUrl?: string
  readonly databaseToken?: string
  readonly config?: string
  readonly json?: boolean
}

/** Settings every command takes as its own options (not as `hark start`'s setting flags). */
export const COMMON_SETTINGS = ['dataDir', 'storage.url', 'storage.authToken'] as const

/** Add --data, --database-url, --database-token, --config and --json to a command. */
export const withCommon = (cmd: Command): Command =>
  cmd
    .option('--data <dir>', 'data directory (libSQL file, TLS material, master key)')
    .option('--database-url <url>', 'libSQL server holding the database (storage.url): libsql://… or http(s)://…')
    .option('--database-token <token>', 'token for it (storage.authToken; HARK_STORAGE_AUTH_TOKEN keeps it out of ps)')
    .option('--config <file>', 'config file: .json settings, or a .js module exporting defineConfig(...)')
    .option('--json', 'print exactly one JSON value on stdout')

/** The compiled default composition root (engine.config.ts). */
const loadDefaultConfig = async (): Promise<EngineConfig> => (await import('../engine.config.js')).default

export const loadConfig = async (file: string | undefined): Promise<{ source: string; config: EngineConfig }> => {
  const path = file ?? process.env.HARK_CONFIG
  if (!path) return { source: 'engine.config.ts', config: await loadDefaultConfig() }
  const abs = resolve(path)
  if (abs.endsWith('.json')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(readFileSync(abs, 'utf8'))
    } catch (e) {
      throw new CliError(`cannot read config ${path}: ${(e as Error).message}`, 2)
    }
    // A JSON file holds settings only: the engine keeps the built-in extensions of engine.config.ts.
    const builtins = (await loadDefaultConfig()).extensions ?? []
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new CliError(`config ${path} must hold a JSON object of settings`, 2)
    }
    return { source: path, config: { ...(parsed as EngineConfig), extensions: builtins } }
  }
  let mod: { default?: EngineConfig }
  try {
    mod = (await import(pathToFileURL(abs).href)) as { default?: EngineConfig }
  } catch (e) {
    throw new CliError(`cannot load config ${path}: ${(e as Error).message}`, 2)
  }
  if (!mod.default) throw new CliError(`config ${path} has no default export`, 2)
  return { source: path, config: mod.default }
}

/** A user-facing failure: printed as one line on stderr, exit code 1 (2 for usage and config errors). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
  }
}


export const settingsFor = async (opts: CommonOptions, flags: Record<string, string> = {}) => {
  const { source, config } = await loadConfig(opts.config)
  const allFlags: Record<string, string> = { ...flags }
  if (opts.data) allFlags.dataDir = opts.data
  if (opts.databaseUrl) allFlags['storage.url'] = opts.databaseUrl
  if (opts.databaseToken) allFlags['storage.authToken'] = opts.databaseToken
  // The providers of agents.providerModules too, as the engine registers them: their settings
  // sections are resolved with the rest (hark preset checks configs against the providers).
  const { settings, modules } = await resolveWithProviderModules(
    { file: { source, settings: config }, env: process.env, flags: allFlags },
    config.extensions ?? [],
  )
  return { source, config, modules, settings: { ...settings, dataDir: resolve(settings.dataDir) } as Settings, flags: allFlags }
}

/**
 * Every setting the engine of this config would have — the core's, its extensions' and those of
 * the provider modules `agents.providerModules` lists (from the config, HARK_* variables or
 * `flags`) — for `hark settings` and `hark start`'s flags. A module that fails to load is left
 * out here: `hark start` reports it.
 */
export const settingsSchemaFor = async (config: EngineConfig, source: string, flags: Record<string, string> = {}): Promise<SettingsSchema> => {
  const extensions = config.extensions ?? []
  let modules: Extension[] = []
  try {
    const first = resolveSettings({ file: { source, settings: config }, env: process.env, flags }, extensions, { unknown: 'ignore' })
    modules = await loadProviderModules(providerModuleList(first.agents.providerModules), (path, reason) => new Error(`${path}: ${reason}`))
  } catch {
    // an invalid setting or module: reported when the settings are resolved for real
  }
  return new SettingsSchema([...extensions, ...modules])
}

export interface Operator extends DataDir {
  readonly settings: Settings
  /** The operator's clock (real time): when an audit record or a membership was made. */
  readonly clock: ClockShape
  /** The extensions of the config the engine runs with (engine.config.ts or --config). */
  readonly extensions: ReadonlyArray<Extension>
}

/**
 * Open the data dir, or the database on the libSQL server, for an operator command (engines may
 * be running on it at the same time).
 */
export const openOperator = async (opts: CommonOptions): Promise<Operator> => {
  const { settings, config, modules } = await settingsFor(opts)
  return { settings, clock: systemClock, extensions: [...(config.extensions ?? []), ...modules], ...(await openDataDirChecked(settings, systemClock)) }
}

/** Print a result: the JSON value with --json, else the human lines. */
export const output = (opts: CommonOptions, value: unknown, human: () => string) => {
  process.stdout.write(opts.json ? JSON.stringify(value) + '\n' : human() + '\n')
}

/** Run an operator command with the data dir open, closing it whatever happens. */
export const withOperator =
  <A extends unknown[]>(f: (op: Operator, ...args: A) => unknown | Promise<unknown>) =>
  async (...args: A) => {
    const cmd = args[args.length - 1] as Command
    const op = await openOperator(cmd.optsWithGlobals<CommonOptions>())
    try {
      await f(op, ...args)
    } finally {
      op.close()
    }
  }

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
