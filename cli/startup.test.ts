/**
 * What a `hark` command that does not start the engine loads: the config's extensions come as
 * descriptors (name, settings), and their implementations — werift, uWebSockets.js, onnxruntime,
 * the transports' own modules, the REST, console and webhooks plugins (fastify, Ajv) — are
 * imported only when an engine starts them (spec/extensions.md, Loading on start); nor does the
 * command load the engine itself (its services, actors and metrics). The command runs as a real process with an import trace preloaded (which
 * slows its loading several times: one command is traced, not each). These read the compiled
 * tree's module graph (HARK_UNBUNDLED=1); the bundle bin/hark.js runs keeps its lazy imports as
 * lazy chunks, and the last test starts that bundle for real.
 */
import { X509Certificate } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { get } from 'node:https'
import { connect } from 'node:tls'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cliJson, repoRoot, runCli, tempDir } from '../core/test/helpers.js'
import { TestTerminal } from '../transports/websocket/test/terminalClient.js'
import { spawnHark } from './test/harkProcess.js'

let dir: ReturnType<typeof tempDir>
beforeEach(() => (dir = tempDir()))
afterEach(() => dir.remove())

/** Run `hark args` with the import trace; the URLs of every module it loaded. */
const traced = async (args: string[]): Promise<{ stdout: string; loaded: string[] }> => {
  const file = join(dir.path, `trace-${args[0]}.txt`)
  const trace = new URL('./test/importTrace.mjs', import.meta.url).href
  const r = await runCli(args, { NODE_OPTIONS: `--import=${trace}`, IMPORT_TRACE_FILE: file, HARK_UNBUNDLED: '1' })
  if (r.code !== 0) throw new Error(`hark ${args.join(' ')} failed (${r.code}): ${r.stderr}`)
  return { stdout: r.stdout, loaded: readFileSync(file, 'utf8').trim().split('\n') }
}

/** Implementations an operator command must not pay for. */
const HEAVY = [
  '/node_modules/werift/',
  '/node_modules/uWebSockets.js/',
  '/node_modules/onnxruntime-node/',
  '/dist/transports/webrtc/transport.js',
  '/dist/transports/websocket/gateway.js',
  '/dist/transports/mqtt/transport.js',
  '/dist/transports/xiaozhi/transport.js',
  '/dist/plugins/rest/plugin.js',
  '/dist/plugins/console/plugin.js',
  '/dist/plugins/webhooks/plugin.js',
  '/dist/core/engine.js',
  '/node_modules/fastify/',
  '/node_modules/ajv/',
  '/node_modules/xstate/',
  '/node_modules/prom-client/',
  '/node_modules/@nats-io/',
  '/node_modules/@modelcontextprotocol/',
  '/dist/core/agentRuntime/mcpServerTools.js',
  '/dist/cluster/nats/node.js',
]

const heavyIn = (loaded: string[]) => loaded.filter((url) => HEAVY.some((h) => url.includes(h)))

describe('hark commands other than start load no extension implementation', () => {
  it('client list reads the config, its descriptors and the data dir, but loads no engine, plugin or transport implementation', async () => {
    const data = ['--data', dir.path]
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data])
    const { stdout, loaded } = await traced(['client', 'list', '--workspace', workspaceId, '--json', ...data])
    expect(JSON.parse(stdout)).toEqual([])
    // The trace sees ES modules (the config and a descriptor) and CommonJS ones (libsql's binding).
    expect(loaded.some((url) => url.endsWith('/dist/engine.config.js'))).toBe(true)
    expect(loaded.some((url) => url.endsWith('/dist/transports/webrtc/extension.js'))).toBe(true)
    expect(loaded.some((url) => url.includes('/node_modules/libsql/'))).toBe(true)
    expect(heavyIn(loaded)).toEqual([])
  })
})

/**
 * What `hark start` loads when first it needs it, not when it starts (issue 39: a lighter
 * process); a new data dir's self-signed certificate is made with node:crypto (core/selfSignedCert.ts).
 */
