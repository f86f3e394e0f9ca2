/**
 * The gateway-route hook: a plugin (not a transport, and not imported by the gateway) registers
 * routes on the gateway routes it is given (services.gatewayRoutes) — one in create(), others in start(), after the gateway already
 * listens — and they are reachable over HTTPS on the gateway port beside WSS /v1/connect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect as tlsConnect } from 'node:tls'
import { definePlugin, services } from '../../core/index.js'
import { ValidationFailed } from '../../core/errors.js'
import { jsonResponse, type GatewayRequest } from '../../core/gatewayRoutes.js'
import { seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { httpsRequest } from '../../core/test/https.js'
import { websocketTransport } from './index.js'
import { TestTerminal } from './test/terminalClient.js'

const seen: GatewayRequest[] = []

const echoPlugin = definePlugin('route-echo', (resolve) => {
  const routes = resolve(services.gatewayRoutes)
  // Registered while the engine is being built, before the gateway listens.
  routes.add({
    method: 'POST',
    path: '/test/echo',
    maxBodyBytes: 1000,
    handle: (request) => {
      seen.push(request)
      return {
        status: 201,
        headers: { 'content-type': 'application/octet-stream', 'x-values': ['one', 'two'] },
        body: Buffer.concat([Buffer.from('echo:'), request.body]),
      }
    },
  })
  return {
    // Registered after every transport started: looked up per request, so order does not matter.
    start: () => {
      routes.add({
        method: 'GET',
        path: '/test/items/*',
        handle: async (request) => jsonResponse(200, { item: request.path.slice('/test/items/'.length), q: request.query.get('q') }),
      })
      routes.add({ method: 'DELETE', path: '/test/items/*', handle: () => ({ status: 204 }) })
      routes.add({
        method: 'GET',
        path: '/test/fail',
        handle: (request) => {
          if (request.query.has('domain')) throw new ValidationFailed({ field: 'q', message: 'q is wrong' })
          throw new Error('a bug with a secret in it')
        },
      })
    },
  }
})

let t: Awaited<ReturnType<typeof startTestEngine>>
let port: number
let ca: string

beforeAll(async () => {
  t = await startTestEngine({ extensions: [websocketTransport, echoPlugin] })
  port = t.engine.ports.gateway!
  ca = t.engine.host.tls.cert
})
afterAll(() => t?.stop())

describe('gateway routes on the WSS port', () => {
  it('hands a registered route the method, path, query, every header value, the remote address and the body', async () => {
    const res = await httpsRequest(port, '/test/echo?a=1&a=2&b=x', ca, {
      method: 'POST',
      headers: { authorization: ['Bearer one', 'Bearer two'], 'content-type': 'text/plain' },
      body: 'hello body',
    })
    expect(res.status).toBe(201)
    expect(res.text).toBe('echo:hello body')
    expect(res.headers['x-values']).toBe('one, two')
    const request = seen.at(-1)!
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/test/echo')
    expect(request.query.getAll('a')).toEqual(['1', '2'])
    expect(request.headers.get('authorization')).toEqual(['Bearer one', 'Bearer two'])
    expect(request.headers.get('content-type')).toEqual(['text/plain'])
    expect(request.remoteAddress).toBe('127.0.0.1')
  })

  it('reads a body that arrives in chunks, and an empty one', async () => {
    const body = Buffer.alloc(900, 7)
    const res = await httpsRequest(port, '/test/echo', ca, { method: 'POST', body, chunks: 5 })
    expect(res.status).toBe(201)
    expect(res.body.subarray(5).equals(body)).toBe(true)
    expect((await httpsRequest(port, '/test/echo', ca, { method: 'POST' })).text).toBe('echo:')
  })

  it('refuses a body over the route cap with 413, declared or streamed, without calling the handler', async () => {
    const before = seen.length
    const declared = await httpsRequest(port, '/test/echo', ca, { method: 'POST', body: Buffer.alloc(1001) })
    expect(declared.status).toBe(413)
    expect(declared.json()).toEqual({ error: { code: 'payload_too_large', message: 'request body exceeds 1000 bytes' } })
    const streamed = await httpsRequest(port, '/test/echo', ca, { method: 'POST', body: Buffer.alloc(5000), chunks: 10 }).catch(
      (e: NodeJS.ErrnoException) => ({ status: e.code }),
    )
    // The server answers 413 and closes; the client may see the answer or the reset first.
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(streamed.status)
    expect(seen.length).toBe(before)
  })

  it('serves routes added after the gateway started (prefix paths), 405 with Allow for other methods, 404 elsewhere', async () => {
    const item = await httpsRequest(port, '/test/items/abc?q=1', ca)
    expect(item.status).toBe(200)
    expect(item.json()).toEqual({ item: 'abc', q: '1' })
    expect((await httpsRequest(port, '/test/items/abc', ca, { method: 'DELETE' })).status).toBe(204)
    const wrong = await httpsRequest(port, '/test/items/abc', ca, { method: 'PATCH' })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.allow).toBe('DELETE, GET')
    expect(wrong.json()).toMatchObject({ error: { code: 'protocol_error' } })
    // The prefix needs something after it.
    expect((await httpsRequest(port, '/test/items/', ca)).status).toBe(404)
    const missing = await httpsRequest(port, '/nothing/here', ca)
    expect(missing.status).toBe(404)
    expect(missing.json()).toEqual({ error: { code: 'not_found', message: 'no route GET /nothing/here' } })
  })

  it('turns a thrown domain error into its status and envelope, anything else into a bare 500', async () => {
    const domain = await httpsRequest(port, '/test/fail?domain', ca)
    expect(domain.status).toBe(400)
    expect(domain.json()).toEqual({ error: { code: 'validation_failed', message: 'q is wrong' } })
    const bug = await httpsRequest(port, '/test/fail', ca)
    expect(bug.status).toBe(500)
    expect(bug.json()).toEqual({ error: { code: 'internal', message: 'internal error' } })
  })

  it('refuses a second route for the same method and path', () => {
    expect(() => t.engine.host.gatewayRoutes.add({ method: 'POST', path: '/test/echo', handle: () => ({ status: 200 }) })).toThrow(/already registered/)
  })

  it('keeps the WebSocket endpoint and answers on a connection that sent two requests back to back', async () => {
    const seed = seedWorkspace(t.engine)
    seed.addClient('a', 'lobby')
    const token = (await t.engine.host.security.tokens.issue(seed.workspaceId, 'a', null)).token
    const terminal = await TestTerminal.connect(port, { token }, ca)
    expect(await terminal.event('session')).toMatchObject({ clientId: 'a' })
    terminal.close()

    // Keep-alive: two pipelined requests on one TLS connection, two answers in order.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
        socket.write('GET /test/items/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /test/items/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
      })
      let text = ''
      socket.on('data', (d: Buffer) => (text += d.toString()))
      socket.on('end', () => resolve(text))
      socket.on('error', reject)
    })
    expect(raw.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2)
    expect(raw.indexOf('"item":"1"')).toBeLessThan(raw.indexOf('"item":"2"'))
  })
})
