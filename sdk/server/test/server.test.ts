/**
 * @hark/server against a real engine: README's operator flow (clients, tokens, ephemeral clients,
 * agents, usage, webhooks) through the built package, a real webhook delivery verified by the
 * SDK's verifier, and bad input — no server, a TLS certificate nobody trusts, a wrong key, a 429
 * storm, forged webhooks — each a typed error carrying the server's message.
 */
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  HarkConnectionError,
  HarkError,
  HarkServer,
  NotFoundError,
  RateLimitError,
  verifyWebhook,
  WebhookVerificationError,
  type Client,
  type RetryInfo,
} from '@hark/server'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManualClock } from '../../../core/clock.js'
import { startRestEngine } from '../../../plugins/rest/test/restEngine.js'
import { TestTerminal } from '../../../transports/websocket/test/terminalClient.js'
import { operatorWorkspace, SdkReceiver, startSdkEngine, type SdkEngine } from './sdkEngine.js'

let t: SdkEngine
let receiver: SdkReceiver
let hark: HarkServer
let apiKey: string
beforeAll(async () => {
  t = await startSdkEngine()
  ;({ apiKey } = await operatorWorkspace(t.dir))
  hark = new HarkServer({ baseUrl: t.url(''), apiKey })
  receiver = await SdkReceiver.start()
})
afterAll(async () => {
  await receiver?.close()
  await t?.stop()
})

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

/** What the server itself answers to `path` with `key`, read without the SDK. */
const rawEnvelope = async (path: string, key: string) =>
  ((await (await fetch(t.url(path), { headers: { authorization: `Bearer ${key}` } })).json()) as { error: { message: string; code: string } }).error

