/**
 * The CLI against a libSQL server (sqld on loopback): every command that opens the database takes
 * --database-url (and --database-token, or HARK_STORAGE_URL / HARK_STORAGE_AUTH_TOKEN), keeps a
 * throwaway replica for its run, and shares the database with engines on the same server.
 */
import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../core/clock.js'
import type { ChangeOf } from '../core/storage/changes.js'
import { cliJson, repoRoot, runAll, runCli, tempDir } from '../core/test/helpers.js'
import { startSqld, type Sqld } from '../servers/sqld.js'
import { API_PREFIX } from '../plugins/rest/index.js'
import { Api } from '../plugins/rest/test/api.js'
import { startRestEngine } from '../plugins/rest/test/restEngine.js'
import { killLeftovers, spawnHark } from './test/harkProcess.js'

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  killLeftovers()
  await runAll(cleanup.splice(0).reverse())
})

const server = async (auth = false): Promise<Sqld> => {
  const s = await startSqld({ auth })
  cleanup.push(() => s.stop())
  return s
}
const dataDir = () => {
  const d = tempDir()
  cleanup.push(d.remove)
  return d.path
}
const masterKey = () => randomBytes(32).toString('base64')
/** Run a command that must fail: its exit code, exactly one line on stderr matching `message`, nothing on stdout. */
const fails = async (args: string[], env: Record<string, string>, code: number, message: RegExp) => {
  const r = await runCli([...args, '--json'], env)
  expect(r.code, r.stderr).toBe(code)
  expect(r.stdout).toBe('')
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(r.stderr).toMatch(message)
}
const scratchReplicas = () => readdirSync(tmpdir()).filter((f) => f.startsWith('hark-replica-')).sort()

describe('hark CLI on a libSQL server (real processes)', () => {
  it('what the CLI writes with --database-url (or HARK_STORAGE_URL), an engine on the server serves', async () => {
    const sqld = await server()
    const key = masterKey()
    const env = { HARK_SECURITY_MASTER_KEY: key }
    const db = ['--database-url', sqld.url, '--data', dataDir()]
    const replicasBefore = scratchReplicas()
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...db], env)
    const { apiKey } = await cliJson<{ apiKey: string }>(['apikey', 'create', '--workspace', workspaceId, ...db], env)
    await cliJson(['client', 'create', 'dev-1', '--workspace', workspaceId, '--room', 'lobby', '--data', dataDir()], {
      ...env,
      HARK_STORAGE_URL: sqld.url,
    })
    // Each command's replica was a throwaway one: nothing is left in the temp dir.
    expect(scratchReplicas()).toEqual(replicasBefore)
    const engine = await startRestEngine({ storage: { url: sqld.url }, security: { masterKey: key } })
    cleanup.push(() => engine.stop())
    const api = new Api(engine.url(API_PREFIX), apiKey)
    expect((await api.get('/clients/dev-1')).body).toMatchObject({ clientId: 'dev-1', room: 'lobby' })
  })

  it("what an engine writes the CLI reads at once; the CLI's deletion reaches the engine at its next change poll", async () => {
    const sqld = await server()
    const key = masterKey()
    const clock = new ManualClock(Date.now())
    const engine = await startRestEngine({ storage: { url: sqld.url, changePollMs: 200 }, security: { masterKey: key } }, { clock })
    cleanup.push(() => engine.stop())
    const { workspaceId, api } = engine.workspace()
    for (const [clientId, room] of [['dev-1', 'lobby'], ['via-rest', 'hall']]) {
      expect((await api.post('/clients', { clientId, room })).status).toBe(201)
    }
    const db = ['--database-url', sqld.url, '--data', dataDir()]
    const env = { HARK_SECURITY_MASTER_KEY: key }
    const list = await cliJson<Array<{ clientId: string; room: string }>>(['client', 'list', '--workspace', workspaceId, ...db], env)
    expect(list.map((c) => [c.clientId, c.room])).toEqual([['dev-1', 'lobby'], ['via-rest', 'hall']])

    const heard = new Promise<ChangeOf<'client.deleted'>>((resolve) =>
      engine.engine.host.storage.feed.on('client.deleted', (c) => c.subject === 'dev-1' && resolve(c)),
    )
    await cliJson(['client', 'delete', 'dev-1', '--workspace', workspaceId, ...db], env)
    expect((await api.get('/clients/dev-1')).status).toBe(200)
    await clock.advanceAsync(200)
    // Polled from the change log, with who made it.
    expect(await heard).toMatchObject({ workspaceId, by: { type: 'operator' } })
    expect((await api.get('/clients/dev-1')).status).toBe(404)
  })

  it('names a refused token and a missing or wrong master key: one line, nothing on stdout', async () => {
    const sqld = await server(true)
    const key = masterKey()
    const db = ['--database-url', sqld.url, '--data', dataDir()]
    await fails(['workspace', 'list', ...db], { HARK_SECURITY_MASTER_KEY: key }, 2, /^hark: invalid setting storage\.authToken .*refused it \(HTTP 401\): the server wants a token/)
    const token = { HARK_STORAGE_AUTH_TOKEN: sqld.authToken! }
    await fails(['workspace', 'list', ...db], token, 2, /security\.masterKey .*none is generated/)
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...db], { ...token, HARK_SECURITY_MASTER_KEY: key })
    expect(workspaceId).toMatch(/^ws_/)
    await fails(['workspace', 'list', ...db], { ...token, HARK_SECURITY_MASTER_KEY: masterKey() }, 2, /security\.masterKey .*does not open this database's signing secrets/)
  })

  it('names a bad URL and an unreachable server: one line, nothing on stdout', async () => {
    await fails(['workspace', 'list', '--database-url', 'ftp://127.0.0.1:1'], {}, 2, /^hark: invalid setting storage\.url \(from --database-url\): a libsql:\/\/, http:\/\/ or https:\/\/ URL/)
    const gone = await server()
    await gone.kill()
    await fails(['workspace', 'list', '--database-url', gone.url], { HARK_SECURITY_MASTER_KEY: masterKey() }, 1, /^hark: cannot reach the database at http:\/\/127\.0\.0\.1:\d+ \(storage\.url\): ECONNREFUSED/)
  })

  it('hark start --database-url runs an engine on the server, and stops with exit code 0', async () => {
    const sqld = await server()
    const hark = spawnHark(
      [process.execPath, join(repoRoot, 'bin/hark.js'), 'start', '--data', dataDir(), '--database-url', sqld.url,
        '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', '--log-level', 'warn'],
      { env: { HARK_SECURITY_MASTER_KEY: masterKey() } },
    )
    const line = await hark.line(/^hark: running on /)
    expect(line).toContain(`; database at ${sqld.url}`)
    const { rest } = await hark.running()
    expect((await fetch(`http://127.0.0.1:${rest}/healthz`)).status).toBe(200)
    expect(await hark.stop()).toBe(0)
  })
})
