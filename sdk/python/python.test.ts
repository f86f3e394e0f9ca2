/**
 * hark-server (Python) against real engines: this file starts them, makes a virtual environment,
 * installs the package into it with `pip install ./sdk/python`, and runs its pytest suite (tests/).
 * PyPI is not reachable here: the venv sees Debian's python3-httpx and python3-pytest
 * (--system-site-packages) and pip installs with --no-index, so nothing is fetched. What is
 * missing is named, with the command that installs it (.ci/system-deps does it before npm test).
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { repoRoot, tempDir } from '../../core/test/helpers.js'
import { startRestEngine } from '../../plugins/rest/test/restEngine.js'
import { operatorWorkspace, startSdkEngine, type SdkEngine } from '../server/test/sdkEngine.js'
import { outputUrl, render } from './scripts/generate.mjs'

const python = process.env.HARK_TEST_PYTHON ?? '/usr/bin/python3'
const DEBIAN_PACKAGES: Record<string, string> = {
  httpx: 'python3-httpx', pytest: 'python3-pytest', pip: 'python3-pip', venv: 'python3-venv', setuptools: 'python3-setuptools', wheel: 'python3-wheel',
}

/** Runs a command without blocking the event loop (the engines live in this process). */
const run = (command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? repoRoot, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d))
    child.stderr.on('data', (d: Buffer) => (output += d))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
  })

/** The Python modules the test needs that `python` cannot import, as Debian package names. */
const missingPackages = async (): Promise<string[]> => {
  if (!existsSync(python)) return Object.values(DEBIAN_PACKAGES)
  const probe = `import importlib.util as u; print(" ".join(m for m in ${JSON.stringify(Object.keys(DEBIAN_PACKAGES))} if u.find_spec(m) is None))`
  const { code, output } = await run(python, ['-c', probe])
  if (code !== 0) throw new Error(`${python} failed: ${output}`)
  return output.trim().split(/\s+/).filter(Boolean).map((m) => DEBIAN_PACKAGES[m]!)
}

let t: SdkEngine
let limited: Awaited<ReturnType<typeof startRestEngine>>
let clockServer: Server
const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'))
const venv = tempDir('hark-sdk-venv-')
beforeAll(async () => {
  t = await startSdkEngine()
  limited = await startRestEngine({ rest: { rateLimitMax: 3, rateLimitWindowSeconds: 1 } }, { clock })
  // The pytest side moves the rate-limited engine's clock through this.
  clockServer = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d))
    req.on('end', () => {
      clock.advance((JSON.parse(body) as { ms: number }).ms)
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => clockServer.listen(0, '127.0.0.1', resolve))
}, 60_000)
afterAll(async () => {
  await new Promise<void>((resolve) => (clockServer ? clockServer.close(() => resolve()) : resolve()))
  await limited?.stop()
  await t?.stop()
  venv.remove()
})

describe('hark-server (Python)', () => {
  it('models.py matches spec/openapi.json', async () => {
    const committed = await readFile(outputUrl, 'utf8')
    expect(committed === (await render()), 'sdk/python/src/hark_server/models.py is stale: run node sdk/python/scripts/generate.mjs --write').toBe(true)
  })

  it('installs with pip into a fresh venv and passes its pytest suite against the engines', async () => {
    const missing = await missingPackages()
    if (missing.length > 0) {
      throw new Error(
        `hark-server's tests need ${python} with ${missing.join(', ')} (PyPI is not reachable; they come from Debian): ` +
          `apt-get install -y --no-install-recommends ${missing.join(' ')}  (or set HARK_TEST_PYTHON to a Python 3.11+ that has httpx and pytest)`,
      )
    }
    // Debian's pip, setuptools and wheel serve the venv (--without-pip saves ~15 s of ensurepip).
    const made = await run(python, ['-m', 'venv', '--without-pip', '--system-site-packages', join(venv.path, 'env')])
    expect(made.code, made.output).toBe(0)
    const bin = (name: string) => join(venv.path, 'env', 'bin', name)
    // pip builds a local project in place: build from a copy, so the run writes nothing into the repository.
    const source = join(venv.path, 'hark-server')
    cpSync(join(repoRoot, 'sdk/python'), source, { recursive: true, filter: (f) => !/(^|\/)(build|__pycache__|[^/]*\.egg-info)$/.test(f) })
    const installed = await run(bin('python'), ['-m', 'pip', 'install', '--no-index', '--no-build-isolation', '--disable-pip-version-check', source])
    expect(installed.code, installed.output).toBe(0)

    const { apiKey } = await operatorWorkspace(t.dir)
    const keys = ['storm', 'patient'].map((name) => limited.workspace(name).apiKey)
    const pytest = await run(bin('python'), ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], {
      cwd: join(repoRoot, 'sdk/python'),
      env: {
        HARK_URL: t.url(''),
        HARK_API_KEY: apiKey,
        HARK_TLS_URL: `https://127.0.0.1:${t.engine.ports.gateway}`,
        HARK_LIMITED_URL: limited.url(''),
        HARK_LIMITED_KEYS: keys.join(','),
        HARK_CLOCK_URL: `http://127.0.0.1:${(clockServer.address() as AddressInfo).port}/advance`,
        PYTHONDONTWRITEBYTECODE: '1',
      },
    })
    expect(pytest.code, pytest.output).toBe(0)
    expect(pytest.output).toMatch(/\b\d+ passed\b/)
    expect(pytest.output).not.toMatch(/failed|error|skipped/i)
    // It ran the installed copy, not the source tree.
    const where = await run(bin('python'), ['-c', 'import hark_server; print(hark_server.__file__)'], { cwd: venv.path })
    expect(where.output.trim()).toMatch(new RegExp(`^${venv.path}/env/lib/python3\\.\\d+/site-packages/hark_server/__init__\\.py$`))
  }, 120_000)
})
