import { decodeJwt, decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { SWEEP_INTERVAL_MS } from './ephemeralSweep.js'
import { RecordingLink } from '../../core/test/helpers.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

// Half a second past a whole second, so whole-second rounding of exp is visible.
const START = Date.parse('2030-01-01T00:00:00.500Z')
const clock = new ManualClock(START)
let t: RestEngine
beforeAll(async () => {
  t = await startRestEngine({}, { clock })
})
afterAll(() => t.stop())

const authenticate = (token: string) => t.engine.host.security.authenticateTerminal({ token })

describe('client tokens', () => {
  it('issues a long-lived token without exp when ttlSeconds is omitted (body optional)', async () => {
    const ws = t.workspace()
    await ws.api.post('/clients', { clientId: 'dev-1', room: 'lobby' })
    for (const issued of [await ws.api.post('/clients/dev-1/token', {}), await ws.api.call('POST', '/clients/dev-1/token')]) {
      expect(issued.status).toBe(201)
      expect(issued.body).toMatchObject({ clientId: 'dev-1', expiresAt: null })
      const claims = decodeJwt(issued.body.token)
      expect(claims).toEqual({
        iss: ws.workspaceId, sub: 'dev-1', aud: 'service-client', jti: issued.body.jti, iat: Math.floor(START / 1000),
      })
      expect(decodeProtectedHeader(issued.body.token).alg).toBe('HS256')
      expect((await authenticate(issued.body.token)).clientId).toBe('dev-1')
    }
  })

  it('issues a token with exp = iat + ttlSeconds and reports expiresAt as ISO-8601 UTC', async () => {
    const ws = t.workspace()
    await ws.api.post('/clients', { clientId: 'dev-2' })
    const issued = await ws.api.post('/clients/dev-2/token', { ttlSeconds: 60 })
    expect(issued.status).toBe(201)
    const claims = decodeJwt(issued.body.token)
    expect(claims.exp).toBe(Math.floor(START / 1000) + 60)
    expect(issued.body.expiresAt).toBe('2030-01-01T00:01:00.000Z')
    expect(issued.body.expiresAt).toBe(new Date(claims.exp! * 1000).toISOString())
    clock.advance(59_000)
    expect((await authenticate(issued.body.token)).clientId).toBe('dev-2')
    clock.advance(1_000)
    await expect(authenticate(issued.body.token)).rejects.toMatchObject({ _tag: 'TokenExpired' })
  })

  it('accepts ttlSeconds from 1 to security.maxTokenTtlSeconds', async () => {
    const ws = t.workspace()
    await ws.api.post('/clients', { clientId: 'dev-3' })
    const max = t.engine.settings.security.maxTokenTtlSeconds
    expect((await ws.api.post('/clients/dev-3/token', { ttlSeconds: 1 })).status).toBe(201)
    expect((await ws.api.post('/clients/dev-3/token', { ttlSeconds: max })).status).toBe(201)
    const over = await ws.api.post('/clients/dev-3/token', { ttlSeconds: max + 1 })
    expect(over.status).toBe(400)
    expect(over.body.error.message).toMatch(/ttlSeconds/)
    expect((await ws.api.post('/clients/nobody/token', {})).status).toBe(404)
  })
})

describe('ephemeral clients', () => {
  it('creates an eph_ client bound to the room with a 3600 s token by default', async () => {
    const ws = t.workspace()
    const now = clock.now()
    const r = await ws.api.post('/clients/ephemeral', { room: 'lobby' })
    expect(r.status).toBe(201)
    expect(r.body.clientId).toMatch(/^eph_[0-9A-Za-z]{20}$/)
    expect(r.body.room).toBe('lobby')
    const expiresAt = (Math.floor(now / 1000) + 3600) * 1000
    expect(r.body.expiresAt).toBe(new Date(expiresAt).toISOString())
    const claims = decodeJwt(r.body.token)
    expect(claims).toMatchObject({ iss: ws.workspaceId, sub: r.body.clientId, aud: 'service-client', jti: r.body.jti })
    expect(claims.exp! * 1000).toBe(expiresAt)

    const detail = await ws.api.get(`/clients/${r.body.clientId}`)
    expect(detail.body).toMatchObject({ ephemeral: true, room: 'lobby', kind: null, expiresAt: r.body.expiresAt })
    const identity = await authenticate(r.body.token)
    expect(identity.client.room).toBe('lobby')
  })

  it('takes kind and ttlSeconds, and a token issued later for it never outlives the client', async () => {
    const ws = t.workspace()
    const r = await ws.api.post('/clients/ephemeral', { room: 'r', kind: 'web', ttlSeconds: 120 })
    expect(r.status).toBe(201)
    expect((await ws.api.get(`/clients/${r.body.clientId}`)).body.kind).toBe('web')
    const longLived = await ws.api.post(`/clients/${r.body.clientId}/token`, {})
    expect(longLived.body.expiresAt).toBe(r.body.expiresAt)
    const longer = await ws.api.post(`/clients/${r.body.clientId}/token`, { ttlSeconds: 10_000 })
    expect(longer.body.expiresAt).toBe(r.body.expiresAt)
    const shorter = await ws.api.post(`/clients/${r.body.clientId}/token`, { ttlSeconds: 30 })
    expect(Date.parse(shorter.body.expiresAt)).toBeLessThan(Date.parse(r.body.expiresAt))
  })

  it('is gone once expired: hidden at once, then swept, and its live session is closed', async () => {
    const ws = t.workspace()
    await ws.api.post('/clients', { clientId: 'peer', room: 'lobby' })
    const r = await ws.api.post('/clients/ephemeral', { room: 'lobby', ttlSeconds: 30 })
    const id = r.body.clientId as string
    const session = await t.connect(ws.workspaceId, id)
    expect((await ws.api.get(`/clients/${id}`)).body.online).toBe(true)
    expect(t.rest().sweepExpiredClients()).toBe(0)

    clock.set(Date.parse(r.body.expiresAt))
    // Expired: no longer visible, even before the sweep removes the row.
    expect((await ws.api.get(`/clients/${id}`)).status).toBe(404)
    expect((await ws.api.get('/clients')).body.clients.map((c: { clientId: string }) => c.clientId)).toEqual(['peer'])
    expect((await ws.api.patch(`/clients/${id}`, { room: 'x' })).status).toBe(404)
    await expect(authenticate(r.body.token)).rejects.toMatchObject({ _tag: 'TokenExpired' })

    expect(t.rest().sweepExpiredClients()).toBeGreaterThanOrEqual(1)
    expect((await session.link.closed)._tag).toBe('ClientDeleted')
    expect(t.engine.host.storage.clients.get(ws.workspaceId, id)).toBeNull()
    expect((await ws.api.get('/clients/peer')).status).toBe(200)
  })

  it('is swept by the plugin every 5 s of the engine clock', async () => {
    const ws = t.workspace()
    const r = await ws.api.post('/clients/ephemeral', { room: 'lobby', ttlSeconds: 30 })
    const id = r.body.clientId as string
    clock.set(Date.parse(r.body.expiresAt))
    expect(t.engine.host.storage.clients.get(ws.workspaceId, id)).not.toBeNull()
    // The sweep is due within one interval (its timer was armed at start, at most 5 s ago).
    clock.advance(SWEEP_INTERVAL_MS)
    expect(t.engine.host.storage.clients.get(ws.workspaceId, id)).toBeNull()
  })
})

describe('revocation', () => {
  it('revokes one token by jti: it stops working and its live session closes; others keep working', async () => {
    const ws = t.workspace()
    await ws.api.post('/clients', { clientId: 'dev', room: 'lobby' })
    const doomed = (await ws.api.post('/clients/dev/token', {})).body
    const kept = (await ws.api.post('/clients/dev/token', {})).body
    const identity = await authenticate(doomed.token)
    const link = new RecordingLink()
    t.engine.host.terminals.open(identity, link)
    await link.event('session')

    const revoked = await ws.api.post('/tokens/revoke', { jti: doomed.jti })
    expect(revoked).toMatchObject({ status: 200, body: { jti: doomed.jti, clientId: 'dev', revoked: true } })
    expect((await link.closed)._tag).toBe('TokenRevoked')
    await expect(authenticate(doomed.token)).rejects.toMatchObject({ _tag: 'TokenRevoked' })
    expect((await authenticate(kept.token)).clientId).toBe('dev')
    // Again: still revoked, still 200.
    expect((await ws.api.post('/tokens/revoke', { jti: doomed.jti })).status).toBe(200)
  })

  it('answers 404 for a jti that is not this workspace’s, and does not revoke another workspace’s token', async () => {
    const a = t.workspace('alpha')
    const b = t.workspace('beta')
    await a.api.post('/clients', { clientId: 'dev' })
    const token = (await a.api.post('/clients/dev/token', {})).body
    const r = await b.api.post('/tokens/revoke', { jti: token.jti })
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_found')
    expect((await authenticate(token.token)).clientId).toBe('dev')
    expect((await b.api.post('/tokens/revoke', { jti: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })).status).toBe(404)
  })

  it('revoke-all kills every token minted up to now (same millisecond included) and the live session; later tokens work', async () => {
    const ws = t.workspace()
    await ws.api.post('/clients', { clientId: 'dev', room: 'lobby' })
    const older = (await ws.api.post('/clients/dev/token', { ttlSeconds: 600 })).body
    clock.advance(5)
    const sameMs = (await ws.api.post('/clients/dev/token', {})).body
    const live = await t.connect(ws.workspaceId, 'dev')
    const r = await ws.api.post('/clients/dev/token/revoke-all')
    expect(r).toMatchObject({ status: 200, body: { clientId: 'dev', tokensNotBefore: new Date(clock.now()).toISOString() } })
    expect((await live.link.closed)._tag).toBe('TokenRevoked')
    for (const old of [older, sameMs]) await expect(authenticate(old.token)).rejects.toMatchObject({ _tag: 'TokenRevoked' })
    // Minted after the revocation — in the very same millisecond — it works.
    const fresh = (await ws.api.post('/clients/dev/token', {})).body
    expect((await authenticate(fresh.token)).clientId).toBe('dev')
    clock.advance(1)
    expect((await authenticate(fresh.token)).clientId).toBe('dev')
  })
})
