/**
 * `hark user …` and `hark audit` as an operator runs them (real processes on a real data dir):
 * the documented JSON, passwords only on stdin and never printed, the last-admin rule, sessions
 * ended by a reset or a disable, and every change in the audit log with the actor `operator`.
 */
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { verifyPassword } from '../core/people/passwords.js'
import { openStorage } from '../core/storage/storage.js'
import { cliJson, runCli, tempDir } from '../core/test/helpers.js'

let dir: ReturnType<typeof tempDir>
beforeEach(() => (dir = tempDir()))
afterEach(() => dir.remove())

const data = () => ['--data', dir.path]
const PASSWORD = 'correct horse battery'

/** Users for a test that checks something else than their creation. */
const seedUsers = async (...emails: string[]): Promise<string[]> => {
  const ids: string[] = []
  for (const email of emails) {
    const r = await cliJson<{ userId: string }>(['user', 'create', email, '--password-stdin', ...data()], {}, PASSWORD)
    ids.push(r.userId)
  }
  return ids
}

/** Read the data dir directly, as the engine would. */
const withStorage = <A>(f: (s: ReturnType<typeof openStorage>) => A): A => {
  const s = openStorage(join(dir.path, 'hark.db'))
  try {
    return f(s)
  } finally {
    s.close()
  }
}

describe('hark user', () => {
  it('creates a user from a password on stdin and prints {userId, email}; the email is unique without regard to case', async () => {
    const created = await cliJson<{ userId: string; email: string }>(['user', 'create', 'Ada@Example.com', '--name', 'Ada', '--password-stdin', ...data()], {}, `${PASSWORD}\n`)
    expect(created).toEqual({ userId: expect.stringMatching(/^usr_[0-9A-Za-z]{16}$/), email: 'Ada@Example.com' })
    const stored = withStorage((s) => s.users.findByEmail('ada@example.com'))!
    expect(stored.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    // One trailing line break is not part of the password.
    expect(await verifyPassword(stored.passwordHash, PASSWORD)).toBe(true)

    const again = await runCli(['user', 'create', 'ADA@example.COM', '--password-stdin', ...data()], {}, PASSWORD)
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/^hark: a user with email ADA@example.COM already exists \(user_exists\)\n$/)

    const list = await runCli(['user', 'list', '--json', ...data()])
    expect(JSON.parse(list.stdout)).toEqual([
      { userId: created.userId, email: 'Ada@Example.com', name: 'Ada', disabled: false, createdAt: expect.any(String), workspaces: [] },
    ])
    expect(list.stdout).not.toContain('argon2')
  })

  it('refuses a password in argv, a missing or short one, and a malformed email, as usage errors', async () => {
    const cases: Array<[string[], string | undefined, RegExp]> = [
      [['user', 'create', 'ada@example.com'], PASSWORD, /--password-stdin/],
      [['user', 'create', 'ada@example.com', '--password-stdin'], 'short', /password must be 10 to 256 characters/],
      [['user', 'create', 'not-an-email', '--password-stdin'], PASSWORD, /email must be an address/],
      [['user', 'create', 'ada@example.com', '--password', PASSWORD], undefined, /unknown option '--password'/],
    ]
    for (const [args, input, message] of cases) {
      const r = await runCli([...args, ...data()], {}, input)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(message)
      expect(r.stderr).not.toContain(PASSWORD)
    }
    expect(withStorage((s) => s.users.list())).toEqual([])
  })

  it('grants roles and keeps a last admin', async () => {
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])
    const [ada] = await seedUsers('ada@example.com', 'bob@example.com')
    expect(await cliJson(['user', 'grant', 'ada@example.com', '--workspace', workspaceId, '--role', 'admin', ...data()])).toEqual({
      userId: ada, email: 'ada@example.com', workspaceId, role: 'admin',
    })
    const demote = await runCli(['user', 'grant', 'ada@example.com', '--workspace', workspaceId, '--role', 'viewer', ...data()])
    expect(demote.code).toBe(1)
    expect(demote.stderr).toMatch(/last admin of a workspace cannot be demoted.* \(last_admin\)/)
    await cliJson(['user', 'grant', 'bob@example.com', '--workspace', workspaceId, '--role', 'admin', ...data()])
    await cliJson(['user', 'grant', 'ada@example.com', '--workspace', workspaceId, '--role', 'developer', ...data()])
    const list = await cliJson<Array<{ email: string; workspaces: unknown[] }>>(['user', 'list', ...data()])
    expect(list.map((u) => [u.email, u.workspaces])).toEqual([
      ['ada@example.com', [{ workspaceId, name: 'acme', role: 'developer' }]],
      ['bob@example.com', [{ workspaceId, name: 'acme', role: 'admin' }]],
    ])
  })

  it('refuses a grant of an unknown role, user or workspace', async () => {
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])
    await seedUsers('ada@example.com')
    const badRole = await runCli(['user', 'grant', 'ada@example.com', '--workspace', workspaceId, '--role', 'owner', ...data()])
    expect([badRole.code, badRole.stderr]).toEqual([2, 'hark: role must be admin, developer or viewer (validation_failed)\n'])
    const nobody = await runCli(['user', 'grant', 'eve@example.com', '--workspace', workspaceId, '--role', 'viewer', ...data()])
    expect([nobody.code, nobody.stderr]).toEqual([1, 'hark: no user with email eve@example.com (user_not_found)\n'])
    const noWorkspace = await runCli(['user', 'grant', 'ada@example.com', '--workspace', 'ws_nope', '--role', 'viewer', ...data()])
    expect([noWorkspace.code, noWorkspace.stderr]).toEqual([1, 'hark: no workspace ws_nope (workspace_not_found)\n'])
  })

  it('resets a password (ending every session of the user) and disables a user', async () => {
    const [ada] = await seedUsers('ada@example.com')
    // Two console sessions of ada; a reset ends both and the new password is the one that verifies.
    withStorage((s) => {
      for (const hash of ['a'.repeat(64), 'b'.repeat(64)]) {
        s.userSessions.insert({ sessionHash: hash, userId: ada!, csrfToken: 'x', createdAt: 1, lastSeenAt: 1, expiresAt: Date.now() + 60_000, ip: null, userAgent: null })
      }
    })
    const reset = await cliJson(['user', 'reset-password', 'ada@example.com', '--password-stdin', ...data()], {}, 'a new long passphrase\n')
    expect(reset).toEqual({ userId: ada, email: 'ada@example.com', sessionsEnded: 2 })
    const hash = withStorage((s) => {
      expect(s.userSessions.countForUser(ada!)).toBe(0)
      return s.users.get(ada!)!.passwordHash
    })
    expect(await verifyPassword(hash, 'a new long passphrase')).toBe(true)
    expect(await verifyPassword(hash, PASSWORD)).toBe(false)

    withStorage((s) => s.userSessions.insert({ sessionHash: 'c'.repeat(64), userId: ada!, csrfToken: 'x', createdAt: 1, lastSeenAt: 1, expiresAt: Date.now() + 60_000, ip: null, userAgent: null }))
    expect(await cliJson(['user', 'disable', 'ada@example.com', ...data()])).toEqual({ userId: ada, email: 'ada@example.com', disabled: true, sessionsEnded: 1 })
    expect(withStorage((s) => s.users.get(ada!)!.disabledAt)).not.toBeNull()
  })
})