describe('@hark/server: the operator flow', () => {
  it('clients, tokens, a live terminal, ephemeral clients, agents, usage and webhooks, each event delivered and verified', async () => {
    const endpoint = await hark.webhooks.create({ url: receiver.url, description: 'sdk test' })
    expect(endpoint).toMatchObject({ url: receiver.url, events: null, enabled: true, secret: expect.stringMatching(/^whsec_/) })
    receiver.secret = endpoint.secret

    const created = await hark.clients.create({ clientId: 'dev-1', name: 'Kitchen', kind: 'device', room: 'lobby' })
    expect(created).toMatchObject({ clientId: 'dev-1', room: 'lobby', status: 'offline', online: false, connection: null })
    expect((await receiver.event('client.created', (e) => e.data.clientId === 'dev-1')).event.data).toEqual({
      clientId: 'dev-1', name: 'Kitchen', kind: 'device', room: 'lobby', ephemeral: false,
    })
    await expect(hark.clients.create({ clientId: 'dev-1' })).rejects.toMatchObject({ name: 'ConflictError', status: 409, code: 'client_exists' })

    // Paged lists walk every page: 5 more clients at 2 a page, in clientId order.
    for (const id of ['dev-2', 'dev-3', 'dev-4', 'dev-5', 'dev-6']) await hark.clients.create({ clientId: id, kind: 'device' })
    const firstPage = await hark.clients.listPage({ kind: 'device', limit: 2 })
    expect(firstPage.clients.map((c) => c.clientId)).toEqual(['dev-1', 'dev-2'])
    expect(firstPage.nextCursor).toEqual(expect.any(String))
    const all: Client[] = await collect(hark.clients.list({ kind: 'device', limit: 2 }))
    expect(all.map((c) => c.clientId)).toEqual(['dev-1', 'dev-2', 'dev-3', 'dev-4', 'dev-5', 'dev-6'])

    // A token from the SDK opens a real terminal session: the webhook says so.
    const issued = await hark.tokens.issue('dev-1', { ttlSeconds: 3600 })
    expect(issued).toMatchObject({ clientId: 'dev-1', jti: expect.stringMatching(/^[0-9A-Z]{26}$/), expiresAt: expect.any(String) })
    expect((await hark.tokens.issue('dev-1')).expiresAt).toBeNull()
    const terminal = await TestTerminal.connect(t.engine.ports.gateway!, { token: issued.token }, t.engine.host.tls.cert)
    await terminal.event('session')
    const connected = await receiver.event('client.connected', (e) => e.data.clientId === 'dev-1')
    expect(connected.event.data).toMatchObject({ clientId: 'dev-1', transport: 'websocket', room: 'lobby' })
    expect(connected.headers['webhook-id']).toBe(connected.event.id)
    expect((await receiver.event('room.started', (e) => e.data.room === 'lobby')).event.data.clientId).toBe('dev-1')
    expect(await hark.clients.get('dev-1')).toMatchObject({ status: 'online', connection: { transport: 'websocket', room: 'lobby' } })
    expect((await collect(hark.clients.list({ status: 'online' }))).map((c) => c.clientId)).toEqual(['dev-1'])

    // PATCH moves the live terminal.
    expect(await hark.clients.update('dev-1', { room: 'office' })).toMatchObject({ room: 'office' })
    expect((await receiver.event('client.room_changed')).event.data).toMatchObject({ clientId: 'dev-1', from: 'lobby', to: 'office' })
    expect((await collect(hark.rooms.list())).map((r) => [r.room, r.participants.map((p) => p.id)])).toEqual([['office', ['dev-1']]])

    // An ephemeral client with its token.
    const eph = await hark.clients.createEphemeral({ room: 'office', kind: 'web', ttlSeconds: 600 })
    expect(eph).toMatchObject({ clientId: expect.stringMatching(/^eph_[0-9A-Za-z]{20}$/), room: 'office', token: expect.any(String) })
    expect(await hark.clients.get(eph.clientId)).toMatchObject({ ephemeral: true, kind: 'web', expiresAt: eph.expiresAt })

    // An echo agent in the terminal's room, listed, read and stopped.
    expect((await hark.agents.providers()).providers.map((p) => p.name)).toContain('echo')
    const agent = await hark.agents.dispatch({ room: 'office' })
    expect(agent).toMatchObject({ room: 'office', provider: 'echo', identity: 'agent@default', state: 'running' })
    await terminal.event('participant.joined', (e) => e.participant.id === agent.identity)
    expect((await receiver.event('agent.started')).event.data).toMatchObject({ agentId: agent.agentId, provider: 'echo', room: 'office' })
    expect((await hark.agents.list({ room: 'office' })).agents.map((a) => a.agentId)).toEqual([agent.agentId])
    expect(await hark.agents.get(agent.agentId)).toMatchObject({ state: 'running' })
    expect(await hark.agents.stop(agent.agentId)).toMatchObject({ agentId: agent.agentId, stopped: true })
    expect((await receiver.event('agent.stopped')).event.data.agentId).toBe(agent.agentId)
    // Its conversation is on record (nobody talked: no turns), found by room, and erased.
    expect(await hark.agents.transcriptPage(agent.agentId)).toMatchObject({ agentId: agent.agentId, room: 'office', turns: 0, items: [], nextCursor: null })
    const turns = []
    for await (const turn of hark.agents.transcript(agent.agentId)) turns.push(turn)
    expect(turns).toEqual([])
    const found = []
    for await (const t of hark.transcripts.list({ room: 'office' })) found.push(t.agentId)
    expect(found).toEqual([agent.agentId])
    expect(await hark.agents.deleteTranscript(agent.agentId)).toEqual({ agentId: agent.agentId, deleted: true })
    await expect(hark.agents.transcriptPage(agent.agentId)).rejects.toMatchObject({ name: 'NotFoundError', code: 'not_found' })

    // Usage counts the live session.
    const usage = await hark.usage.get()
    expect(usage.totals.sessions).toBe(1)
    expect(usage.records.at(-1)).toMatchObject({ sessions: 1 })

    // Revoking the token closes the session; the events say why.
    expect(await hark.tokens.revoke(issued.jti)).toEqual({ jti: issued.jti, clientId: 'dev-1', revoked: true })
    expect((await terminal.closed).reason).toMatch(/revoked/)
    expect((await receiver.event('token.revoked')).event.data).toEqual({ clientId: 'dev-1', jti: issued.jti, all: false })
    expect((await receiver.event('client.disconnected')).event.data).toMatchObject({ clientId: 'dev-1', reason: 'token_revoked' })
    expect((await hark.tokens.revokeAll('dev-1')).clientId).toBe('dev-1')

    expect(await hark.clients.delete('dev-6')).toEqual({ clientId: 'dev-6', deleted: true })
    expect((await receiver.event('client.deleted')).event.data).toEqual({ clientId: 'dev-6' })
    const missing = await hark.clients.get('dev-6').catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(NotFoundError)
    expect(missing).toMatchObject({ status: 404, code: 'client_not_found', message: (await rawEnvelope('/api/v1/clients/dev-6', apiKey)).message })

    // The endpoint's own calls: a test event, the deliveries (paged), a rotation, update and delete.
    const sent = await hark.webhooks.test(endpoint.webhookId)
    expect((await receiver.event('webhook.test')).event.id).toBe(sent.eventId)
    const deliveries = await collect(hark.webhooks.deliveries(endpoint.webhookId, { limit: 3 }))
    expect(deliveries.length).toBeGreaterThanOrEqual(receiver.deliveries.items.length)
    expect(deliveries.map((d) => d.deliveryId)).toContain(sent.deliveryId)
    const rotated = await hark.webhooks.rotateSecret(endpoint.webhookId)
    expect(rotated.secret).not.toBe(endpoint.secret)
    receiver.secret = rotated.secret
    await hark.webhooks.test(endpoint.webhookId)
    const afterRotation = await receiver.event('webhook.test', (e) => e.id !== sent.eventId)
    // Both secrets sign during the grace period: the old one verifies the same request too.
    expect(verifyWebhook(endpoint.secret, afterRotation.raw, afterRotation.headers).id).toBe(afterRotation.event.id)
    expect((await hark.webhooks.list()).webhooks.map((w) => w.webhookId)).toEqual([endpoint.webhookId])
    expect(await hark.webhooks.update(endpoint.webhookId, { enabled: false })).toMatchObject({ enabled: false })
    expect((await hark.webhooks.get(endpoint.webhookId)).disabledReason).toEqual(expect.any(String))
    expect(await hark.webhooks.delete(endpoint.webhookId)).toEqual({ webhookId: endpoint.webhookId, deleted: true })
    expect(receiver.refused.items).toEqual([])
    terminal.ws.terminate()
  })

  it('agent presets, room settings and validation errors, typed', async () => {
    const preset = await hark.agentPresets.create({ presetId: 'concierge', provider: 'echo', name: 'Concierge' })
    expect(preset).toMatchObject({ presetId: 'concierge', provider: 'echo', name: 'Concierge' })
    expect(await hark.agentPresets.update('concierge', { name: 'Front desk' })).toMatchObject({ name: 'Front desk' })
    expect((await collect(hark.agentPresets.list({ limit: 1 }))).map((p) => p.presetId)).toEqual(['concierge'])
    expect(await hark.rooms.put('hall', { defaultAgent: { presetId: 'concierge' } })).toMatchObject({
      room: 'hall', participants: [], defaultAgent: { presetId: 'concierge' },
    })
    expect((await hark.rooms.get('hall')).defaultAgent).toMatchObject({ presetId: 'concierge' })
    expect(await hark.agentPresets.get('concierge')).toMatchObject({ name: 'Front desk' })

    const bad = await hark.clients.create({ clientId: 'eph_nope' }).catch((e: unknown) => e)
    expect(bad).toBeInstanceOf(BadRequestError)
    expect(bad).toMatchObject({ status: 400, code: 'validation_failed', message: expect.stringMatching(/clientId/) })
    await expect(hark.agents.get('ag_0000000000000000')).rejects.toMatchObject({ name: 'NotFoundError', code: 'not_found' })
    await expect(hark.agentPresets.create({ presetId: 'concierge', provider: 'echo' })).rejects.toBeInstanceOf(ConflictError)
  })
})

