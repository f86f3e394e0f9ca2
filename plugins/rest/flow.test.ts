/**
 * The typical flow of the contract, end to end: an operator makes a workspace and an API key with
 * the real CLI on the running engine's data dir; the back end then creates a client, issues a
 * token, gets an ephemeral token, updates, lists with filters and deletes — all over HTTP.
 */
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Change } from '../../core/storage/changes.js'
import { cliJson, Inbox } from '../../core/test/helpers.js'
import { Api } from './test/api.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
beforeAll(async () => {
  t = await startRestEngine()
})
afterAll(() => t.stop())

describe('typical flow', () => {
  it('key via the CLI → client → token → ephemeral → PATCH → list with filters → DELETE', async () => {
    const data = ['--data', t.dir]
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data])
    const { apiKey } = await cliJson<{ apiKey: string }>(['apikey', 'create', '--workspace', workspaceId, ...data])
    const api = new Api(t.base, apiKey)

    const created = await api.post('/clients', { clientId: 'esp32-kitchen', name: 'Kitchen', kind: 'device', room: 'home' })
    expect(created.status).toBe(201)

    const issued = await api.post('/clients/esp32-kitchen/token', { ttlSeconds: 3600 })
    expect(issued.status).toBe(201)
    const claims = decodeJwt(issued.body.token)
    expect(claims.iss).toBe(workspaceId)
    expect(claims.sub).toBe('esp32-kitchen')
    expect(claims.aud).toBe('service-client')
    expect(claims.jti).toBe(issued.body.jti)
    expect(claims.exp).toBe(Date.parse(issued.body.expiresAt) / 1000)
    const longLived = await api.post('/clients/esp32-kitchen/token', {})
    expect(decodeJwt(longLived.body.token).exp).toBeUndefined()
    expect(longLived.body.expiresAt).toBeNull()
    const identity = await t.engine.host.security.authenticateTerminal({ token: issued.body.token })
    expect(identity).toMatchObject({ workspaceId, clientId: 'esp32-kitchen' })

    const eph = await api.post('/clients/ephemeral', { room: 'home', kind: 'web' })
    expect(eph.status).toBe(201)
    expect(decodeJwt(eph.body.token)).toMatchObject({ iss: workspaceId, sub: eph.body.clientId, aud: 'service-client' })

    const patched = await api.patch('/clients/esp32-kitchen', { room: 'office', name: 'Kitchen (moved)' })
    expect(patched.body).toMatchObject({ room: 'office', name: 'Kitchen (moved)' })

    const devices = await api.get('/clients?kind=device&status=offline')
    expect(devices.body.clients.map((c: { clientId: string }) => c.clientId)).toEqual(['esp32-kitchen'])
    const home = await api.get('/clients?room=home')
    expect(home.body.clients.map((c: { clientId: string }) => c.clientId)).toEqual([eph.body.clientId])

    expect((await api.delete('/clients/esp32-kitchen')).body).toEqual({ clientId: 'esp32-kitchen', deleted: true })
    expect((await api.get('/clients')).body.clients.map((c: { clientId: string }) => c.clientId)).toEqual([eph.body.clientId])
    await expect(t.engine.host.security.authenticateTerminal({ token: issued.body.token })).rejects.toMatchObject({
      _tag: 'ClientNotFound',
    })

    const metrics = await (await fetch(t.url('/metrics'))).text()
    expect(metrics).toContain('hark_rest_requests_total{route="/api/v1/clients",method="POST",status="201"} 1')

    // The operator revokes the key with the CLI: once the engine hears of it, the key is refused.
    const changes = new Inbox<Change>()
    const off = t.engine.host.storage.feed.onAny((c) => changes.push(c))
    const keys = await cliJson<Array<{ keyId: string }>>(['apikey', 'list', '--workspace', workspaceId, ...data])
    await cliJson(['apikey', 'revoke', keys[0]!.keyId, '--workspace', workspaceId, ...data])
    await changes.next((c) => c.kind === 'apikey.revoked', 5000, 'the CLI revocation')
    off()
    expect((await api.get('/clients')).status).toBe(401)
  })
})
