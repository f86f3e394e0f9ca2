import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cliEnv, cliJson, repoRoot, runCli, tempDir } from '../core/test/helpers.js'
import { TestTerminal } from '../transports/websocket/test/terminalClient.js'

let dir: ReturnType<typeof tempDir>
beforeEach(() => (dir = tempDir()))
afterEach(() => dir.remove())

const data = () => ['--data', dir.path]

describe('hark CLI (real process)', () => {
  it('prints help and refuses unknown commands and flags with one line', async () => {
    const help = await runCli(['--help'])
    expect(help.code).toBe(0)
    for (const c of ['start', 'workspace', 'apikey', 'device-password', 'secret', 'token']) expect(help.stdout).toContain(c)
    const unknown = await runCli(['start', '--bogus', ...data()])
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1)
    expect(unknown.stderr).toContain("unknown option '--bogus'")
    const nocmd = await runCli(['frobnicate'])
    expect(nocmd.code).not.toBe(0)
  })

  it('creates a workspace and an API key with the documented JSON shapes', async () => {
    const w = await runCli(['workspace', 'create', 'acme', '--json', ...data()])
    expect(w.code).toBe(0)
    expect(w.stdout.trim().split('\n')).toHaveLength(1)
    const ws = JSON.parse(w.stdout)
    expect(ws).toEqual({ workspaceId: expect.stringMatching(/^ws_[0-9A-Za-z]{16}$/), name: 'acme' })
    const key = await cliJson<{ keyId: string; apiKey: string }>(['apikey', 'create', '--workspace', ws.workspaceId, ...data()])
    expect(Object.keys(key).sort()).toEqual(['apiKey', 'keyId'])
    expect(key.apiKey).toMatch(/^hk_[A-Za-z0-9_-]{43}$/)
    const list = await cliJson<Array<Record<string, unknown>>>(['apikey', 'list', '--workspace', ws.workspaceId, ...data()])
    expect(list).toEqual([expect.objectContaining({ keyId: key.keyId, revokedAt: null })])
    expect(JSON.stringify(list)).not.toContain(key.apiKey)
    await cliJson(['apikey', 'revoke', key.keyId, '--workspace', ws.workspaceId, ...data()])
    const after = await cliJson<Array<{ revokedAt: string | null }>>(['apikey', 'list', '--workspace', ws.workspaceId, ...data()])
    expect(after[0]!.revokedAt).not.toBeNull()
    const workspaces = await cliJson<Array<{ workspaceId: string }>>(['workspace', 'list', ...data()])
    expect(workspaces.map((x) => x.workspaceId)).toEqual([ws.workspaceId])
  })

  it('manages device passwords, secrets and tokens', async () => {
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])
    await cliJson(['client', 'create', 'dev-1', '--workspace', workspaceId, '--room', 'lobby', ...data()])
    const reset = await cliJson<{ clientId: string; password: string }>(['device-password', 'reset', 'dev-1', '--workspace', workspaceId, ...data()])
    expect(reset).toEqual({ clientId: 'dev-1', password: expect.stringMatching(/^hkd_[0-9A-Za-z]{24}$/) })
    expect(await cliJson(['device-password', 'show', 'dev-1', '--workspace', workspaceId, ...data()])).toEqual(reset)
    const again = await cliJson<{ password: string }>(['device-password', 'reset', 'dev-1', '--workspace', workspaceId, ...data()])
    expect(again.password).not.toBe(reset.password)

    const rotated = await cliJson<{ kid: string }>(['secret', 'rotate', '--workspace', workspaceId, ...data()])
    expect(rotated.kid).toMatch(/^sk_/)
    const token = await cliJson<{ token: string; jti: string; expiresAt: string | null }>([
      'token', 'issue', 'dev-1', '--workspace', workspaceId, '--ttl', '60', ...data(),
    ])
    expect(token.expiresAt).not.toBeNull()
    expect(await cliJson(['token', 'revoke', token.jti, '--workspace', workspaceId, ...data()])).toEqual({
      jti: token.jti, clientId: 'dev-1', revoked: true,
    })
  })

  it('reports errors on stderr, one line, with a non-zero exit and nothing on stdout', async () => {
    const cases = [
      ['apikey', 'create', '--workspace', 'ws_nope', '--json', ...data()],
      ['device-password', 'show', 'ghost', '--workspace', 'ws_nope', '--json', ...data()],
      ['token', 'revoke', 'nope', '--workspace', 'ws_nope', ...data()],
      ['workspace', 'create', '', ...data()],
    ]
    for (const args of cases) {
      const r = await runCli(args)
      expect(r.code, args.join(' ')).not.toBe(0)
      expect(r.stdout).toBe('')
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^hark: /)
    }
  })

  // Apart from the case above: each spawns a CLI process (~0.8 s each here), and together they sat
  // near the 30 s limit on a machine running several suites at once.
  it('refuses a duplicate client (1) and an invalid client id, room or kind (2)', async () => {
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])
    await cliJson(['client', 'create', 'dev-1', '--workspace', workspaceId, ...data()])
    const dup = await runCli(['client', 'create', 'dev-1', '--workspace', workspaceId, ...data()])
    expect(dup.code).toBe(1)
    expect(dup.stderr).toContain('client_exists')
    for (const bad of [['eph_x'], ['a/b'], ['ok', '--room', 'r oom'], ['ok', '--kind', 'Device']]) {
      const r = await runCli(['client', 'create', ...bad, '--workspace', workspaceId, ...data()])
      expect(r.code, bad.join(' ')).toBe(2)
      expect(r.stderr).toContain('validation_failed')
    }
  })

  it('names a bad setting in one line, from a flag, the environment or a config file', async () => {
    const flag = await runCli(['start', '--rest-port', 'abc', ...data()])
    expect(flag.code).not.toBe(0)
    expect(flag.stderr.trim()).toMatch(/^hark: invalid setting rest\.port \(from --rest-port\): /)
    const env = await runCli(['start', ...data()], { HARK_LOG_LEVEL: 'loud' })
    expect(env.stderr.trim()).toMatch(/^hark: invalid setting log\.level \(from HARK_LOG_LEVEL\): /)
    const file = join(dir.path, 'bad.json')
    writeFileSync(file, JSON.stringify({ mqtt: { port: 99999 } }))
    const cfg = await runCli(['start', '--config', file, ...data()])
    expect(cfg.stderr.trim()).toMatch(/^hark: invalid setting mqtt\.port \(from .*bad\.json\): /)
    writeFileSync(file, '{not json')
    const broken = await runCli(['workspace', 'list', '--config', file, ...data()])
    expect(broken.code).not.toBe(0)
    expect(broken.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('hark start --config settings.json keeps the built-in REST API', async () => {
    const file = join(dir.path, 'settings.json')
    writeFileSync(file, JSON.stringify({ log: { level: 'warn' } }))
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'bin/hark.js'), 'start', '--config', file, ...data(), '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0'],
      { stdio: ['ignore', 'ignore', 'pipe'], env: cliEnv() },
    )
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const restPort = await new Promise<number>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        const m = /running on .*rest=(\d+)/.exec(line)
        if (m) resolve(Number(m[1]))
      })
      void exited.then((code) => reject(new Error(`hark start exited early (${code})`)))
    })
    const res = await fetch(`http://127.0.0.1:${restPort}/api/v1/clients`)
    expect(res.status).toBe(401)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('hark start brings /healthz to 200, admits a WSS terminal without a word on stderr, and exits 0 on SIGTERM (graceful stop inside its 4.5 s budget)', async () => {
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])
    expect((await runCli(['client', 'create', 't1', '--workspace', workspaceId, '--room', 'lobby', ...data()])).code).toBe(0)
    const { token } = await cliJson<{ token: string }>(['token', 'issue', 't1', '--workspace', workspaceId, ...data()])
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'bin/hark.js'), 'start', ...data(), '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', '--log-level', 'warn'],
      { stdio: ['ignore', 'ignore', 'pipe'], env: cliEnv() },
    )
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const lines = createInterface({ input: child.stderr! })
    const said: string[] = []
    lines.on('line', (line) => said.push(line))
    const [restPort, gatewayPort] = await new Promise<[number, number]>((resolve, reject) => {
      lines.on('line', (line) => {
        const m = /running on .*rest=(\d+) gateway=(\d+)/.exec(line)
        if (m) resolve([Number(m[1]), Number(m[2])])
      })
      void exited.then((code) => reject(new Error(`hark start exited early (${code})`)))
    })
    const res = await fetch(`http://127.0.0.1:${restPort}/healthz`)
    expect(res.status).toBe(200)
    // The first WSS session of a run: uWS once printed "writes must be made from within a corked callback" here.
    const terminal = await TestTerminal.connect(gatewayPort, { token }, readFileSync(join(dir.path, 'tls-self-signed.crt'), 'utf8'))
    expect(await terminal.event('session')).toMatchObject({ clientId: 't1', room: 'lobby' })
    terminal.close()
    await terminal.closed
    const spoken = said.length
    const allRead = new Promise<void>((resolve) => lines.on('close', resolve))
    child.kill('SIGTERM')
    // Exit code 0 means the graceful stop finished before the 4.5 s watchdog (which exits 1).
    expect(await exited).toBe(0)
    // The operator sees the stop begin and end (stderr read to its end: 'exit' may come first).
    await allRead
    const isJson = (l: string) => {
      try {
        return typeof JSON.parse(l) === 'object'
      } catch {
        return false
      }
    }
    expect(said.slice(0, spoken).filter((l) => !l.startsWith('hark: ') && !isJson(l))).toEqual([])
    expect(said).toContain('hark: SIGTERM: stopping')
    expect(said.some((l) => /^hark: stopped in \d+ ms$/.test(l))).toBe(true)
  })
})
