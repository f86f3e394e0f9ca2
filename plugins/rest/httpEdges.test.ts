/**
 * The REST API at the edges a prober found, over real HTTP against a real engine: JSON nesting
 * deeper than 32 levels, the rate limit on every request under /api/v1 (unknown routes, OPTIONS,
 * no key) with RateLimit-* headers on every response, the Bearer scheme in any case, integers in
 * the query string written as decimal digits only, UTF-8 only, HEAD, and the listener's 431.
 * Every response goes through the OpenAPI check of test/api.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { echoAgent } from '../../agents/echo/index.js'
import { rawExchange } from '../../core/test/rawHttp.js'
import { openApi } from './test/api.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

/** `{"a":{"a":…{}…}}` with `levels` objects (the outermost is level 1). */
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {}
  for (let i = 1; i < levels; i++) value = { a: value }
  return value
}
const nestedText = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1)

describe('REST edges', () => {
  let t: RestEngine
  let ws: ReturnType<RestEngine['workspace']>
  beforeAll(async () => {
    t = await startRestEngine({ extensions: [echoAgent] })
    ws = t.workspace()
    ws.addClient('dev-1', 'lobby')
  })
  afterAll(() => t.stop())

  it('refuses JSON nested deeper than 32 levels with 400 and the envelope, in overrides and preset configs', async () => {
    const raw = (text: string) => ({ raw: text, headers: { 'content-type': 'application/json' } })
    // ~24 KB, 4000 levels: the case that overflowed the secret-field scan.
    for (const [path, text] of [
      ['/agents', `{"room":"lobby","overrides":${nestedText(4000)}}`],
      ['/agent-presets', `{"presetId":"deep","provider":"echo","config":${nestedText(4000)}}`],
      ['/rooms/lobby', `{"defaultAgent":{"overrides":${nestedText(4000)}}}`],
      ['/clients', `{"clientId":"deep","name":${nestedText(33)}}`],
    ] as const) {
      const r = await ws.api.call(path === '/rooms/lobby' ? 'PUT' : 'POST', path, raw(text))
      expect(r.status, path).toBe(400)
      expect(r.body.error).toEqual({ code: 'validation_failed', message: 'body nests objects and arrays deeper than 32 levels' })
    }
    // 32 levels in all pass the depth check (and then meet the provider's schema).
    const atLimit = await ws.api.post('/agents', { room: 'lobby', overrides: nested(30) })
    expect(atLimit.status).toBe(400)
    expect(atLimit.body.error.message).toBe('overrides.a is not a setting of the echo provider')
    expect((await fetch(t.url('/healthz'))).status).toBe(200)
  })

  it('takes the Bearer scheme in any case (RFC 7235)', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const r = await ws.api.get('/clients/dev-1', { headers: { authorization: `${scheme} ${ws.apiKey}` } })
      expect(r.status, scheme).toBe(200)
    }
    expect((await ws.api.get('/clients', { headers: { authorization: `Basic ${ws.apiKey}` } })).status).toBe(401)
  })

  it('reads integer query parameters as plain decimal digits only: 1e2, 0x10, +5 … are a 400', async () => {
    for (const limit of ['1e2', '0x10', '+5', '05', ' 5', '5 ', '1.0']) {
      const r = await ws.api.get(`/clients?limit=${encodeURIComponent(limit)}`)
      expect(r.status, limit).toBe(400)
      expect(r.body.error, limit).toMatchObject({ code: 'validation_failed', message: 'query parameter limit must be integer' })
    }
    expect((await ws.api.get('/clients?limit=100')).status).toBe(200)
    expect((await ws.api.get('/rooms?limit=7')).status).toBe(200)
    expect((await ws.api.get('/clients?limit=0')).body.error.message).toMatch(/limit must be >= 1/)
  })

  it('takes JSON bodies in UTF-8 only: another charset is 415', async () => {
    for (const charset of ['latin1', 'ISO-8859-1', 'utf-16', '"windows-1252"']) {
      const r = await ws.api.call('POST', '/clients', { raw: '{"clientId":"cs"}', headers: { 'content-type': `application/json; charset=${charset}` } })
      expect(r.status, charset).toBe(415)
      expect(r.body.error.code).toBe('unsupported_media_type')
    }
    for (const [clientId, charset] of [['cs-1', 'utf-8'], ['cs-2', 'UTF-8'], ['cs-3', '"utf-8"']] as const) {
      const r = await ws.api.call('POST', '/clients', { raw: JSON.stringify({ clientId }), headers: { 'content-type': `application/json; charset=${charset}` } })
      expect(r.status, charset).toBe(201)
    }
  })

  it('answers HEAD on every GET, and the OpenAPI document lists it', async () => {
    const res = await fetch(`${t.base}/clients/dev-1`, { method: 'HEAD', headers: { authorization: `Bearer ${ws.apiKey}` } })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
    expect(res.headers.get('ratelimit-limit')).not.toBeNull()
    const paths = openApi.doc.paths as Record<string, Record<string, { operationId?: string }>>
    expect(paths['/api/v1/clients/{id}']!.head?.operationId).toBe(`${paths['/api/v1/clients/{id}']!.get!.operationId}Head`)
    const getPaths = Object.keys(paths).filter((p) => paths[p]!.get)
    expect(getPaths.filter((p) => !paths[p]!.head)).toEqual([])
  })

  it('a 100 KB URL under /api/v1 gets 431 with the envelope, as the OpenAPI document says', async () => {
    for (const path of ['/api/v1/clients', '/api/v1/openapi.json']) {
      const target = `${path}?room=${'r'.repeat(100_000)}`
      const r = await rawExchange(t.engine.ports.rest!, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${ws.apiKey}\r\n\r\n`)
      expect(r.status, path).toBe(431)
      expect(r.headers.get('connection'), path).toBe('close')
      const body = JSON.parse(r.body)
      openApi.check('GET', path, 431, r.headers.get('content-type') ?? null, body)
      expect(body.error.code).toBe('headers_too_large')
    }
  })
})

describe('the rate limit counts every request under /api/v1', () => {
  let t: RestEngine
  // A window far longer than the test, so no window boundary can fall inside it.
  beforeAll(async () => {
    t = await startRestEngine({ rest: { port: 0, rateLimitMax: 4, rateLimitWindowSeconds: 3600 } })
  })
  afterAll(() => t.stop())

  it('unknown paths, OPTIONS and other methods without a key count per IP, with RateLimit-* headers on every answer', async () => {
    const calls: Array<[string, string]> = [
      ['OPTIONS', '/clients'],
      ['GET', '/nothing-here'],
      ['PATCH', '/clients'],
      ['DELETE', '/openapi.json'],
    ]
    let remaining = 4
    for (const [method, path] of calls) {
      const r = await fetch(t.base + path, { method })
      expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400)
      expect(r.status, `${method} ${path}`).not.toBe(429)
      expect(r.headers.get('ratelimit-limit'), `${method} ${path}`).toBe('4')
      expect(r.headers.get('ratelimit-remaining'), `${method} ${path}`).toBe(String(--remaining))
      expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
    }
    for (const [method, path] of calls) {
      const r = await fetch(t.base + path, { method })
      expect(r.status, `${method} ${path}`).toBe(429)
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
      expect(r.headers.get('retry-after')).not.toBeNull()
      expect(r.headers.get('ratelimit-remaining')).toBe('0')
    }
  })

  it('a workspace’s requests to unknown routes count against its own budget', async () => {
    const ws = t.workspace('counted')
    const unknown = await ws.api.get('/nowhere')
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('ratelimit-remaining')).toBe('3')
    expect((await ws.api.call('OPTIONS', '/clients')).headers.get('ratelimit-remaining')).toBe('2')
    expect((await ws.api.get('/clients')).headers.get('ratelimit-remaining')).toBe('1')
  })
})
