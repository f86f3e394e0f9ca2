/**
 * Bad input, route by route: every row must get its 4xx and envelope code (never a 500), the
 * process must stay up, and nothing committed before must be lost or changed.
 */
import { fastify } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StorageFailure } from '../../core/errors.js'
import { createLogger } from '../../core/log.js'
import { errorHandler } from '../../core/httpApi/errorHandler.js'
import { Api, openApi, type CallOptions } from './test/api.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
let ws: ReturnType<RestEngine['workspace']>
let validJti: string
beforeAll(async () => {
  t = await startRestEngine()
  ws = t.workspace()
  expect((await ws.api.post('/clients', { clientId: 'dev-1', room: 'lobby', name: 'Kept', kind: 'device' })).status).toBe(201)
  validJti = (await ws.api.post('/clients/dev-1/token', {})).body.jti
})
afterAll(() => t.stop())

type Row = [label: string, method: string, path: string, options: CallOptions, status: number, code: string, message?: RegExp]

const json = (body: unknown): CallOptions => ({ body })
const raw = (text: string, contentType = 'application/json'): CallOptions => ({ raw: text, headers: { 'content-type': contentType } })
const none: CallOptions = {}

const clientIdRows: Row[] = [
  ['missing clientId', 'POST', '/clients', json({ name: 'x' }), 400, 'validation_failed', /clientId is required/],
  ['empty clientId', 'POST', '/clients', json({ clientId: '' }), 400, 'validation_failed', /clientId/],
  ['clientId with a space', 'POST', '/clients', json({ clientId: 'a b' }), 400, 'validation_failed', /clientId/],
  ['clientId with a slash', 'POST', '/clients', json({ clientId: '../etc/passwd' }), 400, 'validation_failed', /clientId/],
  ['clientId with a leading dash', 'POST', '/clients', json({ clientId: '-x' }), 400, 'validation_failed', /clientId/],
  ['clientId in the ephemeral namespace', 'POST', '/clients', json({ clientId: 'eph_AAAAAAAAAAAAAAAAAAAA' }), 400, 'validation_failed', /clientId/],
  ['clientId non-ASCII', 'POST', '/clients', json({ clientId: 'gerät' }), 400, 'validation_failed', /clientId/],
  ['clientId with a zero-width space', 'POST', '/clients', json({ clientId: 'a\u200bb' }), 400, 'validation_failed', /clientId/],
  ['clientId 129 characters', 'POST', '/clients', json({ clientId: 'a'.repeat(129) }), 400, 'validation_failed', /clientId/],
  ['clientId a number', 'POST', '/clients', json({ clientId: 42 }), 400, 'validation_failed', /clientId must be string/],
  ['clientId null', 'POST', '/clients', json({ clientId: null }), 400, 'validation_failed', /clientId/],
  ['clientId an array', 'POST', '/clients', json({ clientId: ['x'] }), 400, 'validation_failed', /clientId/],
  ['name empty', 'POST', '/clients', json({ clientId: 'n1', name: '' }), 400, 'validation_failed', /name/],
  ['name with a NUL', 'POST', '/clients', json({ clientId: 'n1', name: 'a\u0000b' }), 400, 'validation_failed', /name/],
  ['name with a lone surrogate', 'POST', '/clients', raw('{"clientId":"n1","name":"a\\ud800b"}'), 400, 'validation_failed', /name/],
  ['name 201 characters', 'POST', '/clients', json({ clientId: 'n1', name: 'x'.repeat(201) }), 400, 'validation_failed', /name/],
  ['kind upper case', 'POST', '/clients', json({ clientId: 'n1', kind: 'Device' }), 400, 'validation_failed', /kind/],
  ['kind 33 characters', 'POST', '/clients', json({ clientId: 'n1', kind: 'k'.repeat(33) }), 400, 'validation_failed', /kind/],
  ['room with a slash', 'POST', '/clients', json({ clientId: 'n1', room: 'a/b' }), 400, 'validation_failed', /room/],
  ['room with a bidi override', 'POST', '/clients', json({ clientId: 'n1', room: 'lobby\u202e' }), 400, 'validation_failed', /room/],
  ['room empty', 'POST', '/clients', json({ clientId: 'n1', room: '' }), 400, 'validation_failed', /room/],
  ['unknown field', 'POST', '/clients', json({ clientId: 'n1', status: 'online' }), 400, 'validation_failed', /unknown field status/],
  ['body an array', 'POST', '/clients', json([{ clientId: 'n1' }]), 400, 'validation_failed', /JSON object/],
  ['body a string', 'POST', '/clients', json('n1'), 400, 'validation_failed', /JSON object/],
  ['body null', 'POST', '/clients', raw('null'), 400, 'validation_failed', /clientId is required/],
  ['duplicate', 'POST', '/clients', json({ clientId: 'dev-1' }), 409, 'client_exists'],
]

