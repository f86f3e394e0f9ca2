/**
 * What a `hark` command that does not start the engine loads: the config's extensions come as
 * descriptors (name, settings), and their implementations — werift, uWebSockets.js, onnxruntime,
 * the transports' own modules, the REST, console and webhooks plugins (fastify, Ajv) — are
 * imported only when an engine starts them (spec/extensions.md, Loading on start); nor does the
 * command load the engine itself (its services, actors and metrics). The command runs as a real process with an import trace preloaded (which
 * slows its loading several times: one command is traced, not each).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cliJson, runCli, tempDir } from '../core/test/helpers.js'

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