const LAZY_AT_START = [
  '/node_modules/werift/',
  '/node_modules/@shinyoshiaki/',
  '/node_modules/@noble/',
  '/node_modules/selfsigned/',
  '/node_modules/@peculiar/',
  // ManualClock's fake timers (tests and simulations only).
  '/node_modules/@sinonjs/',
  // The OpenAI Realtime provider's client and xiaozhi's plain ws:// listener (xiaozhi.plainPort).
  '/node_modules/ws/',
  '/dist/transports/xiaozhi/plainListener.js',
  // argon2's native binding: the console's first password check (its decoy hash is a constant).
  '/node_modules/@node-rs/',
]

/** The certificate the server at `port` presents (a TLS handshake on 127.0.0.1), as PEM. */
const presented = (port: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()!.toString())
      socket.end()
    })
    socket.on('error', reject)
  })

describe('hark start loads what a listener needs when it first needs it', () => {
  it('an engine at rest (WebRTC on, no peer; no webhook sent; little written), on a new data dir, has loaded no werift nor X.509 code and started no worker thread', async () => {
    const file = join(dir.path, 'trace-start.txt')
    const trace = new URL('./test/importTrace.mjs', import.meta.url).href
    const data = join(dir.path, 'data')
    const ports = ['--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0']
    const hark = (env?: Record<string, string>) => spawnHark([process.execPath, fileURLToPath(new URL('../bin/hark.js', import.meta.url)), 'start', '--data', data, ...ports], { env })
    // A new data dir: this start makes its TLS certificate, which the gateway then presents.
    const traced = hark({ NODE_OPTIONS: `--import=${trace}`, IMPORT_TRACE_FILE: file, HARK_UNBUNDLED: '1' })
    const { gateway } = await traced.running()
    expect(gateway).toBeGreaterThan(0)
    const made = readFileSync(join(data, 'tls-self-signed.crt'), 'utf8')
    expect(new X509Certificate(made).subjectAltName).toContain('IP Address:127.0.0.1')
    expect(new X509Certificate(await presented(gateway!)).fingerprint256).toBe(new X509Certificate(made).fingerprint256)
    expect(await traced.stop()).toBe(0)
    const loaded = readFileSync(file, 'utf8').trim().split('\n')
    // The engine and its WebRTC transport did load (the trace works); werift did not.
    expect(loaded.some((url) => url.endsWith('/dist/core/engine.js'))).toBe(true)
    expect(loaded.some((url) => url.endsWith('/dist/transports/webrtc/transport.js'))).toBe(true)
    expect(loaded.filter((url) => LAZY_AT_START.some((h) => url.includes(h)))).toEqual([])
    // No checkpoint, webhook delivery or provider worker thread ran.
    expect(existsSync(`${file}.workers`)).toBe(false)
  })
})

/**
 * `npm run build` bundles the CLI (cli/bundle.ts) and bin/hark.js runs the bundle: issue 39, a
 * `hark start` of ~200 modules, not ~1,140. Started for real on a new libSQL file: it must serve,
 * admit a terminal, and still leave lazy what the compiled tree leaves lazy.
 */
/** The content type of GET / on the HTTPS listener at `port` (200 only). */
const pageType = (port: number, ca: string): Promise<string> =>
  new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/', ca }, (res) => {
      res.resume()
      if (res.statusCode === 200) resolve(String(res.headers['content-type']))
      else reject(new Error(`GET / on ${port}: ${res.statusCode}`))
    }).on('error', reject)
  })

