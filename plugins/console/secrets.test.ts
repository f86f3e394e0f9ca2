/**
 * No secret leaks from the console: a session that does everything — signs in, fails sign-ins,
 * creates an API key and uses it, reveals and resets a device password, issues tokens, invites,
 * registers, changes a password, rotates the secret — with the engine logging at trace level into
 * memory. Afterwards no log line and no audit record holds a password, API key, session id,
 * device password or invitation secret, and each response holds only the secret it exists to hand
 * over (the new API key once, the device password on reveal and reset); session ids travel in
 * Set-Cookie only.
 */
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../core/log.js'
import { PASSWORD, startConsoleEngine, type ConsoleEngine } from './test/consoleEngine.js'
import type { ConsoleClient, ConsoleResponse } from './test/consoleClient.js'

const lines: string[] = []
let t: ConsoleEngine

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      done()
    },
  })
  t = await startConsoleEngine({}, { logger: createLogger('trace', sink, 'json') })
}, 30_000)

afterAll(async () => {
  await t?.stop()
})

describe('secrets in the console', () => {
  it('appear in no log line or audit record, and in no response but the one that hands each over', async () => {
    const secrets = new Map<string, string>()
    const clients: ConsoleClient[] = []
    const admin = t.client()
    clients.push(admin)
    await t.createUser('ada@example.com')
    secrets.set('ada password', PASSWORD)
    await admin.post('/api/session', { email: 'ada@example.com', password: 'a wrong password' })
    secrets.set('mistyped password', 'a wrong password')
    await admin.signIn('ada@example.com', PASSWORD)
    secrets.set('ada session', admin.sessionId!)
    const ws = `/api/workspaces/${(await admin.post('/api/workspaces', { name: 'acme' })).body.workspaceId as string}`

    const key = await admin.post(`${ws}/api-keys`, { name: 'backend' })
    secrets.set('api key', key.body.apiKey)
    const rest = await fetch(`http://127.0.0.1:${t.engine.ports.rest}/api/v1/clients`, { headers: { authorization: `Bearer ${key.body.apiKey as string}` } })
    expect(rest.status).toBe(200)
    await fetch(`http://127.0.0.1:${t.engine.ports.rest}/api/v1/clients`, { headers: { authorization: `Bearer hk_${'x'.repeat(43)}` } })

    await admin.post(`${ws}/clients`, { clientId: 'dev-1', room: 'lobby' })
    const revealed = await admin.post(`${ws}/clients/dev-1/device-password/reveal`)
    secrets.set('device password', revealed.body.password)
    const reset = await admin.post(`${ws}/clients/dev-1/device-password/reset`)
    secrets.set('new device password', reset.body.password)
    const token = await admin.post(`${ws}/clients/dev-1/token`, { ttlSeconds: 600 })
    secrets.set('client token', token.body.token)
    const joined = await admin.post(`${ws}/rooms/lobby/join`)
    secrets.set('join token', joined.body.token)
    await admin.post(`${ws}/signing-secret/rotate`)

    const invite = await admin.post(`${ws}/invitations`, { email: 'vic@example.com', role: 'viewer' })
    const invitationToken = String(invite.body.link).split('/').pop()!
    secrets.set('invitation', invitationToken)
    const vic = t.client()
    clients.push(vic)
    await vic.get(`/api/invitations/${invitationToken}`)
    await vic.post(`/api/invitations/${invitationToken}/register`, { password: 'vics own passphrase' })
    secrets.set('vic password', 'vics own passphrase')
    await vic.signIn('vic@example.com', 'vics own passphrase')
    secrets.set('vic session', vic.sessionId!)
    await vic.post('/api/account/password', { currentPassword: 'vics own passphrase', newPassword: 'vics next passphrase' })
    secrets.set('vic new password', 'vics next passphrase')
    await vic.post('/api/invitations/not-a-token/register', { password: 'vics own passphrase' })
    await admin.get(`${ws}/audit`)
    await admin.delete(`${ws}/api-keys/${key.body.key.keyId as string}`)

    // Where each secret may be: the response that hands it over, and nowhere else.
    const allowed = (name: string, r: ConsoleResponse): boolean =>
      (name === 'api key' && r === key) ||
      (name === 'device password' && r === revealed) ||
      (name === 'new device password' && r === reset) ||
      (name === 'client token' && r === token) ||
      (name === 'join token' && r === joined) ||
      (name === 'invitation' && r === invite)
    const responses = clients.flatMap((c) => c.seen)
    expect(responses.length).toBe(18)
    const leaks: string[] = []
    for (const [name, value] of secrets) {
      for (const r of responses) {
        if (allowed(name, r)) continue
        const { 'set-cookie': _cookie, ...headers } = r.headers
        if (r.text.includes(value) || JSON.stringify(headers).includes(value)) leaks.push(`${name} in a response: ${r.text.slice(0, 120)}`)
      }
      for (const line of lines) if (line.includes(value)) leaks.push(`${name} in the log: ${line.slice(0, 160)}`)
      const audit = JSON.stringify(t.engine.host.storage.auditEvents.all({ limit: 1000 }))
      if (audit.includes(value)) leaks.push(`${name} in the audit log`)
    }
    expect(leaks).toEqual([])
    // The engine did log (trace level), and the audit log recorded the security events.
    expect(lines.length).toBeGreaterThan(5)
    const actions = t.engine.host.storage.auditEvents.all({ limit: 1000 }).map((e) => e.action)
    expect(new Set(actions)).toEqual(new Set([
      'user.created', 'signin.failed', 'signin.succeeded', 'workspace.created', 'apikey.created', 'device_password.revealed',
      'device_password.reset', 'secret.rotated', 'member.invited', 'member.joined', 'user.password_changed', 'apikey.revoked',
    ]))
  })
})
