/**
 * Signing in to the console against a real engine on a driven clock: the session cookie's form,
 * one answer (and one password check) for an unknown email, a wrong password and a disabled
 * account, growing throttles per account and per IP, CSRF refusals, idle and absolute session
 * expiry, sign out here and everywhere, and a password change that ends the other sessions.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { OPERATOR } from '../../core/people/audit.js'
import { PASSWORD, startConsoleEngineOnManualClock, type ConsoleEngine } from './test/consoleEngine.js'

let t: ConsoleEngine | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const start = async () => {
  const started = await startConsoleEngineOnManualClock()
  t = started.t
  return { t, clock: started.clock, jump: started.jump }
}

const metric = async (outcome: string) => {
  const text = await t!.engine.host.metrics.getSingleMetricAsString('hark_console_signins_total')
  return Number(new RegExp(`outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0)
}

describe('console sign-in', () => {
  it('sets a __Host- session cookie (HttpOnly, Secure, SameSite=Lax, Path=/) and never shows the session id', async () => {
    const { t } = await start()
    await t.createUser('ada@example.com')
    const c = t.client()
    const r = await c.signIn('ada@example.com', PASSWORD)
    const cookie = ([] as string[]).concat(r.headers['set-cookie'] ?? [])
    expect(cookie).toHaveLength(1)
    expect(cookie[0]).toMatch(/^__Host-hark_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
    expect(cookie[0]).not.toMatch(/Domain=/i)
    expect(r.text).not.toContain(c.sessionId!)
    expect(r.body).toMatchObject({ user: { email: 'ada@example.com' }, csrfToken: expect.any(String), workspaces: [] })
    // Only a hash of the id is stored.
    const stored = t.engine.host.storage.db.prepare('SELECT session_hash FROM user_sessions').all() as Array<{ session_hash: string }>
    expect(stored).toHaveLength(1)
    expect(stored[0]!.session_hash).not.toContain(c.sessionId!)
    expect((await c.get('/api/session')).status).toBe(200)
    const out = await c.delete('/api/session')
    expect(out.status).toBe(200)
    expect(String(out.headers['set-cookie'])).toMatch(/^__Host-hark_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax$/)
    expect(c.sessionId).toBeNull()

    // Signing in again while the browser still sends an ended session's cookie: one new cookie.
    c.sessionId = 'A'.repeat(43)
    const again = await c.signIn('ada@example.com', PASSWORD)
    expect(([] as string[]).concat(again.headers['set-cookie'] ?? [])).toEqual([expect.stringMatching(/^__Host-hark_session=[A-Za-z0-9_-]{43}; Max-Age=604800;/)])
    expect(c.sessionId).not.toBe('A'.repeat(43))
    expect((await c.get('/api/session')).status).toBe(200)
  })

  it('answers an unknown email, a wrong password and a disabled account alike, each after one password check', async () => {
    const { t } = await start()
    await t.createUser('ada@example.com')
    const bob = await t.createUser('bob@example.com')
    t.people.disableUser(bob.userId, OPERATOR)
    const attempts = [
      ['nobody@example.com', PASSWORD],
      ['ada@example.com', 'not the password'],
      ['bob@example.com', PASSWORD],
    ] as const
    const answers = []
    for (const [email, password] of attempts) {
      const refused = await metric('refused')
      const r = await t.client().post('/api/session', { email, password })
      expect(await metric('refused')).toBe(refused + 1)
      answers.push([r.status, r.text, r.headers['set-cookie'] ?? null])
    }
    expect(answers).toEqual(Array(3).fill([401, '{"error":{"message":"wrong email or password","code":"invalid_credentials"}}', null]))
    const failed = t.engine.host.storage.auditEvents.all({ limit: 10 }).filter((e) => e.action === 'signin.failed')
    expect(failed.map((e) => [e.actor, e.subjectUserId !== null])).toEqual([
      ['bob@example.com', true],
      ['ada@example.com', true],
      ['nobody@example.com', false],
    ])
  })

  it('throttles an account, known or not, with doubling waits, and forgives it after a success', async () => {
    const { t, clock } = await start()
    await t.createUser('ada@example.com')
    for (const email of ['ada@example.com', 'ghost@example.com']) {
      const c = t.client()
      const tries: number[] = []
      for (let i = 0; i < 4; i++) tries.push((await c.post('/api/session', { email, password: 'wrong password!' })).status)
      expect(tries).toEqual([401, 401, 401, 401])
      // The fourth failure earned a 1 s wait: even the right password is not checked before it ends.
      const checked = (await metric('ok')) + (await metric('refused'))
      const held = await c.post('/api/session', { email, password: PASSWORD })
      expect([held.status, held.headers['retry-after'], held.body.error.code]).toEqual([429, '1', 'rate_limited'])
      expect((await metric('ok')) + (await metric('refused'))).toBe(checked)
      clock.advance(1000)
      expect((await c.post('/api/session', { email, password: 'wrong password!' })).status).toBe(401)
      const doubled = await c.post('/api/session', { email, password: PASSWORD })
      expect([doubled.status, doubled.headers['retry-after']]).toEqual([429, '2'])
      clock.advance(1999)
      expect((await c.post('/api/session', { email, password: PASSWORD })).status).toBe(429)
      clock.advance(1)
      expect((await c.post('/api/session', { email, password: PASSWORD })).status).toBe(email === 'ada@example.com' ? 200 : 401)
    }
    // ada's success cleared her count: a failure now is free again.
    expect((await t.client().post('/api/session', { email: 'ada@example.com', password: 'wrong password!' })).status).toBe(401)
    expect((await t.client().post('/api/session', { email: 'ada@example.com', password: PASSWORD })).status).toBe(200)
  })

  it('throttles an IP that fails across many accounts, the right password of another included', async () => {
    const { t, clock } = await start()
    await t.createUser('ada@example.com')
    for (let i = 0; i < 21; i++) {
      expect((await t.client().post('/api/session', { email: `user${i}@example.com`, password: 'wrong password!' })).status).toBe(401)
    }
    const held = await t.client().post('/api/session', { email: 'ada@example.com', password: PASSWORD })
    expect([held.status, held.headers['retry-after']]).toEqual([429, '1'])
    clock.advance(1000)
    expect((await t.client().post('/api/session', { email: 'ada@example.com', password: PASSWORD })).status).toBe(200)
  })
})

describe('console CSRF protection', () => {
  it('refuses a change without the session token, with a wrong one, or from another origin, and does nothing', async () => {
    const { t } = await start()
    const { client } = await t.user('ada@example.com')
    const cases = [
      ['no token', { csrf: null }],
      ['wrong token', { csrf: 'x'.repeat(43) }],
      ['another origin', { origin: 'https://evil.example' }],
      ['no origin', { origin: null }],
      ['the REST port as origin', { origin: `http://127.0.0.1:${t.engine.ports.rest}` }],
    ] as const
    for (const [what, options] of cases) {
      const r = await client.post('/api/workspaces', { name: 'acme' }, options)
      expect([what, r.status, r.body.error.code]).toEqual([what, 403, 'csrf_rejected'])
    }
    expect(t.engine.host.storage.workspaces.list()).toEqual([])
    // A same-origin fetch that sends Sec-Fetch-Site instead of Origin is fine (with the token).
    const ok = await client.post('/api/workspaces', { name: 'acme' }, { origin: null, headers: { 'sec-fetch-site': 'same-origin' } })
    expect(ok.status).toBe(201)
    // Reads need no token; a sign-in from another origin is refused too.
    expect((await client.get('/api/workspaces')).status).toBe(200)
    const cross = await t.client().post('/api/session', { email: 'ada@example.com', password: PASSWORD }, { origin: 'https://evil.example' })
    expect([cross.status, cross.headers['set-cookie']]).toEqual([403, undefined])
  })
})

describe('console sessions', () => {
  it('end after 12 h unused, however often used before, and 7 days after sign-in whatever happens', async () => {
    const { t, jump } = await start()
    await t.createUser('ada@example.com')
    const idle = t.client()
    await idle.signIn('ada@example.com', PASSWORD)
    jump(12 * 3_600_000 - 1)
    expect((await idle.get('/api/session')).status).toBe(200)
    jump(12 * 3_600_000 - 1)
    expect((await idle.get('/api/session')).status).toBe(200)
    jump(12 * 3_600_000)
    const expired = await idle.get('/api/session')
    expect([expired.status, expired.body.error.code]).toEqual([401, 'unauthenticated'])
    expect(String(expired.headers['set-cookie'])).toMatch(/^__Host-hark_session=; Max-Age=0/)

    const busy = t.client()
    await busy.signIn('ada@example.com', PASSWORD)
    for (let hour = 0; hour < 7 * 24 - 1; hour++) {
      jump(3_600_000)
      expect((await busy.get('/api/workspaces')).status).toBe(200)
    }
    jump(3_600_000)
    expect((await busy.get('/api/workspaces')).status).toBe(401)
    expect(t.engine.host.storage.userSessions.countForUser((await t.people.requireUserByEmail('ada@example.com')).userId)).toBe(0)
  })

  it('signs out everywhere, and a password change ends every other session of the user', async () => {
    const { t } = await start()
    const { client: first } = await t.user('ada@example.com')
    const second = t.client()
    await second.signIn('ada@example.com', PASSWORD)
    const third = t.client()
    await third.signIn('ada@example.com', PASSWORD)

    const wrong = await first.post('/api/account/password', { currentPassword: 'not it at all', newPassword: 'a brand new passphrase' })
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'validation_failed'])
    const weak = await first.post('/api/account/password', { currentPassword: PASSWORD, newPassword: 'short' })
    expect(weak.status).toBe(400)
    const changed = await first.post('/api/account/password', { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' })
    expect(changed.body).toEqual({ changed: true, otherSessionsEnded: 2 })
    expect((await first.get('/api/session')).status).toBe(200)
    expect((await second.get('/api/session')).status).toBe(401)
    expect((await t.client().post('/api/session', { email: 'ada@example.com', password: PASSWORD })).status).toBe(401)
    await second.signIn('ada@example.com', 'a brand new passphrase')

    const everywhere = await second.post('/api/session/end-all')
    expect(everywhere.body).toEqual({ signedOut: true, sessionsEnded: 2 })
    expect((await first.get('/api/session')).status).toBe(401)
    expect((await second.get('/api/session')).status).toBe(401)
    const actions = t.engine.host.storage.auditEvents.all({ limit: 20 }).map((e) => e.action)
    expect(actions).toEqual(expect.arrayContaining(['signout.everywhere', 'user.password_changed']))
  })

  it('ends the sessions of a user the operator disables', async () => {
    const { t } = await start()
    const { client, record } = await t.user('ada@example.com')
    t.people.disableUser(record.userId, OPERATOR)
    expect((await client.get('/api/workspaces')).status).toBe(401)
  })
})