describe('hark audit', () => {
  it("prints a workspace's security events, newest first, with the actor operator and never a secret", async () => {
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])
    await cliJson(['user', 'create', 'ada@example.com', '--password-stdin', ...data()], {}, PASSWORD)
    await cliJson(['user', 'grant', 'ada@example.com', '--workspace', workspaceId, '--role', 'admin', ...data()])
    const key = await cliJson<{ keyId: string; apiKey: string }>(['apikey', 'create', '--workspace', workspaceId, ...data()])
    await cliJson(['client', 'create', 'dev-1', '--workspace', workspaceId, ...data()])
    const device = await cliJson<{ password: string }>(['device-password', 'reset', 'dev-1', '--workspace', workspaceId, ...data()])
    await cliJson(['secret', 'rotate', '--workspace', workspaceId, ...data()])

    const audit = await runCli(['audit', '--workspace', workspaceId, '--json', ...data()])
    expect(audit.code).toBe(0)
    const events = JSON.parse(audit.stdout) as Array<{ action: string; actor: string; target: string; at: string; detail: unknown }>
    expect(events.map((e) => [e.action, e.target])).toEqual([
      ['secret.rotated', expect.stringMatching(/^sk_/)],
      ['device_password.reset', 'dev-1'],
      ['apikey.created', key.keyId],
      ['member.added', 'ada@example.com'],
      // ada's account events show in the log of a workspace she belongs to.
      ['user.created', 'ada@example.com'],
    ])
    expect(events.every((e) => e.actor === 'operator' && !Number.isNaN(Date.parse(e.at)))).toBe(true)
    expect(events.find((e) => e.action === 'member.added')!.detail).toEqual({ role: 'admin' })
    for (const secret of [PASSWORD, key.apiKey, device.password]) expect(audit.stdout).not.toContain(secret)
    const human = await runCli(['audit', '--workspace', workspaceId, ...data()])
    expect(human.stdout.trim().split('\n')).toHaveLength(events.length)
  })
})