const patchRows: Row[] = [
  ['empty patch', 'PATCH', '/clients/dev-1', json({}), 400, 'validation_failed', /at least one field/],
  ['room a number', 'PATCH', '/clients/dev-1', json({ room: 5 }), 400, 'validation_failed', /room must be string or null/],
  ['rename attempt', 'PATCH', '/clients/dev-1', json({ clientId: 'other' }), 400, 'validation_failed', /unknown field clientId/],
  ['ephemeral flag', 'PATCH', '/clients/dev-1', json({ ephemeral: true }), 400, 'validation_failed', /ephemeral/],
  ['name with a control character', 'PATCH', '/clients/dev-1', json({ name: 'a\u0007' }), 400, 'validation_failed', /name/],
  ['unknown client', 'PATCH', '/clients/nobody', json({ room: 'x' }), 404, 'client_not_found'],
]

const listRows: Row[] = [
  ['limit 0', 'GET', '/clients?limit=0', none, 400, 'validation_failed', /limit/],
  ['limit 201', 'GET', '/clients?limit=201', none, 400, 'validation_failed', /limit/],
  ['limit not a number', 'GET', '/clients?limit=ten', none, 400, 'validation_failed', /limit must be integer/],
  ['limit fractional', 'GET', '/clients?limit=1.5', none, 400, 'validation_failed', /limit/],
  ['status unknown', 'GET', '/clients?status=busy', none, 400, 'validation_failed', /status must be one of online, offline/],
  ['room empty', 'GET', '/clients?room=', none, 400, 'validation_failed', /room/],
  ['room twice', 'GET', '/clients?room=a&room=b', none, 400, 'validation_failed', /room/],
  ['room traversal', 'GET', '/clients?room=..%2F..%2Fetc', none, 400, 'validation_failed', /room/],
  ['cursor not base64url', 'GET', '/clients?cursor=!!', none, 400, 'validation_failed', /cursor/],
  ['cursor not ours', 'GET', `/clients?cursor=${Buffer.from('../x').toString('base64url')}`, none, 400, 'validation_failed', /cursor/],
  ['unknown parameter', 'GET', '/clients?sort=desc', none, 400, 'validation_failed', /unknown query parameter sort/],
]

const pathIdRows: Row[] = [
  ['encoded traversal', 'GET', '/clients/..%2F..%2Fetc%2Fpasswd', none, 400, 'validation_failed', /path parameter id/],
  ['NUL in id', 'GET', '/clients/a%00b', none, 400, 'validation_failed', /path parameter id/],
  ['emoji id', 'DELETE', '/clients/%F0%9F%98%80', none, 400, 'validation_failed', /path parameter id/],
  ['bidi override in id', 'PATCH', '/clients/dev%E2%80%AE1', json({ room: 'x' }), 400, 'validation_failed', /path parameter id/],
  ['encoded surrogate (not UTF-8)', 'GET', '/clients/%ED%A0%80', none, 400, 'validation_failed', /URL/],
  ['broken percent-encoding', 'GET', '/clients/%E0%A4%A', none, 400, 'validation_failed', /URL/],
  ['lone percent', 'POST', '/clients/%/token', json({}), 400, 'validation_failed', /URL/],
  ['id 129 characters', 'GET', `/clients/${'a'.repeat(129)}`, none, 400, 'validation_failed', /path parameter id/],
  ['id 5000 characters', 'GET', `/clients/${'a'.repeat(5000)}`, none, 400, 'validation_failed'],
  ['unknown id', 'GET', '/clients/nobody', none, 404, 'client_not_found'],
  ['unknown endpoint', 'GET', '/nothing-here', none, 404, 'not_found'],
  ['wrong method', 'PUT', '/clients/dev-1', json({ room: 'x' }), 404, 'not_found'],
]

