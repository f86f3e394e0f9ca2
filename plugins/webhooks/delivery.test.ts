import * as Schema from 'effect/Schema'
import { afterEach, describe, expect, it } from 'vitest'
import { echoAgent } from '../../agents/echo/index.js'
import { defineAgentProvider } from '../../core/index.js'
import { ManualClock } from '../../core/index.js'
import { WEBHOOK_EVENT_TYPES } from '../../core/webhooks/events.js'
import { RETRY_DELAYS_MS } from './schedule.js'
import { checkOrderedAndComplete, WebhookReceiver, type ReceivedEvent } from './test/receiver.js'
import { startWebhookEngine, type WebhookEngine } from './test/webhookEngine.js'

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

const setup = async (options: Parameters<typeof startWebhookEngine>[0] = {}) => {
  const receiver = await WebhookReceiver.start()
  cleanup.push(() => receiver.close())
  const t = await startWebhookEngine(options)
  cleanup.push(() => t.stop())
  return { t, receiver }
}

/** The pending deliveries the database holds, across endpoints. */
const pendingRows = (t: WebhookEngine) =>
  (t.engine.host.storage.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'").get() as { n: number }).n
const eventRows = (t: WebhookEngine) =>
  (t.engine.host.storage.db.prepare('SELECT count(DISTINCT event_id) AS n FROM webhook_deliveries').get() as { n: number }).n

describe('webhook delivery', () => {
  it('delivers a live event signed the Standard Webhooks way, verified by the standardwebhooks package', async () => {
    const { t, receiver } = await setup()
    const ws = await t.workspaceWithEndpoint(receiver)
    ws.addClient('dev-1', 'lobby')
    const { session } = await t.connect(ws.workspaceId, 'dev-1', 'mqtt')
    // client.created and client.connected (client:dev-1, in that order), room.started (room:lobby, its own lane).
    await receiver.acceptedCount(3)
    const [created, connected] = receiver.accepted.items.filter((e) => e.resource === 'client:dev-1')
    expect(created!.type).toBe('client.created')
    expect(receiver.accepted.items.find((e) => e.resource === 'room:lobby')).toMatchObject({ type: 'room.started', data: { room: 'lobby', clientId: 'dev-1' } })
    expect(connected).toMatchObject({
      type: 'client.connected',
      workspaceId: ws.workspaceId,
      resource: 'client:dev-1',
      sequence: 2,
      data: { clientId: 'dev-1', sessionId: session.sessionId, transport: 'mqtt', room: 'lobby' },
    })
    const request = receiver.requests.items.find((r) => r.event.type === 'client.connected')!
    expect(request.verifiedBy).toEqual([0])
    expect(request.headers['webhook-id']).toBe(connected!.id)
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(request.headers['content-type']).toBe('application/json')
  })

  it('tells agent.started and agent.stopped of a dispatched agent, and agent.failed (no start) of one whose provider fails', async () => {
    const thrower = defineAgentProvider('thrower', { isolate: false, create: () => ({
      configSchema: Schema.Struct({}),
      start: () => {
        throw new Error('upstream said no')
      },
    }) })
    const { t, receiver } = await setup({ config: { extensions: [echoAgent, thrower], agents: { startTimeoutMs: 2000 } } })
    const ws = await t.workspaceWithEndpoint(receiver, 'agents', ['agent.started', 'agent.stopped', 'agent.failed'])
    const started = await ws.api.post('/agents', { room: 'lobby' })
    expect(started.status).toBe(201)
    expect((await ws.api.delete(`/agents/${started.body.agentId}`)).status).toBe(200)
    expect((await ws.api.post('/agent-presets', { presetId: 'boom', provider: 'thrower' })).status).toBe(201)
    const failed = await ws.api.post('/agents', { room: 'lobby', presetId: 'boom' })
    expect(failed.status).toBe(502)
    await receiver.acceptedCount(3)
    // One agent's two events in order; the failed agent is another resource, delivered in parallel (any place).
    const [a, b] = receiver.accepted.items.filter((e) => e.resource === `agent:${started.body.agentId}`)
    const c = receiver.accepted.items.find((e) => e.type === 'agent.failed')
    const echo = { agentId: started.body.agentId, room: 'lobby', identity: 'agent@default', provider: 'echo', presetId: null }
    expect(a).toMatchObject({ type: 'agent.started', resource: `agent:${started.body.agentId}`, sequence: 1, data: echo })
    expect(b).toMatchObject({ type: 'agent.stopped', resource: `agent:${started.body.agentId}`, sequence: 2, data: { ...echo, reason: 'stopped by request' } })
    expect(c).toMatchObject({ type: 'agent.failed', sequence: 1, data: { room: 'lobby', identity: 'agent@boom', provider: 'thrower', presetId: 'boom' } })
    expect(c!.data.reason).toEqual(expect.any(String))
  })

  it('delivers every event, none twice, in order per resource, while the receiver fails first attempts (driven clock)', async () => {
    const clock = new ManualClock(Date.now())
    const { t, receiver } = await setup({ clock })
    // Fail the first attempt of every third event and the first two of every seventh.
    let n = 0
    const plan = new Map<string, number>()
    receiver.respond = (r) => {
      if (!plan.has(r.event.id)) plan.set(r.event.id, ++n % 7 === 0 ? 2 : n % 3 === 0 ? 1 : 0)
      return r.attempt <= plan.get(r.event.id)! ? 500 : 204
    }
    const ws = await t.workspaceWithEndpoint(receiver)
    const clients = Array.from({ length: 8 }, (_, i) => `dev-${i}`)
    for (const [i, id] of clients.entries()) ws.addClient(id, `room-${i % 3}`)
    const sessions = []
    for (const id of clients) sessions.push((await t.connect(ws.workspaceId, id)).session)
    // Room switches, a rename, a token revocation, a device password reset, a deletion, disconnects.
    for (const id of clients.slice(0, 4)) expect((await ws.api.patch(`/clients/${id}`, { room: 'room-9' })).status).toBe(200)
    expect((await ws.api.patch('/clients/dev-5', { name: 'Five' })).status).toBe(200)
    const issued = await t.engine.host.security.tokens.issue(ws.workspaceId, 'dev-6', null)
    t.engine.host.security.tokens.revoke(ws.workspaceId, issued.jti)
    t.engine.host.security.devicePasswords.reset(ws.workspaceId, 'dev-6')
    for (const s of sessions.slice(0, 6)) s.end()
    expect((await ws.api.delete('/clients/dev-7')).status).toBe(200)
    await t.engine.host.webhookOutbox.flush()

    const total = eventRows(t)
    expect(total).toBeGreaterThan(40)
    // Walk the clock through the retry schedule; each step lets the due retries go out.
    // Retries 5 s then 30 s (± jitter) after a failure, a lane's next event only after its previous one:
    // the clock moves to each retry as it falls due, and never waits in real time.
    const started = clock.now()
    const steps = await t.runRetries(clock, 10 * 60_000)
    expect(steps).toBeGreaterThan(1)
    expect(clock.now() - started).toBeGreaterThan(RETRY_DELAYS_MS[0]! * 0.8)
    expect(clock.now() - started).toBeLessThan(4 * 60_000)
    await receiver.acceptedCount(total)
    expect(t.worker().pendingCount).toBe(0)
    await t.engine.host.storage.batch(() => null)
    expect(pendingRows(t)).toBe(0)
    const byResource = checkOrderedAndComplete(receiver.accepted.items)
    // Every request was signed and verified; failed first attempts were retried.
    expect(receiver.requests.items.every((r) => r.verifiedBy.length === 1)).toBe(true)
    expect(receiver.requests.items.filter((r) => r.status === 500).length).toBeGreaterThan(10)
    const types = new Set(receiver.accepted.items.map((e) => e.type))
    for (const type of ['client.created', 'client.connected', 'client.disconnected', 'client.room_changed', 'room.started', 'room.finished', 'client.updated', 'client.deleted', 'token.revoked', 'device_password.reset']) {
      expect(types, type).toContain(type)
    }
    // Per client: created, connected, (room_changed), …, in the order they happened.
    const dev0 = byResource.get('client:dev-0')!.map((e: ReceivedEvent) => e.type)
    expect(dev0).toEqual(['client.created', 'client.connected', 'client.updated', 'client.room_changed', 'client.disconnected'])
    const dev6 = byResource.get('client:dev-6')!.map((e) => e.type)
    expect(dev6.slice(0, 2)).toEqual(['client.created', 'client.connected'])
    expect(dev6).toContain('token.revoked')
    expect(dev6).toContain('device_password.reset')
    expect(WEBHOOK_EVENT_TYPES.length).toBe(19)
  })
})
