/**
 * What a `hark` command that does not start the engine loads: the config's extensions come as
 * descriptors (name, settings), and their implementations — werift, uWebSockets.js, onnxruntime,
 * the transports' own modules, the REST, console and webhooks plugins (fastify, Ajv) — are
 * imported only when an engine starts them (spec/extensions.md, Loading on start); nor does the
 * command load the engine itself (its services, actors and metrics). The command runs as a real process with an import trace preloaded (which
 * slows its loading several times: one command is traced, not each).
 */
import { X509Certificate } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { connect } from 'node:tls'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cliJson, runCli, tempDir } from '../core/test/helpers.js'
import { spawnHark } from './test/harkProcess.js'

let dir: ReturnType<typeof tempDir>
beforeEach(() => (dir = tempDir()))
afterEach(() => dir.remove())

/** Run `hark args` with the import trace; the URLs of every module it loaded. */
const traced = async (args: string[]): Promise<{ stdout: string; loaded: string[] }> => {
  const file = join(dir.path, `trace-${args[0]}.txt`)
  const trace = new URL('./test/importTrace.mjs', import.meta.url).href
  const r = await runCli(args, { NODE_OPTIONS: `--import=${trace}`, IMPORT_TRACE_FILE: file })
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
    const traced = hark({ NODE_OPTIONS: `--import=${trace}`, IMPORT_TRACE_FILE: file })
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