const tokenRows: Row[] = [
  ['ttl zero', 'POST', '/clients/dev-1/token', json({ ttlSeconds: 0 }), 400, 'validation_failed', /ttlSeconds/],
  ['ttl negative', 'POST', '/clients/dev-1/token', json({ ttlSeconds: -60 }), 400, 'validation_failed', /ttlSeconds/],
  ['ttl fractional', 'POST', '/clients/dev-1/token', json({ ttlSeconds: 1.5 }), 400, 'validation_failed', /ttlSeconds must be integer/],
  ['ttl a string', 'POST', '/clients/dev-1/token', json({ ttlSeconds: '60' }), 400, 'validation_failed', /ttlSeconds must be integer/],
  ['ttl null', 'POST', '/clients/dev-1/token', json({ ttlSeconds: null }), 400, 'validation_failed', /ttlSeconds/],
  ['ttl true', 'POST', '/clients/dev-1/token', json({ ttlSeconds: true }), 400, 'validation_failed', /ttlSeconds/],
  ['ttl huge', 'POST', '/clients/dev-1/token', json({ ttlSeconds: 1e300 }), 400, 'validation_failed', /ttlSeconds/],
  ['ttl in exponent form beyond max', 'POST', '/clients/dev-1/token', raw('{"ttlSeconds":1e9}'), 400, 'validation_failed', /ttlSeconds/],
  ['unknown field', 'POST', '/clients/dev-1/token', json({ ttl: 60 }), 400, 'validation_failed', /unknown field ttl/],
  ['unknown client', 'POST', '/clients/nobody/token', json({}), 404, 'client_not_found'],
  ['ephemeral without room', 'POST', '/clients/ephemeral', json({ kind: 'web' }), 400, 'validation_failed', /room is required/],
  ['ephemeral empty body', 'POST', '/clients/ephemeral', none, 400, 'validation_failed', /room is required/],
  ['ephemeral bad room', 'POST', '/clients/ephemeral', json({ room: 'a b' }), 400, 'validation_failed', /room/],
  ['ephemeral ttl zero', 'POST', '/clients/ephemeral', json({ room: 'r', ttlSeconds: 0 }), 400, 'validation_failed', /ttlSeconds/],
  ['ephemeral chosen clientId', 'POST', '/clients/ephemeral', json({ room: 'r', clientId: 'mine' }), 400, 'validation_failed', /unknown field clientId/],
  ['revoke without jti', 'POST', '/tokens/revoke', json({}), 400, 'validation_failed', /jti is required/],
  ['revoke jti malformed', 'POST', '/tokens/revoke', json({ jti: 'not-a-ulid' }), 400, 'validation_failed', /jti/],
  ['revoke jti a number', 'POST', '/tokens/revoke', json({ jti: 7 }), 400, 'validation_failed', /jti/],
  ['revoke unknown jti', 'POST', '/tokens/revoke', json({ jti: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 404, 'not_found'],
  ['revoke-all with a field', 'POST', '/clients/dev-1/token/revoke-all', json({ all: true }), 400, 'validation_failed', /unknown field all/],
  ['revoke-all unknown client', 'POST', '/clients/nobody/token/revoke-all', none, 404, 'client_not_found'],
]

const bodyRows: Row[] = [
  ['truncated JSON', 'POST', '/clients', raw('{"clientId":'), 400, 'malformed_json'],
  ['trailing comma', 'POST', '/clients', raw('{"clientId":"x",}'), 400, 'malformed_json'],
  ['trailing garbage', 'POST', '/clients', raw('{"clientId":"x"} trailing'), 400, 'malformed_json'],
  ['single quotes', 'POST', '/clients', raw("{'clientId':'x'}"), 400, 'malformed_json'],
  ['NaN', 'POST', '/clients/dev-1/token', raw('{"ttlSeconds":NaN}'), 400, 'malformed_json'],
  ['empty JSON body: no body, a required field missing', 'POST', '/clients', raw(''), 400, 'validation_failed', /^field clientId is required$/],
  ['whitespace JSON body', 'POST', '/clients', raw(' '), 400, 'malformed_json'],
  ['__proto__ key', 'POST', '/clients', raw('{"clientId":"x","__proto__":{"admin":true}}'), 400, 'malformed_json'],
  ['constructor.prototype', 'POST', '/clients', raw('{"clientId":"x","constructor":{"prototype":{"admin":true}}}'), 400, 'malformed_json'],
  ['deeply nested arrays', 'POST', '/clients', raw('['.repeat(30_000) + ']'.repeat(30_000)), 400, 'validation_failed', /deeper than 32 levels/],
  ['invalid UTF-8 bytes', 'POST', '/clients', { raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), headers: { 'content-type': 'application/json' } }, 400, 'validation_failed'],
  ['text/plain', 'POST', '/clients', raw('clientId=x', 'text/plain'), 415, 'unsupported_media_type'],
  ['form encoded', 'POST', '/clients', raw('clientId=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type'],
  ['XML', 'POST', '/clients/dev-1/token', raw('<ttl>5</ttl>', 'application/xml'), 415, 'unsupported_media_type'],
  ['no content type', 'POST', '/clients', { raw: '{"clientId":"x"}' }, 415, 'unsupported_media_type'],
  ['oversize body', 'POST', '/clients', json({ clientId: 'big', name: 'x'.repeat(70_000) }), 413, 'payload_too_large'],
  ['oversize bad JSON', 'POST', '/tokens/revoke', raw('{'.repeat(70_000)), 413, 'payload_too_large'],
]

const authRows: Row[] = [
  ['no Authorization', 'GET', '/clients', { anonymous: true }, 401, 'invalid_api_key', /missing Authorization/],
  ['Basic scheme', 'GET', '/clients', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }, 401, 'invalid_api_key'],
  ['Bearer without key', 'GET', '/clients/dev-1', { headers: { authorization: 'Bearer ' } }, 401, 'invalid_api_key'],
  ['malformed key', 'POST', '/clients', { body: { clientId: 'x' }, headers: { authorization: 'Bearer hk_short' } }, 401, 'invalid_api_key'],
  ['unknown key', 'DELETE', '/clients/dev-1', { headers: { authorization: `Bearer hk_${'A'.repeat(43)}` } }, 401, 'invalid_api_key'],
  ['client token instead of key', 'GET', '/clients', { headers: { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' } }, 401, 'invalid_api_key'],
  ['unauthenticated oversize body', 'POST', '/clients', { body: { clientId: 'x', name: 'y'.repeat(70_000) }, anonymous: true }, 401, 'invalid_api_key'],
  ['unauthenticated bad JSON', 'POST', '/clients', { raw: '{', headers: { 'content-type': 'application/json' }, anonymous: true }, 401, 'invalid_api_key'],
]

const tables: Array<[string, Row[]]> = [
  ['POST /clients', clientIdRows],
  ['PATCH /clients/{id}', patchRows],
  ['GET /clients', listRows],
  ['ids in paths', pathIdRows],
  ['tokens, ephemeral, revocation', tokenRows],
  ['bodies', bodyRows],
  ['authentication', authRows],
]

describe.each(tables)('bad input: %s', (_name, rows) => {
  it.each(rows)('%s → %i', async (_label, method, path, options, status, code, message) => {
    const r = await ws.api.call(method, path, options)
    expect(r.status, JSON.stringify(r.body)).toBe(status)
    expect(r.body.error.code).toBe(code)
    if (message) expect(r.body.error.message).toMatch(message)
  })
})

describe('after the bad input', () => {
  it('path traversal in the raw URL never reaches another route or a file', async () => {
    for (const path of [
      '/api/v1/clients/../../healthz',
      '/api/v1/clients/dev-1/../../../metrics',
      '/api/v1/../v1/clients/dev-1',
      '/api/v1/clients/./dev-1',
      '/api/v1/clients/%2e%2e',
      '/api/v1/clients/%2e%2e/token',
      '//api/v1/clients',
      '/api/v1/clients/dev-1%2f..%2f..%2fhealthz',
    ]) {
      const r = await ws.api.rawPath('GET', path)
      expect(r.status, path).toBeGreaterThanOrEqual(400)
      expect(r.status, path).toBeLessThan(500)
      expect(r.body.error.code).toMatch(/^(not_found|validation_failed)$/)
    }
  })

  it('the process is up and nothing committed was lost or changed', async () => {
    expect((await fetch(t.url('/healthz'))).status).toBe(200)
    const list = await ws.api.get('/clients')
    expect(list.body.clients.map((c: { clientId: string }) => c.clientId)).toEqual(['dev-1'])
    expect(list.body.clients[0]).toMatchObject({ room: 'lobby', name: 'Kept', kind: 'device' })
    const revoke = await ws.api.post('/tokens/revoke', { jti: validJti })
    expect(revoke.status).toBe(200)
    expect(openApi.checked).toBeGreaterThan(100)
  })
})

describe('internal failures', () => {
  it('answer 500 with the envelope and reveal nothing', async () => {
    const app = fastify()
    app.setErrorHandler(errorHandler(createLogger('silent')))
    app.get('/boom', async () => {
      throw new Error('connection string postgres://admin:hunter2@db')
    })
    app.get('/storage', async () => {
      throw new StorageFailure({ message: 'storage: insert client failed', cause: new Error('SQLITE_FULL') })
    })
    await app.listen({ host: '127.0.0.1', port: 0 })
    try {
      const api = new Api(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`, null)
      for (const path of ['/boom', '/storage']) {
        const res = await fetch(api.baseUrl + path)
        expect(res.status).toBe(500)
        expect(await res.json()).toEqual({ error: { message: 'internal error', code: 'internal' } })
      }
    } finally {
      await app.close()
    }
  })
})
