/**
 * The console's bundle as `npm run build` leaves it (the package ships it): within the 200 KB
 * gzipped goal, and self-contained — every script and style is a file of the bundle, nothing is
 * fetched from another origin at run time.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { bundleDir } from './server.js'

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]))

describe('the console bundle', () => {
  it('is built, at most 200 KB gzipped, and loads nothing from elsewhere', () => {
    const dir = bundleDir()
    expect(dir, 'run npm run build').not.toBeNull()
    const all = files(dir!)
    const names = all.map((f) => relative(dir!, f)).sort()
    expect(names).toContain('index.html')
    expect(names.filter((n) => n !== 'index.html').every((n) => /^assets\/[\w-]+\.(js|css)$/.test(n))).toBe(true)
    const gzipped = all.reduce((sum, f) => sum + gzipSync(readFileSync(f)).length, 0)
    expect(gzipped).toBeLessThanOrEqual(200 * 1024)
    const html = readFileSync(join(dir!, 'index.html'), 'utf8')
    const referenced = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(referenced.filter((r) => r !== 'data:,').every((r) => r.startsWith('/assets/'))).toBe(true)
    for (const f of all) {
      // No script or style pulled from another origin (a CDN) at run time.
      expect(readFileSync(f, 'utf8')).not.toMatch(/(?:import\s*\(|src=|href=|url\()\s*["']?https?:\/\//)
    }
  })
})
