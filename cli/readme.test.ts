/**
 * README's shell snippets run as written (issue 33, item 10: the console snippet piped an
 * `$ADMIN_PASSWORD` it never set, and `hark user create` refused the empty password with exit 2).
 * Each snippet runs in Debian's `sh` (dash) in a temp dir, up to its first line that needs a running
 * engine; the one change is `npx hark` → the compiled CLI of this checkout (`npx` would first
 * install the checkout into its cache, build included). The README's layout table is checked too.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, cliJson, repoRoot, tempDir } from '../core/test/helpers.js'

const run = promisify(execFile)
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')

/** The first ```sh block after `heading`. */
const snippetAfter = (heading: string): string => {
  const section = readme.slice(readme.indexOf(`\n${heading}\n`))
  const block = /```sh\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error(`no sh block after ${heading}`)
  return block[1]!
}

const dirs: Array<{ remove: () => void }> = []
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove()
})

/** Run `snippet` up to (not including) its first line matching `stop`, then `after`, in a fresh dir; its stdout. */
const runSnippet = async (snippet: string, stop: RegExp, after = '') => {
  const dir = tempDir('hark-readme-')
  dirs.push(dir)
  const lines = snippet.split('\n')
  const end = lines.findIndex((l) => stop.test(l))
  const script = [...lines.slice(0, end < 0 ? lines.length : end), after].join('\n').replaceAll('npx hark ', `node ${join(repoRoot, 'bin/hark.js')} `)
  const { stdout } = await run('sh', ['-euc', script], { cwd: dir.path, env: cliEnv() })
  return { stdout, data: join(dir.path, 'data') }
}

describe('README snippets', () => {
  it('Console: the operator makes the first user as written', async () => {
    const snippet = snippetAfter('## Console')
    expect(snippet).toContain('--password-stdin')
    const { data } = await runSnippet(snippet, /^npm start/)
    const users = await cliJson<Array<{ email: string; name: string | null }>>(['user', 'list', '--data', data])
    expect(users).toMatchObject([{ email: 'ada@example.com', name: 'Ada' }])
  })

  it('First steps as an operator: the workspace, key, client, device password and token, as written', async () => {
    // Up to the curl call, which needs a running engine; then what the shell kept.
    const { stdout, data } = await runSnippet(snippetAfter('## First steps as an operator'), /^curl /, 'printf "%s\\n" "$WS" "$KEY" "$PASSWORD" "$TOKEN"')
    const [ws, key, password, token] = stdout.trim().split('\n').slice(-4)
    expect(ws).toMatch(/^ws_/)
    expect(key).toMatch(/^hk_/)
    expect(password).toMatch(/^hkd_/)
    expect(token!.split('.')).toHaveLength(3)
    const clients = await cliJson<Array<{ clientId: string; room: string }>>(['client', 'list', '--workspace', ws!, '--data', data])
    expect(clients).toMatchObject([{ clientId: 'dev-1', room: 'lobby' }])
  })
})

describe('README layout table', () => {
  it('names each folder once', () => {
    const layout = readme.slice(readme.indexOf('\n## Layout\n'), readme.indexOf('\n## Benchmarks\n'))
    const folders = [...layout.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1])
    expect(folders.length).toBeGreaterThan(5)
    expect(folders.filter((f, i) => folders.indexOf(f) !== i)).toEqual([])
  })
})
