/**
 * An empty request body is no body (issue 33, item 2): many HTTP clients send
 * `Content-Type: application/json` on every request, so a DELETE or an optional-body POST with that
 * header and zero bytes (Content-Length: 0, or chunked with no data) must be answered as if it had
 * no body at all. Over real HTTP (node:http, fetch, raw bytes) against a real engine; every answer
 * goes through the OpenAPI check of test/api.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { echoAgent } from '../../agents/echo/index.js'
import { httpRequest, rawExchange } from '../../core/test/rawHttp.js'
import { webhooksPlugin } from '../webhooks/index.js'
import { openApi } from './test/api.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
let ws: ReturnType<RestEngine['workspace']>
beforeAll(async () => {
  t = await startRestEngine({ extensions: [echoAgent, webhooksPlugin] })
  ws = t.workspace()
})
afterAll(() => t.stop())

/** The ways a request can carry no body; the first is the reference the others must equal. */
const EMPTY: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ['no body, no Content-Type', {}],
  ['application/json, Content-Length: 0', { 'content-type': 'application/json', 'content-length': '0' }],
  ['application/json; charset=utf-8, Content-Length: 0', { 'content-type': 'application/json; charset=utf-8', 'content-length': '0' }],
  ['application/json, chunked, no data', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }],
  ['no Content-Type, chunked, no data', { 'transfer-encoding': 'chunked' }],
  ['text/plain, Content-Length: 0', { 'content-type': 'text/plain', 'content-length': '0' }],
  ['form encoded, chunked, no data', { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' }],
]

/** One request through node:http with exactly these headers and no data; the answer checked against the document. */
const send = async (method: string, path: string, headers: Record<string, string>) => {
  const r = await httpRequest(t.engine.ports.rest!, `/api/v1${path}`, { method, headers: { authorization: `Bearer ${ws.apiKey}`, ...headers } })
  const body = JSON.parse(r.body) as { error?: { code: string; message: string } }
  openApi.check(method, `/api/v1${path}`, r.status, String(r.headers['content-type'] ?? ''), body)
  return { status: r.status, body }
}

/** A path of the document with its parameters set to well-formed ids of nothing (no call changes anything). */
const fill = (template: string): string =>
  template
    .replace('/api/v1', '')
    .replace(/^\/webhooks\/\{id\}/, `/webhooks/wh_${'A'.repeat(16)}`)
    .replace('{deliveryId}', `dlv_${'0'.repeat(26)}`)
    .replace('{id}', 'nobody')
    .replace('{agentId}', `ag_${'A'.repeat(16)}`)
    .replace('{presetId}', 'nopreset')
    .replace('{room}', 'lobby')

interface Operation {
  readonly requestBody?: { readonly required?: boolean }
}

describe('an empty body is no body', () => {
  it('on every operation of the document that takes a body or none, whatever the Content-Type says', async () => {
    const paths = openApi.doc.paths as unknown as Record<string, Record<string, Operation>>
    let swept = 0
    for (const [template, operations] of Object.entries(paths)) {
      for (const [lower, op] of Object.entries(operations)) {
        if (lower === 'get' || lower === 'head') continue
        const method = lower.toUpperCase()
        const path = fill(template)
        const [reference, ...others] = await Promise.all(EMPTY.map(([, headers]) => send(method, path, headers)))
        const label = `${method} ${template}`
        expect(reference!.body.error?.code, label).not.toBe('malformed_json')
        for (const [i, other] of others.entries()) {
          expect([label, EMPTY[i + 1]![0], other.status, other.body.error?.code]).toEqual([label, EMPTY[i + 1]![0], reference!.status, reference!.body.error?.code])
        }
        // A body the operation requires is reported missing by name, never as malformed JSON.
        if (op.requestBody?.required === true) {
          expect([label, reference!.status, reference!.body.error?.code]).toEqual([label, 400, 'validation_failed'])
          expect(reference!.body.error?.message, label).toMatch(/ is required$/)
        }
        swept++
      }
    }
    expect(swept).toBeGreaterThanOrEqual(19)
  })

  it('DELETE /clients/{id} with Content-Type: application/json deletes the client: Content-Length 0, chunked, and fetch', async () => {
    for (const clientId of ['del-1', 'del-2', 'del-3']) ws.addClient(clientId, 'lobby')
    const cl0 = await send('DELETE', '/clients/del-1', { 'content-type': 'application/json', 'content-length': '0' })
    expect([cl0.status, cl0.body]).toEqual([200, { clientId: 'del-1', deleted: true }])
    const chunked = await send('DELETE', '/clients/del-2', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })
    expect([chunked.status, chunked.body]).toEqual([200, { clientId: 'del-2', deleted: true }])
    // What a back end with a global JSON header sends through fetch (undici: no Content-Length on a bodiless DELETE).
    const fetched = await ws.api.call('DELETE', '/clients/del-3', { headers: { 'content-type': 'application/json' } })
    expect([fetched.status, fetched.body]).toEqual([200, { clientId: 'del-3', deleted: true }])
    for (const clientId of ['del-1', 'del-2', 'del-3']) expect((await ws.api.get(`/clients/${clientId}`)).status).toBe(404)
  })

  it('POST /clients/{id}/token with Content-Type: application/json and no body issues a long-lived token', async () => {
    ws.addClient('tok-1', 'lobby')
    for (const headers of [
      { 'content-type': 'application/json', 'content-length': '0' } as Record<string, string>,
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    ]) {
      const r = await send('POST', '/clients/tok-1/token', headers)
      expect(r.status).toBe(201)
      expect(r.body).toMatchObject({ clientId: 'tok-1', expiresAt: null })
    }
    const fetched = await ws.api.call('POST', '/clients/tok-1/token', { headers: { 'content-type': 'application/json' } })
    expect(fetched.status).toBe(201)
  })

  it('the same bytes on the wire: a raw chunked request with no data, then a keep-alive request on the same connection', async () => {
    ws.addClient('raw-1', 'lobby')
    const head = (method: string, path: string, extra: string) =>
      `${method} /api/v1${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${ws.apiKey}\r\nContent-Type: application/json\r\n${extra}`
    const r = await rawExchange(
      t.engine.ports.rest!,
      head('POST', '/clients/raw-1/token/revoke-all', 'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n') + head('DELETE', '/clients/raw-1', 'Content-Length: 0\r\nConnection: close\r\n\r\n'),
    )
    const statuses = [...r.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))
    expect(statuses, r.text).toEqual([200, 200])
    expect(r.text).toContain('"deleted":true')
  })

  it('a body of whitespace is not empty: malformed JSON, as before', async () => {
    ws.addClient('ws-1', 'lobby')
    const r = await ws.api.call('DELETE', '/clients/ws-1', { raw: ' \r\n', headers: { 'content-type': 'application/json' } })
    expect([r.status, r.body.error.code]).toEqual([400, 'malformed_json'])
    expect((await ws.api.get('/clients/ws-1')).status).toBe(200)
  })

  it('an empty body on a route that requires one is a validation failure naming the missing field', async () => {
    const created = await send('POST', '/clients', { 'content-type': 'application/json', 'content-length': '0' })
    expect([created.status, created.body.error]).toEqual([400, { code: 'validation_failed', message: 'field clientId is required' }])
    const patched = await send('PATCH', '/clients/nobody', { 'content-type': 'application/json', 'content-length': '0' })
    expect([patched.status, patched.body.error]).toEqual([400, { code: 'validation_failed', message: 'body must set at least one field' }])
  })

  it('a body that is not empty keeps the JSON-only rules, chunked or not', async () => {
    const text = await ws.api.call('POST', '/clients', { raw: 'x', headers: { 'content-type': 'text/plain' } })
    expect([text.status, text.body.error.code]).toEqual([415, 'unsupported_media_type'])
    const port = t.engine.ports.rest!
    const authorization = `Bearer ${ws.apiKey}`
    for (const [label, headers] of [
      ['chunked, no Content-Type', { 'transfer-encoding': 'chunked' }],
      ['chunked text/plain', { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' }],
      ['chunked JSON in latin1', { 'content-type': 'application/json; charset=latin1', 'transfer-encoding': 'chunked' }],
    ] as const) {
      const r = await httpRequest(port, '/api/v1/clients', { method: 'POST', headers: { authorization, ...headers }, body: '{"clientId":"chunky"}' })
      expect([label, r.status, JSON.parse(r.body).error.code]).toEqual([label, 415, 'unsupported_media_type'])
    }
    const ok = await httpRequest(port, '/api/v1/clients', { method: 'POST', headers: { authorization, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: '{"clientId":"chunky"}' })
    expect(ok.status).toBe(201)
  })
})
