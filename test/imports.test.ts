/**
 * The import rules of the tree (core/README.md, What an extension may import), read from every
 * source file's own imports — `import … from`, `export … from`, `import 'x'`, `import('x')`, type-only
 * ones included:
 *
 * - core imports nothing outside core (its tests: nothing of the extensions, the CLI or bench);
 * - no plugin imports another plugin, no transport another transport, no agent provider another;
 * - a transport or an agent provider reaches core only through the package entries, 'hark'
 *   (core/index.ts), 'hark/extension' (core/extension.ts) and 'hark/provider' (core/provider.ts),
 *   and nothing of the plugins, the CLI, the cluster adapter or the servers;
 * - nothing but the CLI's own files imports cli/: it stands on top of the rest.
 *
 * Tests and their helpers (`*.test.ts`, `test/` folders) may compose several extensions in one
 * engine, so the rules between extensions hold for the sources only.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const TOPS = ['core', 'plugins', 'transports', 'agents', 'cli', 'cluster', 'servers']
const ENTRIES = new Set(['core/index.ts', 'core/extension.ts', 'core/provider.ts'])
const SKIP = new Set(['node_modules', 'dist', 'app'])

const isTest = (path: string): boolean => /\.test\.tsx?$/.test(path) || path.split('/').includes('test')

/** Why importing `to` from `from` (paths from the repository root) breaks a rule, or null. */
export const violation = (from: string, to: string): string | null => {
  const [fromTop, fromDir] = from.split('/')
  const [toTop, toDir] = to.split('/')
  const test = isTest(from)
  if (fromTop === 'core') {
    if (toTop === 'core') return null
    if (!test) return 'core imports nothing outside core'
    return ['plugins', 'transports', 'agents', 'cli', 'bench', 'cluster'].includes(toTop!) ? "core's tests import no extension, CLI or bench" : null
  }
  if (test) return null
  if (toTop === 'cli' && fromTop !== 'cli') return 'nothing imports the CLI'
  if (fromTop === 'plugins' && toTop === 'plugins' && fromDir !== toDir) return 'a plugin imports no other plugin'
  if (fromTop === 'transports' || fromTop === 'agents') {
    if (toTop === fromTop) return fromDir === toDir ? null : `one ${fromTop}/* folder imports no other`
    if (toTop === 'core') return ENTRIES.has(to) ? null : `${fromTop} reach core only through its entries (hark, hark/extension, hark/provider)`
    return `${fromTop} import nothing of ${toTop}`
  }
  return null
}

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.(ts|tsx|mts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })

/** The repository file a relative specifier names (`./x.js` is `./x.ts` in the sources). */
const target = (file: string, specifier: string): string | null => {
  const base = resolve(dirname(file), specifier)
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate).split(sep).join('/')
  }
  return null
}

const SPECIFIER = /\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/gm

const imports = (): Array<{ from: string; to: string }> =>
  TOPS.filter((top) => existsSync(join(root, top))).flatMap((top) =>
    sources(join(root, top)).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
        .map((m) => m[1] ?? m[2] ?? m[3]!)
        .filter((s) => s.startsWith('.'))
        .map((s) => ({ from: relative(root, file).split(sep).join('/'), to: target(file, s) ?? `${s} (unresolved)` })),
    ),
  )

describe('the import rules of the tree', () => {
  it('know a breach when they see one', () => {
    expect(violation('core/engine.ts', 'plugins/rest/index.ts')).not.toBeNull()
    expect(violation('core/storage/replica.test.ts', 'servers/sqld.ts')).toBeNull()
    expect(violation('core/engine.test.ts', 'transports/mqtt/index.ts')).not.toBeNull()
    expect(violation('plugins/webhooks/routes.ts', 'plugins/rest/auth.ts')).not.toBeNull()
    expect(violation('agents/pipeline/session.ts', 'agents/openai-realtime/resampler.ts')).not.toBeNull()
    expect(violation('transports/mqtt/settings.ts', 'core/config.ts')).not.toBeNull()
    expect(violation('transports/mqtt/settings.ts', 'core/extension.ts')).toBeNull()
    expect(violation('transports/mqtt/transport.ts', 'transports/websocket/index.ts')).not.toBeNull()
    expect(violation('transports/xiaozhi/rooms.test.ts', 'transports/websocket/index.ts')).toBeNull()
    expect(violation('plugins/rest/plugin.ts', 'cli/main.ts')).not.toBeNull()
    expect(violation('cli/main.ts', 'plugins/rest/index.ts')).toBeNull()
  })

  it('hold for every import in the tree', () => {
    const found = imports()
    expect(found.length).toBeGreaterThan(500)
    // A test may name a module that is not there on purpose (an import that must fail).
    const unresolved = found.filter((i) => i.to.endsWith('(unresolved)') && !isTest(i.from))
    expect(unresolved).toEqual([])
    const broken = found.flatMap(({ from, to }) => {
      const why = violation(from, to)
      return why === null ? [] : [`${from} -> ${to}: ${why}`]
    })
    expect(broken).toEqual([])
  })
})
