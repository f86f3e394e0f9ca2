import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { MAX_WEBHOOKS_PER_WORKSPACE } from '../../core/webhooks/endpoints.js'
import { WebhookReceiver } from './test/receiver.js'
import { startWebhookEngine, type WebhookEngine } from './test/webhookEngine.js'

let t: WebhookEngine
let receiver: WebhookReceiver
beforeAll(async () => {
  receiver = await WebhookReceiver.start()
  t = await startWebhookEngine()
})
afterAll(async () => {
  await t.stop()
  await receiver.close()
})

const expectError = (res: { status: number; body: { error?: { code?: string; message?: string } } }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.body.error?.code).toBe(code)
  expect(typeof res.body.error?.message).toBe('string')
}

describe('/api/v1/webhooks', () => {
  it('creates an endpoint (201 with its whsec_ secret), lists, reads, updates and deletes it', async () => {
    const ws = t.workspace('crud')
    const created = await ws.api.post('/webhooks', { url: receiver.url, events: ['client.created', 'client.deleted'], description: 'CRM sync' })
    expect(created.status).toBe(201)
    const { webhookId, secret } = created.body
    expect(webhookId).toMatch(/^wh_[0-9A-Za-z]{16}$/)
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32)
    expect(created.body).toMatchObject({ url: receiver.url, events: ['client.created', 'client.deleted'], description: 'CRM sync', enabled: true })
    new Webhook(secret) // the package takes it as is

    const listed = await ws.api.get('/webhooks')
    expect(listed.status).toBe(200)
    expect(listed.body.webhooks).toHaveLength(1)
    expect(listed.body.webhooks[0]).not.toHaveProperty('secret')
    expect((await ws.api.get(`/webhooks/${webhookId}`)).body).toEqual(listed.body.webhooks[0])

    const patched = await ws.api.patch(`/webhooks/${webhookId}`, { events: null, description: null, enabled: false })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ events: null, description: null, enabled: false, disabledReason: 'disabled by request' })
    expect((await ws.api.patch(`/webhooks/${webhookId}`, { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null })

    // Another workspace sees nothing of it.
    const other = t.workspace('other')
    expectError(await other.api.get(`/webhooks/${webhookId}`), 404, 'not_found')
    expectError(await other.api.delete(`/webhooks/${webhookId}`), 404, 'not_found')
    expect((await other.api.get('/webhooks')).body.webhooks).toEqual([])

    expect((await ws.api.delete(`/webhooks/${webhookId}`)).body).toEqual({ webhookId, deleted: true })
    expectError(await ws.api.get(`/webhooks/${webhookId}`), 404, 'not_found')
  })

  it('sends a test event, lists the delivery with its attempt, and redelivers it with the same webhook-id', async () => {
    const ws = await t.workspaceWithEndpoint(receiver, 'tester')
    const sent = await ws.api.post(`/webhooks/${ws.webhookId}/test`)
    expect(sent.status).toBe(202)
    const first = await receiver.accepted.next((e) => e.id === sent.body.eventId)
    expect(first).toMatchObject({ type: 'webhook.test', resource: `webhook:${ws.webhookId}`, sequence: 1, data: { webhookId: ws.webhookId } })
    await t.worker().whenIdle()
    await t.engine.host.storage.batch(() => null)

    const page = await ws.api.get(`/webhooks/${ws.webhookId}/deliveries`)
    expect(page.status).toBe(200)
    const d = page.body.deliveries.find((x: { deliveryId: string }) => x.deliveryId === sent.body.deliveryId)
    expect(d).toMatchObject({ eventId: sent.body.eventId, type: 'webhook.test', status: 'delivered', attempts: 1, responseStatus: 200, error: null, nextAttemptAt: null })
    expect(d.latencyMs).toBeGreaterThanOrEqual(0)

    const again = await ws.api.post(`/webhooks/${ws.webhookId}/deliveries/${sent.body.deliveryId}/redeliver`)
    expect(again.status).toBe(202)
    expect(again.body).toMatchObject({ eventId: sent.body.eventId, status: 'pending', attempts: 0, sequence: 1 })
    await receiver.accepted.next((e) => e.id === sent.body.eventId && receiver.accepted.items.filter((x) => x.id === e.id).length === 2)
    expect(receiver.requests.items.filter((r) => r.headers['webhook-id'] === sent.body.eventId)).toHaveLength(2)

    // Pagination: newest first, one per page.
    const p1 = await ws.api.get(`/webhooks/${ws.webhookId}/deliveries?limit=1`)
    expect(p1.body.deliveries).toHaveLength(1)
    expect(p1.body.deliveries[0].deliveryId).toBe(again.body.deliveryId)
    const p2 = await ws.api.get(`/webhooks/${ws.webhookId}/deliveries?limit=1&cursor=${p1.body.nextCursor}`)
    expect(p2.body.deliveries[0].deliveryId).toBe(sent.body.deliveryId)
  })

  it('rotates the secret: for 24 h both secrets sign every message', async () => {
    const ws = await t.workspaceWithEndpoint(receiver, 'rotator')
    const rotated = await ws.api.post(`/webhooks/${ws.webhookId}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.secret).not.toBe(ws.secret)
    const expires = Date.parse(rotated.body.previousSecretExpiresAt)
    expect(expires - Date.now()).toBeGreaterThan(24 * 3600_000 - 60_000)
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600_000)
    receiver.secrets.push(rotated.body.secret)
    const sent = await ws.api.post(`/webhooks/${ws.webhookId}/test`)
    const request = await receiver.requests.next((r) => r.headers['webhook-id'] === sent.body.eventId)
    expect(request.headers['webhook-signature']!.split(' ')).toHaveLength(2)
    const oldIndex = receiver.secrets.indexOf(ws.secret)
    const newIndex = receiver.secrets.indexOf(rotated.body.secret)
    expect(request.verifiedBy.sort()).toEqual([oldIndex, newIndex].sort())
  })

  it('shows queue depth, the oldest pending age and deliveries by result on /metrics', async () => {
    const held = await WebhookReceiver.start()
    held.respond = () => 'hold'
    try {
      const ws = await t.workspaceWithEndpoint(held, 'metered')
      for (const id of ['m-1', 'm-2', 'm-3']) ws.addClient(id)
      await held.requests.next(() => held.requests.items.length >= 3)
      const metrics = await (await fetch(t.url('/metrics'))).text()
      expect(metrics).toMatch(new RegExp(`hark_webhook_queue_depth\\{workspace="${ws.workspaceId}"\\} 3`))
      expect(metrics).toMatch(new RegExp(`hark_webhook_oldest_pending_seconds\\{workspace="${ws.workspaceId}"\\} [0-9.e-]+`))
      expect(metrics).toMatch(/hark_webhook_deliveries_total\{result="delivered"\} [1-9]/)
      expect(metrics).toMatch(/hark_webhook_attempts_total\{result="success"\} [1-9]/)
      // At most 4 requests in flight per endpoint, whatever is pending.
      for (const id of ['m-4', 'm-5', 'm-6']) ws.addClient(id)
      await t.engine.host.webhookOutbox.flush()
      await held.requests.next(() => held.requests.items.length >= 4)
      await t.worker().whenQuiet()
      expect(t.worker().inFlightOf(ws.webhookId)).toBe(4)
      expect(held.requests.items).toHaveLength(4)
      expect(t.worker().pendingCount).toBe(6)
    } finally {
      await held.close()
    }
  })

  it('refuses bad input with 400 and the error envelope', async () => {
    const ws = t.workspace('bad-input')
    const bad: Array<[unknown, string]> = [
      [{ url: 'not a url' }, 'validation_failed'],
      [{ url: 'ftp://example.com/hook' }, 'validation_failed'],
      [{ url: 'https://user:pass@example.com/hook' }, 'validation_failed'],
      [{ url: 'https://example.com/hook#frag' }, 'validation_failed'],
      [{ url: `https://example.com/${'a'.repeat(2100)}` }, 'validation_failed'],
      [{ url: receiver.url, events: ['client.teleported'] }, 'validation_failed'],
      [{ url: receiver.url, events: [] }, 'validation_failed'],
      [{ url: receiver.url, events: 'client.created' }, 'validation_failed'],
      [{ url: receiver.url, description: 'x'.repeat(501) }, 'validation_failed'],
      [{ url: receiver.url, secret: 'whsec_mine' }, 'validation_failed'],
      [{ events: ['client.created'] }, 'validation_failed'],
      [{ url: 42 }, 'validation_failed'],
    ]
    for (const [body, code] of bad) {
      const res = await ws.api.post('/webhooks', body)
      expectError(res, 400, code)
    }
    const events = await ws.api.post('/webhooks', { url: receiver.url, events: ['client.created', 'room.exploded'] })
    expect(events.body.error.message).toMatch(/events/)
    expectError(await ws.api.call('POST', '/webhooks', { raw: '{"url":', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json')
    expectError(await ws.api.get('/webhooks/not-an-id'), 400, 'validation_failed')
    expectError(await ws.api.get('/webhooks/wh_0000000000000000'), 404, 'not_found')
    expectError(await ws.api.patch('/webhooks/wh_0000000000000000', {}), 400, 'validation_failed')
    expectError(await ws.api.get('/webhooks/wh_0000000000000000/deliveries?limit=0'), 400, 'validation_failed')
    expectError(await ws.api.post('/webhooks/wh_0000000000000000/deliveries/dlv_nope/redeliver'), 400, 'validation_failed')
    expect((await ws.api.get('/webhooks')).body.webhooks).toEqual([])
  })

  it(`refuses the ${MAX_WEBHOOKS_PER_WORKSPACE + 1}th endpoint of a workspace with 400 limit_exceeded`, async () => {
    const ws = t.workspace('capped')
    for (let i = 0; i < MAX_WEBHOOKS_PER_WORKSPACE; i++) {
      expect((await ws.api.post('/webhooks', { url: `${receiver.url}/${i}` })).status).toBe(201)
    }
    const over = await ws.api.post('/webhooks', { url: `${receiver.url}/over` })
    expectError(over, 400, 'limit_exceeded')
    expect(over.body.error.message).toContain(String(MAX_WEBHOOKS_PER_WORKSPACE))
    expect((await ws.api.get('/webhooks')).body.webhooks).toHaveLength(MAX_WEBHOOKS_PER_WORKSPACE)
  })

  it('refuses a redelivery of a pending delivery (409) and a test to a disabled endpoint (409)', async () => {
    const held = await WebhookReceiver.start()
    held.respond = () => 'hold'
    try {
      const ws = await t.workspaceWithEndpoint(held, 'conflicts')
      const sent = await ws.api.post(`/webhooks/${ws.webhookId}/test`)
      await held.requests.next()
      expectError(await ws.api.post(`/webhooks/${ws.webhookId}/deliveries/${sent.body.deliveryId}/redeliver`), 409, 'conflict')
      await ws.api.patch(`/webhooks/${ws.webhookId}`, { enabled: false })
      expectError(await ws.api.post(`/webhooks/${ws.webhookId}/test`), 409, 'conflict')
    } finally {
      await held.close()
    }
  })
})
