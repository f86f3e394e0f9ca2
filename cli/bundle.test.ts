/**
 * cli/bundle.ts's import.meta.url rewrite reads the code, not its text: a string or a comment that
 * names `import.meta.url` (an error message telling an author to write it) stays as written.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../core/test/helpers.js'
import { isExternal, metaUrlSpans } from './bundle.js'

describe('the CLI bundle', () => {
  it('finds import.meta.url where it is read, not where a string or comment names it', () => {
    const code = [
      '// import.meta.url in a comment',
      "const here = import.meta.url",
      "const hint = `defineAgentProvider('x', { module: import.meta.url })`",
      "const s = 'import.meta.url'",
      'const u = new URL("./w.js", import.meta.url)',
    ].join('\n')
    const found = metaUrlSpans(code).map(([start, end]) => [code.slice(start, end), code.slice(0, start).split('\n').length])
    expect(found).toEqual([
      ['import.meta.url', 2],
      ['import.meta.url', 5],
    ])
  })

  it('refuses import.meta.dirname, filename and resolve, which would name the bundle folder', () => {
    expect(() => metaUrlSpans('const d = import.meta.dirname')).toThrow(/import\.meta\.dirname is not rewritten/)
    expect(() => metaUrlSpans("const r = import.meta.resolve('x')")).toThrow(/import\.meta\.resolve is not rewritten/)
  })

  it('leaves native packages, Node builtins and prom-client outside', () => {
    for (const id of ['node:fs', 'uWebSockets.js', 'libsql', '@libsql/linux-x64-gnu', '@node-rs/argon2', 'koffi', 'prom-client', 'pino-pretty', 'werift']) expect(isExternal(id)).toBe(true)
    for (const id of ['effect', 'effect/Schema', 'fastify', 'libsqlx', 'koffi-extra', 'prom-client-extra']) expect(isExternal(id)).toBe(false)
  })

  it('leaves the bench runner outside: hark bench imports it from dist/bench', () => {
    const main = readFileSync(join(repoRoot, 'dist/bundle/hark.js'), 'utf8')
    expect(main).toContain('import(`../bench/runner.js`)')
    const maps = readdirSync(join(repoRoot, 'dist/bundle')).filter((f) => f.endsWith('.js.map'))
    const sources = maps.flatMap((f) => (JSON.parse(readFileSync(join(repoRoot, 'dist/bundle', f), 'utf8')) as { sources: string[] }).sources)
    expect(sources.some((s) => s.includes('/core/'))).toBe(true)
    expect(sources.filter((s) => /(^|\/)bench\//.test(s))).toEqual([])
  })
})