describe('@hark/server: bad input', () => {
  it('no server at the URL: HarkConnectionError ECONNREFUSED naming the URL', async () => {
    // A port that was free a moment ago and has no listener now.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const nobody = new HarkServer({ baseUrl: `http://127.0.0.1:${port}`, apiKey })
    const error = await nobody.clients.listPage().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HarkConnectionError)
    expect(error).toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining(`127.0.0.1:${port}/api/v1/clients`) })
  })

  it('a TLS certificate the client does not trust (the engine’s self-signed one): HarkConnectionError', async () => {
    const tls = new HarkServer({ baseUrl: `https://127.0.0.1:${t.engine.ports.gateway}`, apiKey })
    const error = await tls.clients.listPage().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HarkConnectionError)
    expect(error).toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: expect.stringMatching(/: self-signed certificate$/) })
  })

  it('a wrong API key: AuthenticationError with the server’s message and code', async () => {
    const wrongKey = `hk_${'A'.repeat(43)}`
    const error = await new HarkServer({ baseUrl: t.url(''), apiKey: wrongKey }).usage.get().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AuthenticationError)
    expect(error).toBeInstanceOf(HarkError)
    const server = await rawEnvelope('/api/v1/usage', wrongKey)
    expect(server.code).toBe('invalid_api_key')
    expect(error).toMatchObject({ status: 401, code: server.code, message: server.message })
  })

  it('forged, stale and malformed webhooks: WebhookVerificationError', async () => {
    const secret = `whsec_${Buffer.from('a-secret-of-32-bytes-for-tests!!').toString('base64')}`
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', timestamp: new Date().toISOString(), workspaceId: 'ws_1', resource: 'webhook:wh_1', sequence: 1, data: { webhookId: 'wh_1', message: 'hi' } })
    const signed = (at: Date, payload = body) => ({
      'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_1', at, payload),
    })
    const good = signed(new Date())
    expect(verifyWebhook(secret, body, good).type).toBe('webhook.test')
    expect(verifyWebhook(secret, new TextEncoder().encode(body), new Headers(good)).id).toBe('evt_1')
    const failure = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        expect(e).toBeInstanceOf(WebhookVerificationError)
        return (e as Error).message
      }
      throw new Error('verified')
    }
    expect(failure(() => verifyWebhook(secret, body.replace('hi', 'ho'), good))).toBe('No matching signature found')
    expect(failure(() => verifyWebhook(secret, body, { ...good, 'webhook-signature': 'v1,AAAA' }))).toBe('No matching signature found')
    expect(failure(() => verifyWebhook(`whsec_${Buffer.from('another-secret-entirely-32-bytes').toString('base64')}`, body, good))).toBe('No matching signature found')
    expect(failure(() => verifyWebhook(secret, body, { 'webhook-id': 'evt_1', 'webhook-timestamp': good['webhook-timestamp'] }))).toBe('Missing required headers')
    expect(failure(() => verifyWebhook(secret, body, signed(new Date(Date.now() - 10 * 60_000))))).toBe('Message timestamp too old')
    expect(failure(() => verifyWebhook(secret, body, { ...good, 'webhook-timestamp': 'yesterday' }))).toBe('Invalid Signature Headers')
    expect(failure(() => verifyWebhook(secret, 'not json', signed(new Date(), 'not json')))).toMatch(/^webhook body is not JSON/)
    expect(failure(() => verifyWebhook(secret, '{"id":1}', signed(new Date(), '{"id":1}')))).toBe('webhook body is not a Hark event (no type)')
    expect(failure(() => verifyWebhook('', body, good))).toMatch(/^unusable webhook secret/)
  })
})

