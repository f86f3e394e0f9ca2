/**
 * Where a provider worker finds its code. A worker is plain Node: it runs JavaScript, never
 * TypeScript. The engine may itself run from the TypeScript sources (the tests, through vitest);
 * then every module of this package a worker needs — its entry, the built-in providers — is
 * taken from the compiled tree `dist/` beside them (`npm run build`, which `npm test` runs
 * first). A TypeScript module outside this package cannot run in a worker: compile it.
 *
 * Also: loading the provider modules an operator lists in `agents.providerModules`, and the
 * settings sections those modules declare.
 */
import { existsSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ConfigError, resolveSettings, settingNames, type Settings, type SettingsLayers } from '../../config.js'
import type { Extension } from '../../define.js'

const here = import.meta.url
/** Whether this engine runs from the TypeScript sources rather than from dist/. */
const fromSource = here.endsWith('.ts')
/** The package root: two levels up from the sources, three from dist/. */
const packageRoot = new URL(fromSource ? '../../../' : '../../../../', here).href

/** A module URL a worker can import: a `.ts` file of this package becomes its compiled twin in dist/. */
export const runnableModule = (url: string): string => {
  if (!url.endsWith('.ts') || url.endsWith('.d.ts')) return url
  if (!url.startsWith(packageRoot) || url.startsWith(packageRoot + 'dist/')) {
    throw new Error(`${url} is TypeScript outside this package: a provider worker runs JavaScript only (compile it)`)
  }
  const compiled = packageRoot + 'dist/' + url.slice(packageRoot.length).replace(/\.ts$/, '.js')
  if (!existsSync(fileURLToPath(compiled))) throw new Error(`${url} has no compiled twin ${compiled} (run npm run build)`)
  return compiled
}

/**
 * The entry of a worker thread: the module `name` (no extension) beside the caller's `from`
 * (its import.meta.url), compiled — from the sources (tests) its twin in dist/.
 */
export const threadEntry = (from: string, name: string): URL =>
  new URL(runnableModule(new URL(`./${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from).href))

/** The worker's entry script, compiled. */
export const workerEntry = (): URL => threadEntry(here, 'worker')

/** The parts of an extension a module's export must have to be an agent provider (checked structurally: the module may have its own copy of 'hark'). */
export const isAgentProviderExtension = (u: unknown): u is Extension =>
  typeof u === 'object' &&
  u !== null &&
  (u as { kind?: unknown }).kind === 'agentProvider' &&
  typeof (u as { name?: unknown }).name === 'string' &&
  (typeof (u as { create?: unknown }).create === 'function' || typeof (u as { load?: unknown }).load === 'function')

/** A path or file: URL of `agents.providerModules`, as a file URL (paths relative to the working directory). */
export const moduleUrlOf = (spec: string, cwd = process.cwd()): string =>
  spec.startsWith('file:') ? new URL(spec).href : pathToFileURL(isAbsolute(spec) ? spec : resolve(cwd, spec)).href

/** The entries of `agents.providerModules`: comma-separated, blanks ignored. */
export const providerModuleList = (setting: string): string[] =>
  setting
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)

/** The first line of an error's message (an import error may carry a whole stack or source excerpt). */
const firstLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.trim()

/**
 * Import each provider module and check its default export; throws (one line, naming the path)
 * for a module that is missing, throws on import, or does not default-export defineAgentProvider(...).
 * Each provider comes back with its module set, so a worker imports the very same file.
 */
export const loadProviderModules = async (paths: ReadonlyArray<string>, fail: (path: string, reason: string) => Error): Promise<Extension[]> => {
  const loaded: Extension[] = []
  for (const path of paths) {
    const url = moduleUrlOf(path)
    if (url.startsWith('file:') && !existsSync(fileURLToPath(url))) throw fail(path, 'no such file')
    let mod: { default?: unknown }
    try {
      mod = (await import(url)) as { default?: unknown }
    } catch (e) {
      throw fail(path, `throws on import: ${firstLine(e)}`)
    }
    const ext = mod.default
    if (!isAgentProviderExtension(ext)) {
      throw fail(path, 'its default export is not an agent provider (export default defineAgentProvider(name, …))')
    }
    loaded.push({ ...ext, isolate: ext.isolate !== false, module: url })
  }
  return loaded
}

/**
 * Settings when `agents.providerModules` may list modules that declare settings sections of their
 * own: which modules to load is itself a setting, so it is read first (settings of sections not
 * declared yet are left aside for that read), the modules are loaded, and then every setting is
 * resolved again, strictly, against the core, the given extensions and the modules' providers —
 * an unknown or invalid setting of a module's section is refused like any other.
 */
export const resolveWithProviderModules = async (
  layers: SettingsLayers,
  extensions: ReadonlyArray<Extension>,
): Promise<{ readonly settings: Settings; readonly modules: Extension[] }> => {
  const first = resolveSettings(layers, extensions, { unknown: 'ignore' })
  const source = providerModulesSource(layers)
  const modules = await loadProviderModules(
    providerModuleList(first.agents.providerModules),
    (path, reason) => new ConfigError('agents.providerModules', source, `provider module ${path}: ${reason}`),
  )
  return { settings: resolveSettings(layers, [...extensions, ...modules]), modules }
}

/** Where agents.providerModules came from (a flag, a variable or the config), for its errors. */
export const providerModulesSource = (layers: SettingsLayers): string => {
  const names = settingNames('agents.providerModules')
  if (layers.flags?.['agents.providerModules'] !== undefined) return `--${names.flag}`
  if (layers.env?.[names.env]) return names.env
  return layers.file?.source ?? 'defaults'
}
