/**
 * The REST-port listener at its edges, over real sockets: requests it refuses before any route
 * (a 100 KB URL, CONNECT, heads and bodies that never finish) get the JSON envelope and
 * `Connection: close`, idle and stalled connections are closed by the rest.*Timeout settings,
 * and a stop finishes the requests in flight (within REST_DRAIN_MS) instead of resetting them.
 */
import { Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, resolveSettings } from './config.js'
import { definePlugin } from './define.js'
import { Inbox, startTestEngine } from './test/helpers.js'
import { httpRequest, rawExchange, untilRefused } from './test/rawHttp.js'

/** A plugin whose GET /test/hold answers only when the test releases it. */
const holdingPlugin = () => {
  const held = new Inbox<() => void>()
  const plugin = definePlugin('hold', () => ({
    register: (app) => {
      app.get('/test/hold', async () => {
        await new Promise<void>((release) => held.push(release))
        return { held: 'released' }
      })
    },
  }))
  return { plugin, held }
}

const envelopeOf = (body: string) => JSON.parse(body) as { error: { code: string; message: string } }

describe('requests refused before any route', () => {
  let t: Awaited<ReturnType<typeof startTestEngine>>
  beforeAll(async () => {
    t = await startTestEngine()
  })
  afterAll(() => t.stop())

  it('a 100 KB URL gets 431 with the envelope and Connection: close, and no reset', async () => {
    const r = await rawExchange(t.engine.ports.rest!, `GET /healthz?pad=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
    expect(r.status).toBe(431)
    expect(r.headers.get('connection')).toBe('close')
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(envelopeOf(r.body).error).toEqual({ code: 'headers_too_large', message: 'request line and headers exceed 16384 bytes' })
    expect(r.reset).toBe(false)
  })

  it('a keep-alive client goes on with a new connection after the 431', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const big = await httpRequest(t.engine.ports.rest!, `/healthz?pad=${'b'.repeat(100_000)}`, { agent })
      expect(big.status).toBe(431)
      expect(big.headers.connection).toBe('close')
      expect(envelopeOf(big.body).error.code).toBe('headers_too_large')
      const next = await httpRequest(t.engine.ports.rest!, '/healthz', { agent })
      expect(next.status).toBe(200)
      expect(JSON.parse(next.body)).toEqual({ status: 'ok' })
    } finally {
      agent.destroy()
    }
  })

  it('CONNECT gets 405 with the envelope, Allow and Connection: close', async () => {
    const r = await rawExchange(t.engine.ports.rest!, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
    expect(r.status).toBe(405)
    expect(r.headers.get('connection')).toBe('close')
    expect(r.headers.get('allow')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS')
    expect(envelopeOf(r.body).error.code).toBe('method_not_allowed')
    expect(r.reset).toBe(false)
  })

  it('a request line that is not HTTP gets 400 protocol_error with the envelope', async () => {
    const r = await rawExchange(t.engine.ports.rest!, 'HELLO THERE\r\n\r\n')
    expect(r.status).toBe(400)
    expect(r.headers.get('connection')).toBe('close')
    expect(envelopeOf(r.body).error.code).toBe('protocol_error')
  })
})

describe('rest.*Timeout settings close idle and stalled connections', () => {
  let t: Awaited<ReturnType<typeof startTestEngine>>
  let held: Inbox<() => void>
  beforeAll(async () => {
    const hold = holdingPlugin()
    held = hold.held
    t = await startTestEngine({
      rest: { port: 0, headersTimeoutMs: 1000, requestTimeoutMs: 1500, keepAliveTimeoutMs: 200, connectionTimeoutMs: 2500 },
      agents: { startTimeoutMs: 100, stopTimeoutMs: 100 },
      extensions: [hold.plugin],
    })
  })
  afterAll(async () => {
    for (const release of held.items) release()
    await t.stop()
  })

  it.each([
    ['sends nothing at all', ''],
    ['sends half a request head', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n'],
    ['stops sending its body', 'POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":'],
  ])('a connection that %s gets 408 request_timeout and is closed', async (_what, data) => {
    const r = await rawExchange(t.engine.ports.rest!, data)
    expect(r.status).toBe(408)
    expect(r.headers.get('connection')).toBe('close')
    expect(envelopeOf(r.body).error.code).toBe('request_timeout')
  })

  it('an idle keep-alive connection is closed after rest.keepAliveTimeoutMs', async () => {
    const r = await rawExchange(t.engine.ports.rest!, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n')
    expect(r.status).toBe(200)
    expect(r.text.match(/HTTP\/1\.1 /g)).toHaveLength(1)
  })

  it('a connection silent both ways for rest.connectionTimeoutMs is closed, even with an answer pending', async () => {
    const r = await rawExchange(t.engine.ports.rest!, 'GET /test/hold HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(r.status).toBeNull()
    expect(held.items.length).toBeGreaterThan(0)
  })
})

describe('REST listener settings', () => {
  it('have HARK_* variables and flags derived from their paths', () => {
    const s = resolveSettings({
      env: { HARK_REST_HEADERS_TIMEOUT_MS: '2000', HARK_REST_KEEP_ALIVE_TIMEOUT_MS: '7000' },
      flags: { 'rest.requestTimeoutMs': '20000', 'rest.connectionTimeoutMs': '200000' },
    })
    expect(s.rest).toMatchObject({ headersTimeoutMs: 2000, keepAliveTimeoutMs: 7000, requestTimeoutMs: 20_000, connectionTimeoutMs: 200_000 })
    expect(() => resolveSettings({ env: { HARK_REST_KEEP_ALIVE_TIMEOUT_MS: '0' } })).toThrow(ConfigError)
  })

  it('refuse a head timeout above the request timeout, and a connection timeout that would cut a dispatch', async () => {
    await expect(startTestEngine({ rest: { port: 0, headersTimeoutMs: 5000, requestTimeoutMs: 2000 } })).rejects.toThrow(
      'invalid setting rest.headersTimeoutMs (from settings): must not exceed rest.requestTimeoutMs (2000)',
    )
    await expect(startTestEngine({ rest: { port: 0, connectionTimeoutMs: 10_000 }, agents: { startTimeoutMs: 15_000 } })).rejects.toThrow(
      /invalid setting rest\.connectionTimeoutMs .*must exceed agents\.startTimeoutMs/,
    )
  })
})

describe('a graceful stop', () => {
  it('finishes a request accepted just before it, and cuts one that outlasts the drain budget', async () => {
    const hold = holdingPlugin()
    const t = await startTestEngine({ extensions: [hold.plugin] })
    const port = t.engine.ports.rest!
    const agent = new Agent({ keepAlive: true })
    const finishing = httpRequest(port, '/test/hold', { agent })
    const release = await hold.held.next()
    const outlasting = httpRequest(port, '/test/hold').then(
      () => 'answered',
      (e: NodeJS.ErrnoException) => e.code,
    )
    const never = await hold.held.next((r) => r !== release)
    const stopped = t.stop()
    // The listener is closed: nothing new is accepted while the held requests are still running.
    await untilRefused(port)
    release()
    const r = await finishing
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body)).toEqual({ held: 'released' })
    expect(r.headers.connection).toBe('close')
    // The other one is cut once REST_DRAIN_MS is spent, and the stop completes.
    expect(await outlasting).toBe('ECONNRESET')
    await stopped
    never()
    agent.destroy()
  })
})
