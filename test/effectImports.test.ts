/**
 * Hark's own sources import Effect by module (`effect/Effect`, `effect/Schema` …), never through
 * the package's barrel (`'effect'`): the barrel loads every module Effect has (about 140 more
 * than Hark uses), and the CLI and `hark start` pay for that on every run. Outsiders' modules
 * (test/fixtures: operator provider modules, the line transport) may import what they like.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const SOURCES = ['core', 'plugins', 'transports', 'agents', 'cluster', 'bench', 'servers']
const SKIP = new Set(['node_modules', 'dist', 'fixtures'])

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : sourceFiles(path)
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })

/** `from 'effect'`, `import 'effect'`, `import('effect')`, `require('effect')`, either quote. */
const BARREL = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])effect\1/

describe('imports of effect', () => {
  it('name a module of effect, never its barrel', () => {
    const files = [
      ...SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir))),
      ...readdirSync(ROOT).filter((name) => /\.(ts|js|mjs)$/.test(name)).map((name) => join(ROOT, name)),
    ]
    // The walk really found Hark's sources (an empty list would pass vacuously).
    expect(files.length).toBeGreaterThan(200)
    const offenders = files.filter((file) => BARREL.test(readFileSync(file, 'utf8'))).map((file) => relative(ROOT, file))
    expect(offenders).toEqual([])
  })
})
