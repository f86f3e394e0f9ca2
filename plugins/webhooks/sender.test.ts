import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { Inbox } from '../../core/test/helpers.js'
import { systemResolver } from '../../core/webhooks/urlGuard.js'
import { WebhookSender } from './sender.js'

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`

const servers: Server[] = []
const senders: WebhookSender[] = []
afterEach(async () => {
  for (const s of senders.splice(0)) s.close()
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

/** A real HTTP server on a free port of 127.0.0.1 that hands every request to `handle`. */
const serve = async (handle: (req: IncomingMessage, res: ServerResponse) => void) => {
  const requests = new Inbox<string>()
  const server = createServer((req, res) => {
    requests.push(req.url ?? '')
    handle(req, res)
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

const sender = (timeoutMs?: number) => {
  const s = new WebhookSender({ policy: { allowPrivateNetworks: true }, resolve: systemResolver, timeoutMs })
  senders.push(s)
  return s
}

const message = (url: string) => ({ url, eventId: 'evt_1', body: '{"id":"evt_1"}', timestamp: Date.now(), secrets: [SECRET] })

describe('one delivery attempt (real HTTP servers on 127.0.0.1)', () => {
  it('counts only a 2xx, signs so that standardwebhooks verifies, and never follows a redirect', async () => {
    const target = await serve((_req, res) => res.end())
    let verified: unknown = null
    const ok = await serve((req, res) => {
      let raw = ''
      req.on('data', (c: Buffer) => (raw += c.toString()))
      req.on('end', () => {
        verified = new Webhook(SECRET).verify(raw, req.headers as Record<string, string>)
        res.writeHead(204).end()
      })
    })
    const redirecting = await serve((_req, res) => res.writeHead(302, { location: `${target.url}/elsewhere` }).end())
    const failing = await serve((_req, res) => res.writeHead(503).end())
    const s = sender()
    expect(await s.send(message(`${ok.url}/hook`))).toMatchObject({ result: 'success', status: 204, error: null })
    expect(verified).toEqual({ id: 'evt_1' })
    expect(await s.send(message(`${redirecting.url}/hook`))).toMatchObject({
      result: 'http_error', status: 302, error: 'redirect not followed (HTTP 302)',
    })
    expect(await s.send(message(`${failing.url}/hook`))).toMatchObject({ result: 'http_error', status: 503, error: 'HTTP 503' })
    expect(target.requests.items).toEqual([])
  })

  it('gives up on an answer that does not finish within the timeout: no answer at all, or headers and a body that never ends', async () => {
    const silent = await serve(() => {})
    const trickling = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('still going')
    })
    const s = sender(300)
    expect(await s.send(message(`${silent.url}/hook`))).toMatchObject({ result: 'timeout', status: null, error: 'no complete answer within 300 ms' })
    expect(await s.send(message(`${trickling.url}/hook`))).toMatchObject({ result: 'timeout', status: null, error: 'no complete answer within 300 ms' })
    expect(silent.requests.items).toHaveLength(1)
    expect(trickling.requests.items).toHaveLength(1)
  })

  it('refuses a loopback address without the setting, before any connection', async () => {
    const receiver = await serve((_req, res) => res.end())
    const guarded = new WebhookSender({ policy: { allowPrivateNetworks: false }, resolve: systemResolver })
    senders.push(guarded)
    const outcome = await guarded.send(message(`${receiver.url}/hook`))
    expect(outcome).toMatchObject({ result: 'address_not_allowed', status: null })
    expect(outcome.error).toMatch(/^address_not_allowed: .*loopback/)
    expect(receiver.requests.items).toEqual([])
  })
})