describe('@hark/server: a 429 storm', () => {
  // Windows run on the engine's clock: a retry succeeds only when the test moves it past Retry-After.
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'))
  let limited: Awaited<ReturnType<typeof startRestEngine>>
  beforeAll(async () => {
    limited = await startRestEngine({ rest: { rateLimitMax: 3, rateLimitWindowSeconds: 1 } }, { clock })
  })
  afterAll(() => limited?.stop())

  it('without retries: the 4th call of the window is a RateLimitError with the server’s message and Retry-After', async () => {
    const ws = limited.workspace('storm')
    const client = new HarkServer({ baseUrl: limited.base, apiKey: ws.apiKey, maxRetries: 0 })
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => client.clients.listPage()))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3)
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as RateLimitError] : []))
    expect(errors).toHaveLength(5)
    for (const e of errors) {
      expect(e).toBeInstanceOf(RateLimitError)
      expect(e).toMatchObject({ status: 429, code: 'rate_limited', message: 'rate limit exceeded, retry in 1 s', retryAfterSeconds: 1 })
    }
  })

  it('with retries: waits Retry-After and succeeds once the window has passed; gives up past maxRetries', async () => {
    const ws = limited.workspace('patient')
    const retries: RetryInfo[] = []
    const client = new HarkServer({
      baseUrl: limited.base, apiKey: ws.apiKey, maxRetries: 2,
      onRetry: (info) => {
        retries.push(info)
        clock.advance(1000)
      },
    })
    const pages = await Promise.all(Array.from({ length: 4 }, () => client.clients.listPage()))
    expect(pages.every((p) => Array.isArray(p.clients))).toBe(true)
    expect(retries).toEqual([{ attempt: 1, status: 429, delayMs: 1000, retryAfter: '1' }])

    // The clock stays: every retry is limited again, and the third answer is thrown.
    const drain = new HarkServer({ baseUrl: limited.base, apiKey: ws.apiKey, maxRetries: 0 })
    for (let i = 0; i < 3; i++) await drain.clients.listPage().catch(() => undefined)
    retries.length = 0
    const stuck = new HarkServer({ baseUrl: limited.base, apiKey: ws.apiKey, maxRetries: 2, onRetry: (info) => retries.push(info) })
    await expect(stuck.clients.listPage()).rejects.toBeInstanceOf(RateLimitError)
    expect(retries.map((r) => r.attempt)).toEqual([1, 2])
  })

  it('a Retry-After longer than maxRetryDelayMs is thrown at once, not waited for', async () => {
    const ws = limited.workspace('hasty')
    const retries: RetryInfo[] = []
    const client = new HarkServer({ baseUrl: limited.base, apiKey: ws.apiKey, maxRetryDelayMs: 500, onRetry: (r) => retries.push(r) })
    for (let i = 0; i < 3; i++) await client.clients.listPage()
    await expect(client.clients.listPage()).rejects.toMatchObject({ name: 'RateLimitError', retryAfterSeconds: 1 })
    expect(retries).toEqual([])
  })
})
