import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
// Windows run on the engine's clock: no boundary falls inside a test unless it moves the clock.
const clock = new ManualClock(Date.parse('2026-11-20T12:00:00Z'))
beforeAll(async () => {
  t = await startRestEngine({ rest: { port: 0, rateLimitMax: 3, rateLimitWindowSeconds: 3600 } }, { clock })
})
afterAll(() => t.stop())

describe('rate limit', () => {
  it('limits each workspace across routes and keys, with RateLimit-* headers and a 429 envelope', async () => {
    const a = t.workspace('alpha')
    const b = t.workspace('beta')
    const secondKey = t.engine.host.security.apiKeys.create(a.workspaceId, 'second').apiKey

    const first = await a.api.get('/clients')
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-limit')).toBe('3')
    expect(first.headers.get('ratelimit-remaining')).toBe('2')
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
    expect((await a.api.post('/clients', { clientId: 'x' })).headers.get('ratelimit-remaining')).toBe('1')
    // Another key of the same workspace draws on the same budget.
    const third = await a.api.withKey(secondKey).get('/clients/x')
    expect(third.headers.get('ratelimit-remaining')).toBe('0')

    const limited = await a.api.get('/clients')
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe('rate_limited')
    expect(limited.body.error.message).toMatch(/rate limit exceeded, retry in \d+ s/)
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    expect(limited.headers.get('ratelimit-limit')).toBe('3')
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    // A limited request does nothing.
    expect((await a.api.post('/clients', { clientId: 'y' })).status).toBe(429)
    expect(t.engine.host.storage.clients.get(a.workspaceId, 'y')).toBeNull()

    // The other workspace is untouched.
    const other = await b.api.get('/clients')
    expect(other.status).toBe(200)
    expect(other.headers.get('ratelimit-remaining')).toBe('2')
  })

  it('limits calls without a valid key per IP, apart from any workspace', async () => {
    const ws = t.workspace('gamma')
    for (let i = 0; i < 3; i++) expect((await t.anonymous.get('/clients')).status).toBe(401)
    const limited = await t.anonymous.get('/clients')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).not.toBeNull()
    // Unknown keys count with the anonymous callers of this IP, not with a workspace.
    expect((await t.anonymous.withKey(`hk_${'B'.repeat(43)}`).get('/clients')).status).toBe(429)
    expect((await ws.api.get('/clients')).status).toBe(200)
  })

  it('starts a new window when the engine clock has moved past it, and counts Reset down on that clock', async () => {
    const w = t.workspace('delta')
    for (let i = 0; i < 3; i++) expect((await w.api.get('/clients')).status).toBe(200)
    clock.advance(3_599_000)
    const limited = await w.api.get('/clients')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('1')
    clock.advance(1_000)
    const fresh = await w.api.get('/clients')
    expect(fresh.status).toBe(200)
    expect(fresh.headers.get('ratelimit-remaining')).toBe('2')
    expect(fresh.headers.get('ratelimit-reset')).toBe('3600')
  })
})
