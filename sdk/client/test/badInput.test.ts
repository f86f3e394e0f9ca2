/**
 * Bad input at connect, in Node against a real engine: each a typed error carrying what the
 * server said (its envelope's message and code, the HTTP status, Retry-After) or, with no answer,
 * the system's reason. A 429 comes from a stand-in gateway (the engine's gateway sends none
 * itself; a proxy or a later engine may), and a control-message flood gets the engine's own
 * close 4029. A refused token is replaced once through `refreshToken`.
 */
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ClientDeletedError,
  ConfigurationError,
  connect,
  ConnectionError,
  InvalidTokenError,
  RateLimitedError,
  RequestRefusedError,
  TlsError,
  TokenRevokedError,
  type HarkClientError,
} from '@hark/client'
import { startClientEngine, type ClientEngine } from './clientEngine.js'

let t: ClientEngine
let stub: Server

beforeAll(async () => {
  t = await startClientEngine()
  t.seed.addClient('dev', 'lobby')
  // A gateway that refuses every upgrade with 429 and the envelope, as a rate-limiting proxy would.
  stub = createServer()
  stub.on('upgrade', (_req, socket) => {
    const body = JSON.stringify({ error: { message: 'too many connections from this address, retry in 7 s', code: 'rate_limited' } })
    socket.end(`HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 7\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
  })
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve))
})

afterAll(async () => {
  await new Promise<void>((resolve) => (stub ? stub.close(() => resolve()) : resolve()))
  await t?.stop()
})

const refused = (options: Parameters<typeof connect>[0]): Promise<HarkClientError> =>
  connect(options).then(
    () => {
      throw new Error('connected')
    },
    (e: HarkClientError) => e,
  )

describe('@hark/client at connect, refused', () => {
  it('a URL that is not a gateway URL: ConfigurationError, nothing sent', async () => {
    const error = await refused({ url: 'ftp://127.0.0.1/', token: 'x' })
    expect(error).toBeInstanceOf(ConfigurationError)
    expect(error).toMatchObject({ code: 'invalid_url' })
  })

  it('nothing listening: ConnectionError ECONNREFUSED (retriable)', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const error = await refused({ url: `https://127.0.0.1:${port}`, token: await t.token('dev'), reconnect: false })
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ code: 'ECONNREFUSED', retriable: true })
    expect(error.message).toContain(`127.0.0.1:${port}`)
  })

  it('a wrong path: RequestRefusedError 404 with the gateway’s message', async () => {
    const error = await refused({ url: `${t.direct}/nope`, token: await t.token('dev'), tls: { ca: t.ca } })
    expect(error).toBeInstanceOf(RequestRefusedError)
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'no WebSocket route /nope/v1/connect', retriable: false })
  })

  it('a certificate it does not trust: TlsError with the system’s code, not retriable', async () => {
    const error = await refused({ url: t.direct, token: await t.token('dev') })
    expect(error).toBeInstanceOf(TlsError)
    expect(error.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/)
    expect(error.retriable).toBe(false)
  })

  it('401s: a malformed token, a revoked one, a deleted client — each its class, status and the server’s message', async () => {
    const malformed = await refused({ url: t.direct, token: 'not-a-token', tls: { ca: t.ca } })
    expect(malformed).toBeInstanceOf(InvalidTokenError)
    expect(malformed).toMatchObject({ status: 401, code: 'invalid_token', message: 'malformed token' })

    const issued = await t.issue('dev')
    t.revoke(issued.jti)
    const revoked = await refused({ url: t.direct, token: issued.token, tls: { ca: t.ca } })
    expect(revoked).toBeInstanceOf(TokenRevokedError)
    expect(revoked).toMatchObject({ status: 401, code: 'token_revoked', message: 'token revoked' })

    t.seed.addClient('gone', 'lobby')
    const token = await t.token('gone')
    await t.seed.deleteClient('gone')
    const deleted = await refused({ url: t.direct, token, tls: { ca: t.ca } })
    expect(deleted).toBeInstanceOf(ClientDeletedError)
    expect(deleted).toMatchObject({ status: 401, code: 'client_not_found' })
  })

  it('a 429: RateLimitedError with the message and Retry-After', async () => {
    const port = (stub.address() as { port: number }).port
    const error = await refused({ url: `http://127.0.0.1:${port}`, token: 'any' })
    expect(error).toBeInstanceOf(RateLimitedError)
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', message: 'too many connections from this address, retry in 7 s', retryAfterMs: 7000, retriable: true })
  })

  it('a refused token with refreshToken: asked once for a fresh one, then connected', async () => {
    const asked: HarkClientError[] = []
    const session = await connect({
      url: t.direct,
      token: 'not-a-token',
      tls: { ca: t.ca },
      refreshToken: async (error) => {
        asked.push(error)
        return t.token('dev')
      },
    })
    expect(asked).toHaveLength(1)
    expect(asked[0]).toBeInstanceOf(InvalidTokenError)
    expect(session.room).toBe('lobby')
    await session.close()
    expect(session.state).toBe('closed')
  })
})
