/**
 * WebSocket routes on the gateway port: a plugin (not a transport, and not imported by the gateway)
 * registers a WebSocket route on the engine host; upgrades to its path reach it with their headers,
 * it refuses or accepts each, and the accepted connection reads and writes through GatewaySocket —
 * beside WSS /v1/connect and the HTTP routes of the same port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { definePlugin, errorResponse, jsonResponse, services, TokenInvalid, ValidationFailed, type GatewayRequest, type GatewaySocket } from '../../core/index.js'
import { Inbox, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { httpsRequest } from '../../core/test/https.js'
import { websocketTransport } from './index.js'
import { TestTerminal } from './test/terminalClient.js'

const upgrades: GatewayRequest[] = []
const closedWith = new Inbox<number>()

const echoSockets = definePlugin('socket-echo', (resolve) => {
  const routes = resolve(services.gatewayRoutes)
  routes.addSocket({
    path: '/test/ws/*',
    upgrade: async (request) => {
      upgrades.push(request)
      const key = request.headers.get('x-key')?.[0]
      if (key === 'throw') throw new ValidationFailed({ field: 'x-key', message: 'x-key is wrong' })
      if (key !== 'ok') return { refuse: errorResponse(new TokenInvalid({ message: 'bad key' })) }
      return {
        accept: (socket: GatewaySocket) => ({
          message: (data, binary) => {
            if (!binary && Buffer.from(data).toString() === 'bye') return socket.close(4321, 'asked to')
            // Two sends in one write; the reply reuses one scratch buffer for both.
            const scratch = new Uint8Array(data.byteLength + 1)
            socket.cork(() => {
              scratch[0] = 1
              scratch.set(new Uint8Array(data), 1)
              socket.send(scratch, binary)
              scratch[0] = 2
              socket.send(scratch, binary)
            })
          },
          closed: (code) => closedWith.push(code),
        }),
      }
    },
  })
  routes.add({ method: 'GET', path: '/test/ws/plain', handle: () => jsonResponse(200, { plain: true }) })
  return {}
})

let t: Awaited<ReturnType<typeof startTestEngine>>
let port: number
let ca: string

beforeAll(async () => {
  t = await startTestEngine({ extensions: [websocketTransport, echoSockets] })
  port = t.engine.ports.gateway!
  ca = t.engine.host.tls.cert
})
afterAll(() => t?.stop())

const open = (path: string, headers: Record<string, string>) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}${path}`, { ca, headers, perMessageDeflate: false })
    ws.once('open', () => resolve(ws))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d))
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body) })))
    })
    ws.once('error', reject)
  })

const refusal = (path: string, headers: Record<string, string>) =>
  open(path, headers).then(
    () => { throw new Error('expected a refusal') },
    (e: { status: number; body: unknown }) => ({ status: e.status, body: e.body }),
  )

describe('WebSocket routes on the WSS port', () => {
  it('hands the route the upgrade request, then carries messages both ways', async () => {
    const ws = await open('/test/ws/a?x=1', { 'x-key': 'ok', 'device-id': 'aa:bb' })
    const request = upgrades.at(-1)!
    expect(request).toMatchObject({ method: 'GET', path: '/test/ws/a', remoteAddress: '127.0.0.1' })
    expect(request.query.get('x')).toBe('1')
    expect(request.headers.get('device-id')).toEqual(['aa:bb'])
    const replies: Buffer[] = []
    const two = new Promise<void>((resolve) => ws.on('message', (d: Buffer) => replies.push(d) === 2 && resolve()))
    ws.send(Buffer.from([7, 8, 9]))
    await two
    expect(replies.map((r) => [...r])).toEqual([[1, 7, 8, 9], [2, 7, 8, 9]])
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })))
    ws.send('bye')
    expect(await closed).toEqual({ code: 4321, reason: 'asked to' })
    expect(await closedWith.next((code) => code === 4321)).toBe(4321)
  })

  it('answers a refusal with the route response, a thrown error with its status, an unknown path with 404', async () => {
    expect(await refusal('/test/ws/a', { 'x-key': 'no' })).toEqual({ status: 401, body: { error: { code: 'invalid_token', message: 'bad key' } } })
    expect(await refusal('/test/ws/a', { 'x-key': 'throw' })).toEqual({ status: 400, body: { error: { code: 'validation_failed', message: 'x-key is wrong' } } })
    expect(await refusal('/elsewhere', { 'x-key': 'ok' })).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'no WebSocket route /elsewhere' } },
    })
  })

  it('tells the handler when the client drops, and keeps HTTP routes and /v1/connect working on the same port', async () => {
    const ws = await open('/test/ws/b', { 'x-key': 'ok' })
    ws.terminate()
    // uWS reports a connection that vanished without a close frame as 1006.
    expect(await closedWith.next((code) => code === 1006)).toBe(1006)
    // A GET without an upgrade on a path under the WebSocket route is an ordinary HTTP request.
    const plain = await httpsRequest(port, '/test/ws/plain', ca)
    expect(plain.json()).toEqual({ plain: true })
    const seed = seedWorkspace(t.engine)
    seed.addClient('a', 'lobby')
    const token = (await t.engine.host.security.tokens.issue(seed.workspaceId, 'a', null)).token
    const terminal = await TestTerminal.connect(port, { token }, ca)
    expect(await terminal.event('session')).toMatchObject({ clientId: 'a' })
    terminal.close()
  })
})
