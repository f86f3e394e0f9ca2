/**
 * Members and invitations through the console API, on a driven clock: an admin invites an email
 * with a role and gets a single-use link; it creates the account or adds the membership once, and
 * is refused alike when reused, revoked or expired (7 days); roles change and members go, but a
 * workspace always keeps an admin; a user belongs to several workspaces.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { RecordingLink } from '../../core/test/helpers.js'
import { PASSWORD, startConsoleEngineOnManualClock, type ConsoleEngine } from './test/consoleEngine.js'

let t: ConsoleEngine | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const start = async () => {
  const started = await startConsoleEngineOnManualClock()
  t = started.t
  const { clock, jump } = started
  const admin = await t.user('admin@example.com')
  const created = await admin.client.post('/api/workspaces', { name: 'acme' })
  expect(created.status).toBe(201)
  return { t, clock, jump, admin: admin.client, adminId: admin.record.userId, ws: `/api/workspaces/${created.body.workspaceId as string}`, workspaceId: created.body.workspaceId as string }
}

const tokenOf = (link: string) => /\/invitations\/([A-Za-z0-9_-]{43})$/.exec(link)![1]!

describe('console invitations', () => {
  it('creates the account through a single-use link, which then answers 410 like any invalid one', async () => {
    const { t, admin, ws, workspaceId } = await start()
    const invited = await admin.post(`${ws}/invitations`, { email: 'Vic@Example.com', role: 'viewer' })
    expect(invited.status).toBe(201)
    expect(invited.body.link).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${t.engine.ports.console}/invitations/[A-Za-z0-9_-]{43}$`))
    expect(invited.body.invitation).toMatchObject({ email: 'Vic@Example.com', role: 'viewer', state: 'pending' })
    const token = tokenOf(invited.body.link)
    // Only a hash of the link's secret is stored.
    expect(JSON.stringify(t.engine.host.storage.invitations.list(workspaceId))).not.toContain(token)

    const visitor = t.client()
    const info = await visitor.get(`/api/invitations/${token}`)
    expect(info.body).toEqual({ workspace: { workspaceId, name: 'acme' }, email: 'Vic@Example.com', role: 'viewer', expiresAt: '2026-11-27T09:00:00.000Z', userExists: false })
    const weak = await visitor.post(`/api/invitations/${token}/register`, { password: 'short' })
    expect(weak.status).toBe(400)
    const registered = await visitor.post(`/api/invitations/${token}/register`, { name: 'Vic', password: PASSWORD })
    expect(registered.status).toBe(201)
    expect(registered.body).toMatchObject({ user: { email: 'Vic@Example.com', name: 'Vic' }, workspace: { workspaceId }, role: 'viewer' })
    await visitor.signIn('vic@example.com', PASSWORD)
    expect((await visitor.get('/api/workspaces')).body.workspaces).toEqual([{ workspaceId, name: 'acme', role: 'viewer', permissions: ['read'] }])

    const again = await t.client().post(`/api/invitations/${token}/register`, { password: 'another password!' })
    expect([again.status, again.body.error.code]).toEqual([410, 'invitation_invalid'])
    const unknown = await t.client().get(`/api/invitations/${'A'.repeat(43)}`)
    const malformed = await t.client().get('/api/invitations/nope')
    expect([unknown.status, unknown.text]).toEqual([again.status, (await t.client().get(`/api/invitations/${token}`)).text])
    expect(malformed.status).toBe(410)
    expect((await admin.get(`${ws}/invitations`)).body.invitations[0].state).toBe('accepted')
  })

  it('refuses a link after 7 days and after it was revoked', async () => {
    const { t, jump, admin, ws } = await start()
    const old = tokenOf((await admin.post(`${ws}/invitations`, { email: 'old@example.com', role: 'developer' })).body.link)
    const revoked = await admin.post(`${ws}/invitations`, { email: 'gone@example.com', role: 'developer' })
    expect((await admin.delete(`${ws}/invitations/${revoked.body.invitation.invitationId as string}`)).status).toBe(200)
    const gone = await t.client().post(`/api/invitations/${tokenOf(revoked.body.link)}/register`, { password: PASSWORD })
    expect([gone.status, gone.body.error.code]).toEqual([410, 'invitation_invalid'])

    jump(7 * 86_400_000 - 1)
    expect((await t.client().get(`/api/invitations/${old}`)).status).toBe(200)
    jump(1)
    const late = await t.client().post(`/api/invitations/${old}/register`, { password: PASSWORD })
    expect([late.status, late.body.error.code]).toEqual([410, 'invitation_invalid'])
    expect(t.engine.host.storage.users.findByEmail('old@example.com')).toBeNull()
    // A week later the admin's own session has long ended too.
    expect((await admin.get(`${ws}/invitations`)).status).toBe(401)
    await admin.signIn('admin@example.com', PASSWORD)
    expect((await admin.get(`${ws}/invitations`)).body.invitations.map((i: { state: string }) => i.state)).toEqual(['revoked', 'expired'])
  })

  it('adds an existing user who accepts signed in as the invited email, and no one else', async () => {
    const { t, admin, ws, workspaceId } = await start()
    const dev = await t.user('dev@example.com')
    const other = await t.user('other@example.com')
    // dev already belongs to a workspace of their own: a user may be in several.
    const own = (await dev.client.post('/api/workspaces', { name: 'side project' })).body.workspaceId as string
    const token = tokenOf((await admin.post(`${ws}/invitations`, { email: 'dev@example.com', role: 'developer' })).body.link)
    expect((await t.client().get(`/api/invitations/${token}`)).body.userExists).toBe(true)
    const register = await t.client().post(`/api/invitations/${token}/register`, { password: PASSWORD })
    expect([register.status, register.body.error.code]).toEqual([409, 'user_exists'])
    const wrongUser = await other.client.post(`/api/invitations/${token}/accept`)
    expect([wrongUser.status, wrongUser.body.error.code]).toEqual([410, 'invitation_invalid'])
    const anonymous = await t.client().post(`/api/invitations/${token}/accept`)
    expect(anonymous.status).toBe(401)
    const accepted = await dev.client.post(`/api/invitations/${token}/accept`)
    expect(accepted.body).toEqual({ workspace: { workspaceId, name: 'acme' }, role: 'developer' })
    const mine = (await dev.client.get('/api/workspaces')).body.workspaces.map((w: { workspaceId: string; role: string }) => [w.workspaceId, w.role])
    expect(new Map(mine)).toEqual(new Map([[workspaceId, 'developer'], [own, 'admin']]))
  })
})

describe('console members', () => {
  it('changes roles and removes members, but never leaves a workspace without an admin', async () => {
    const { t, admin, adminId, ws } = await start()
    const bob = await t.user('bob@example.com')
    const token = tokenOf((await admin.post(`${ws}/invitations`, { email: 'bob@example.com', role: 'viewer' })).body.link)
    await bob.client.post(`/api/invitations/${token}/accept`)
    const bobId = bob.record.userId

    const cases = [
      ['demote the last admin', () => admin.patch(`${ws}/members/${adminId}`, { role: 'developer' })],
      ['remove the last admin', () => admin.delete(`${ws}/members/${adminId}`)],
      ['the last admin leaves', () => admin.post(`${ws}/leave`)],
    ] as const
    for (const [what, call] of cases) {
      const r = await call()
      expect([what, r.status, r.body.error.code]).toEqual([what, 409, 'last_admin'])
    }
    expect((await admin.get(`${ws}/members`)).body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['admin@example.com', 'admin'],
      ['bob@example.com', 'viewer'],
    ])

    expect((await admin.patch(`${ws}/members/${bobId}`, { role: 'admin' })).status).toBe(200)
    // Now there are two admins: the first may step down, and then the other is the last.
    expect((await admin.patch(`${ws}/members/${adminId}`, { role: 'developer' })).status).toBe(200)
    expect((await admin.get(`${ws}/members`)).status).toBe(403)
    const last = await bob.client.post(`${ws}/leave`)
    expect([last.status, last.body.error.code]).toEqual([409, 'last_admin'])
    expect((await bob.client.delete(`${ws}/members/${adminId}`)).status).toBe(200)
    expect((await admin.get(ws)).status).toBe(404)

    const events = t.engine.host.storage.auditEvents.all({ limit: 50 }).map((e) => e.action)
    expect(events).toEqual(expect.arrayContaining(['member.invited', 'member.joined', 'member.role_changed', 'member.removed']))
  })
})

describe('deleting a workspace', () => {
  it('revokes its API keys, disconnects its terminals, and takes it from every member', async () => {
    const { t, admin, ws, workspaceId } = await start()
    const dev = await t.user('dev@example.com')
    t.people.grant(workspaceId, dev.record.userId, 'developer', { userId: null, label: 'operator', ip: null })
    expect((await admin.post(`${ws}/clients`, { clientId: 'dev-1', room: 'lobby' })).status).toBe(201)
    const { security, terminals } = t.engine.host
    const key = security.apiKeys.create(workspaceId, 'backend').apiKey
    const link = new RecordingLink('websocket')
    terminals.open(await security.authenticateTerminal({ token: (await security.tokens.issue(workspaceId, 'dev-1', null)).token }), link)
    await link.event('session')

    expect((await dev.client.delete(ws)).status).toBe(403)
    expect((await admin.delete(ws)).body).toEqual({ workspaceId, deleted: true })
    expect(await link.event('session.closing')).toMatchObject({ code: 'client_deleted' })
    const rest = await fetch(`http://127.0.0.1:${t.engine.ports.rest}/api/v1/clients`, { headers: { authorization: `Bearer ${key}` } })
    expect(rest.status).toBe(401)
    for (const member of [admin, dev.client]) {
      expect((await member.get(ws)).status).toBe(404)
      expect((await member.get('/api/workspaces')).body.workspaces).toEqual([])
    }
    expect(t.engine.host.storage.workspaces.list()).toEqual([])
    expect(t.engine.host.storage.auditEvents.ofWorkspace(workspaceId, { limit: 5 })[0]).toMatchObject({ action: 'workspace.deleted', actor: 'admin@example.com' })
  })
})
