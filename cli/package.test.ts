/**
 * The package as operators get it: `npm pack` of this checkout (its built dist, as `npm test`
 * builds it first), installed into a temporary global prefix, and that installed `hark start`
 * run on free ports with a temp data dir to a 200 on /healthz and a clean SIGTERM exit. Catches
 * a files list, bin or built asset that the package lost — the console's bundle among them: the
 * installed engine serves its page and script over HTTPS.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { get as httpsGet } from 'node:https'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot, tempDir } from '../core/test/helpers.js'
import { killLeftovers, spawnHark } from './test/harkProcess.js'

const run = promisify(execFile)

let dir: ReturnType<typeof tempDir>
let installedBin: string

// Installing resolves the package's dependencies (from npm's cache when it has them): minutes
// on a busy machine, not seconds.
const INSTALL_TIMEOUT_MS = 300_000

beforeAll(async () => {
  dir = tempDir('hark-package-')
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir.path], { cwd: repoRoot })
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }]
  const prefix = join(dir.path, 'prefix')
  await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(dir.path, filename)], {
    cwd: dir.path,
    maxBuffer: 16 * 1024 * 1024,
  })
  installedBin = join(prefix, 'bin', 'hark')
}, INSTALL_TIMEOUT_MS)

afterAll(() => {
  killLeftovers()
  dir?.remove()
})

describe('the packed and installed hark', () => {
  it('starts from its global bin, answers /healthz 200 and exits 0 on SIGTERM', async () => {
    expect(existsSync(installedBin)).toBe(true)
    const hark = spawnHark(
      [installedBin, 'start', '--data', join(dir.path, 'data'), '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0'],
      { cwd: dir.path },
    )
    const ports = await hark.running()
    expect(Object.keys(ports)).toEqual(expect.arrayContaining(['rest', 'gateway', 'mqtt', 'console']))
    const health = await fetch(`http://127.0.0.1:${ports.rest}/healthz`)
    expect(health.status).toBe(200)
    // The console's page and its script, from the installed package, with the engine's certificate.
    const ca = readFileSync(join(dir.path, 'data', 'tls-self-signed.crt'), 'utf8')
    const fetchTls = (path: string) =>
      new Promise<{ status: number; type: string; body: string }>((resolve, reject) =>
        httpsGet({ host: '127.0.0.1', port: ports.console, path, ca }, (res) => {
          let body = ''
          res.setEncoding('utf8').on('data', (d: string) => (body += d))
          res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }))
        }).on('error', reject))
    const page = await fetchTls('/sign-in')
    expect([page.status, page.type]).toEqual([200, 'text/html; charset=utf-8'])
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(page.body)?.[1]
    expect(script).toBeDefined()
    const bundle = await fetchTls(script!)
    expect([bundle.status, bundle.type]).toEqual([200, 'application/javascript; charset=utf-8'])
    expect(bundle.body.length).toBeGreaterThan(10_000)
    expect(await hark.stop('SIGTERM')).toBe(0)
    expect(hark.lines.items).toContainEqual(expect.stringMatching(/^hark: stopped in \d+ ms$/))
  })
})