describe('the bundled engine', () => {
  it('bin/hark.js start runs dist/bundle/hark.js: /healthz 200, a WSS terminal admitted, a few hundred modules, nothing lazy loaded', async () => {
    const bundle = join(repoRoot, 'dist/bundle/hark.js')
    expect(existsSync(bundle)).toBe(true)
    const data = join(dir.path, 'data')
    const opts = ['--data', data]
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...opts])
    expect((await runCli(['client', 'create', 't1', '--workspace', workspaceId, '--room', 'lobby', ...opts])).code).toBe(0)
    const { token } = await cliJson<{ token: string }>(['token', 'issue', 't1', '--workspace', workspaceId, ...opts])
    const file = join(dir.path, 'trace-bundle.txt')
    const trace = new URL('./test/importTrace.mjs', import.meta.url).href
    const ports = ['--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', '--log-level', 'warn']
    const hark = spawnHark([process.execPath, join(repoRoot, 'bin/hark.js'), 'start', ...opts, ...ports], { env: { NODE_OPTIONS: `--import=${trace}`, IMPORT_TRACE_FILE: file } })
    const { rest, gateway, console: consolePort } = await hark.running()
    expect((await fetch(`http://127.0.0.1:${rest}/healthz`)).status).toBe(200)
    const ca = readFileSync(join(data, 'tls-self-signed.crt'), 'utf8')
    // The console's built app, found beside its compiled server (import.meta.url in the bundle).
    expect(await pageType(consolePort!, ca)).toMatch(/^text\/html/)
    const terminal = await TestTerminal.connect(gateway!, { token }, ca)
    expect(await terminal.event('session')).toMatchObject({ clientId: 't1', room: 'lobby' })
    terminal.close()
    await terminal.closed
    expect(await hark.stop()).toBe(0)
    const loaded = readFileSync(file, 'utf8').trim().split('\n')
    expect(loaded).toContain(pathToFileURL(bundle).href)
    // Nothing of the compiled tree nor of the bundled packages was loaded beside the bundle.
    const tree = `${pathToFileURL(join(repoRoot, 'dist')).href}/`
    expect(loaded.filter((url) => url.startsWith(tree) && !url.startsWith(`${tree}bundle/`))).toEqual([])
    expect(loaded.filter((url) => /\/node_modules\/(effect|fastify|ajv|tsyringe)\//.test(url))).toEqual([])
    expect(loaded.filter((url) => LAZY_AT_START.some((h) => url.includes(h)))).toEqual([])
    expect(loaded.length).toBeLessThan(400)
  })

  it('a config module (--config x.mjs, importing the compiled built-ins) runs the compiled tree, not the bundle: one copy of the engine and of effect', async () => {
    const dist = (path: string) => JSON.stringify(pathToFileURL(join(repoRoot, 'dist', path)).href)
    const config = join(dir.path, 'engine.config.mjs')
    writeFileSync(
      config,
      [
        `import { defineConfig } from ${dist('core/extension.js')}`,
        `import { restPlugin } from ${dist('plugins/rest/index.js')}`,
        `import { websocketTransport } from ${dist('transports/websocket/extension.js')}`,
        `import { echoAgent } from ${dist('agents/echo/index.js')}`,
        `export default defineConfig({ extensions: [restPlugin, websocketTransport, echoAgent], rest: { rateLimitMax: 100 }, agents: { defaultProvider: 'echo' } })`,
      ].join('\n'),
    )
    const file = join(dir.path, 'trace-config.txt')
    const trace = new URL('./test/importTrace.mjs', import.meta.url).href
    const args = ['start', '--config', config, '--data', join(dir.path, 'data'), '--rest-port', '0', '--gateway-port', '0', '--log-level', 'warn']
    const hark = spawnHark([process.execPath, join(repoRoot, 'bin/hark.js'), ...args], { env: { NODE_OPTIONS: `--import=${trace}`, IMPORT_TRACE_FILE: file } })
    const { rest } = await hark.running()
    expect((await fetch(`http://127.0.0.1:${rest}/healthz`)).status).toBe(200)
    expect(await hark.stop()).toBe(0)
    const loaded = readFileSync(file, 'utf8').trim().split('\n')
    expect(loaded).toContain(pathToFileURL(join(repoRoot, 'dist/cli/main.js')).href)
    expect(loaded.filter((url) => url.includes('/dist/bundle/'))).toEqual([])
  })
})
