/**
 * Exit codes of the CLI as README documents them: 2 for a usage or config error (the command
 * line or the settings are wrong and will stay wrong), with one line on stderr starting with
 * "hark: " and nothing on stdout. (1, for a refused well-formed command, is in cli.test.ts.)
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliJson, runCli, tempDir } from '../core/test/helpers.js'

let dir: ReturnType<typeof tempDir>
let ws: string
const data = () => ['--data', dir.path]

beforeAll(async () => {
  dir = tempDir()
  ws = (await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])).workspaceId
  await cliJson(['client', 'create', 'dev-1', '--workspace', ws, ...data()])
  writeFileSync(join(dir.path, 'list.json'), '[1]')
  writeFileSync(join(dir.path, 'nodefault.mjs'), 'export const x = 1\n')
}, 60_000)
afterAll(() => dir.remove())

const token = (ttl: string) => ['token', 'issue', 'dev-1', '--workspace', ws, '--ttl', ttl, ...data()]
const list = (...more: string[]) => ['workspace', 'list', ...more, ...data()]
const start = (...more: string[]) => ['start', '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', ...more, ...data()]

describe('hark exits 2 with one line for a usage or config error', () => {
  it.each<[string, () => string[], RegExp]>([
    // A value the command refuses as invalid (validation_failed).
    ['--ttl abc', () => token('abc'), /--ttl must be an integer from 1 to 31536000 \(validation_failed\)/],
    ['--ttl beyond the maximum', () => token('99999999999'), /--ttl must be an integer/],
    ['an empty workspace name', () => ['workspace', 'create', '', ...data()], /workspace name: .*validation_failed/],
    ['a malformed client id', () => ['client', 'create', 'a/b', '--workspace', ws, ...data()], /clientId: .*validation_failed/],
    ['a malformed date', () => ['usage', '--workspace', ws, '--from', '2020-13-01', ...data()], /from must be a UTC date/],
    // A config that cannot be used.
    ['a missing .json config', () => list('--config', join(dir.path, 'missing.json')), /cannot read config .*missing\.json/],
    ['a missing .js config', () => list('--config', join(dir.path, 'missing.js')), /cannot load config .*missing\.js/],
    ['a .json config that is no object', () => list('--config', join(dir.path, 'list.json')), /must hold a JSON object of settings/],
    ['a .js config without default export', () => list('--config', join(dir.path, 'nodefault.mjs')), /has no default export/],
    ['a master key that is not 32 bytes', () => start('--security-master-key', 'abc'), /invalid setting security\.masterKey .*must be base64 of 32 bytes/],
    ['a TLS file that cannot be read', () => start('--tls-cert-file', '/nonexistent/c.pem', '--tls-key-file', '/nonexistent/k.pem'), /invalid setting tls\.certFile .*cannot read \/nonexistent\/c\.pem/],
    ['a TLS certificate without its key', () => start('--tls-cert-file', '/nonexistent/c.pem'), /invalid setting tls\.keyFile .*must be set together/],
    // commander's own usage errors, in the same form.
    ['an unknown command', () => ['frobnicate'], /^hark: unknown command 'frobnicate'/],
    ['a missing required option', () => ['token', 'issue', 'dev-1', ...data()], /^hark: required option '--workspace <id>' not specified/],
  ])('%s', async (_what, args, message) => {
    const r = await runCli(args())
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' })
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^hark: /)])
    expect(r.stderr).toMatch(message)
  })
})
