import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/index.js'
import { createLogger } from '../../core/log.js'
import { DISABLE_AFTER_FAILING_MS, GIVE_UP_AFTER_MS, RETRY_DELAYS_MS, RETRY_EVERY_MS } from './schedule.js'
import { WebhookReceiver } from './test/receiver.js'
import { startWebhookEngine } from './test/webhookEngine.js'

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

const HOUR = 3_600_000

const setup = async (clock: ManualClock, random?: () => number) => {
  const receiver = await WebhookReceiver.start()
  // The engine's clock runs days ahead of real time here: check signatures, not the timestamp window.
  receiver.verify = 'signature'
  cleanup.push(() => receiver.close())
  const lines: string[] = []
  const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) })
  // A day passes on this clock: the change poll at its slowest keeps the periodic chores few.
  const t = await startWebhookEngine({ clock, logger: createLogger('info', sink), config: { storage: { changePollMs: 1000 } }, plugin: { random } })
  cleanup.push(() => t.stop())
  return { t, receiver, lines }
}

describe('retries, dead letters and disabling (driven clock)', () => {
  it('retries on the 5 s, 30 s, 2 min, 10 min, 1 h, 2 h… schedule, holds the resource’s next event, dead-letters after 24 h, then redelivers', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 9))
    // No jitter here (its bounds are schedule.test.ts's): the schedule's own figures, exactly.
    const { t, receiver } = await setup(clock, () => 0.5)
    receiver.respond = () => 503
    const ws = await t.workspaceWithEndpoint(receiver)
    ws.addClient('dev-1', 'lobby') // client.created, seq 1
    expect((await ws.api.patch('/clients/dev-1', { name: 'One' })).status).toBe(200) // client.updated, seq 2, same resource
    ws.addClient('dev-2') // another resource: not held up
    await t.engine.host.webhookOutbox.flush()
    const created0 = clock.now()
    await t.runRetries(clock, GIVE_UP_AFTER_MS + HOUR)

    const first = receiver.requests.items.filter((r) => r.event.resource === 'client:dev-1' && r.event.sequence === 1)
    const second = receiver.requests.items.filter((r) => r.event.resource === 'client:dev-1' && r.event.sequence === 2)
    // Every attempt of seq 1 came before the first attempt of seq 2: order per resource held.
    const lastOfFirst = receiver.requests.items.lastIndexOf(first[first.length - 1]!)
    expect(receiver.requests.items.indexOf(second[0]!)).toBeGreaterThan(lastOfFirst)
    // The other client's event went on its own (its attempts interleave with dev-1's).
    const dev2 = receiver.requests.items.filter((r) => r.event.resource === 'client:dev-2')
    expect(receiver.requests.items.indexOf(dev2[0]!)).toBeLessThan(lastOfFirst)

    // The gaps between attempts follow the schedule within its jitter.
    const times = first.map((r) => Number(r.headers['webhook-timestamp']) * 1000)
    expect(times[0]).toBe(created0)
    const gaps = times.slice(1).map((t0, i) => t0 - times[i]!)
    // 5 s, 30 s, 2 min, 10 min, 1 h, then every 2 h while the next attempt stays within 24 h: 17 attempts
    // (the last at 23 h 12 min 35 s; one more would be at 25 h 12 min).
    expect(gaps).toEqual([...RETRY_DELAYS_MS, ...Array(11).fill(RETRY_EVERY_MS)])
    expect(first).toHaveLength(17)
    expect(times[16]! - created0).toBe(23 * HOUR + 12 * 60_000 + 35_000)

    await t.engine.host.storage.batch(() => null)
    const page = await ws.api.get(`/webhooks/${ws.webhookId}/deliveries?limit=100`)
    const dead = page.body.deliveries.find((d: { resource: string; sequence: number }) => d.resource === 'client:dev-1' && d.sequence === 1)
    expect(dead).toMatchObject({ status: 'dead', attempts: first.length, responseStatus: 503, error: 'HTTP 503', nextAttemptAt: null })
    expect(dead.completedAt).not.toBeNull()
    const metrics = await (await fetch(t.url('/metrics'))).text()
    expect(metrics).toMatch(/hark_webhook_deliveries_total\{result="dead"\} [1-9]/)
    expect(metrics).toMatch(/hark_webhook_attempts_total\{result="http_error"\} [1-9]/)

    // Redelivery: a fresh delivery of the same event (same webhook-id), accepted now.
    receiver.respond = () => 200
    const again = await ws.api.post(`/webhooks/${ws.webhookId}/deliveries/${dead.deliveryId}/redeliver`)
    expect(again.status).toBe(202)
    const accepted = await receiver.accepted.next((e) => e.id === dead.eventId)
    expect(accepted).toMatchObject({ type: 'client.created', sequence: 1, resource: 'client:dev-1' })
  })

  it('disables an endpoint that failed for 3 days (audit line in the log), writes no new deliveries for it, and resumes once enabled', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 9))
    const { t, receiver, lines } = await setup(clock)
    receiver.respond = () => 500
    const ws = await t.workspaceWithEndpoint(receiver)
    ws.addClient('dev-1')
    await t.engine.host.webhookOutbox.flush()
    const start = clock.now()
    await t.worker().whenIdle()
    expect(receiver.requests.items).toHaveLength(1) // failing since now
    // The wall clock jumps (no retry in between matters here): a failure just short of 3 days keeps it…
    const failNow = async (clientId: string) => {
      ws.addClient(clientId)
      await t.engine.host.webhookOutbox.flush()
      await t.attempts.next((a) => a.delivery.resource === `client:${clientId}`)
      // Outcomes are written once the worker is idle (other retries may still be in flight).
      await t.worker().whenIdle()
      await t.engine.host.storage.batch(() => null)
    }
    clock.set(start + DISABLE_AFTER_FAILING_MS - 60_000)
    await failNow('dev-2')
    expect((await ws.api.get(`/webhooks/${ws.webhookId}`)).body.enabled).toBe(true)
    // …and the first failure past 3 days disables it.
    clock.set(start + DISABLE_AFTER_FAILING_MS + 60_000)
    await failNow('dev-3')
    await t.engine.host.storage.batch(() => null)
    const view = (await ws.api.get(`/webhooks/${ws.webhookId}`)).body
    expect(view.enabled).toBe(false)
    expect(view.disabledReason).toMatch(/failed for 3 days/)
    const audit = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.audit === true)
    expect(audit).toMatchObject({ action: 'webhook.disabled', webhookId: ws.webhookId, workspaceId: ws.workspaceId, msg: 'webhook endpoint disabled' })

    // Disabled: new events write no delivery for it, and nothing is attempted.
    const before = receiver.requests.items.length
    const deliveries = () => (t.engine.host.storage.db.prepare('SELECT count(*) AS n FROM webhook_deliveries').get() as { n: number }).n
    const count = deliveries()
    ws.addClient('after-disable')
    await t.engine.host.webhookOutbox.flush()
    expect(deliveries()).toBe(count)
    clock.advance(15 * 60_000)
    await t.worker().whenIdle()
    expect(receiver.requests.items.length).toBe(before)

    // Enabled again (the receiver healthy): what is still pending goes out.
    receiver.respond = () => 200
    expect((await ws.api.patch(`/webhooks/${ws.webhookId}`, { enabled: true })).body.enabled).toBe(true)
    await t.runRetries(clock, HOUR)
    await t.worker().whenIdle()
    expect(receiver.accepted.items.length).toBeGreaterThan(0)
    expect(t.worker().pendingCount).toBe(0)
  })
})
