import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { systemClock } from '../../core/clock.js'
import { updateClient } from '../../core/operations/clients.js'
import { openStorage } from '../../core/storage/storage.js'
import { WebhookOutbox } from '../../core/webhooks/outbox.js'
import { checkOrderedAndComplete, WebhookReceiver } from './test/receiver.js'
import { startWebhookEngine } from './test/webhookEngine.js'

const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

const setup = async () => {
  const receiver = await WebhookReceiver.start()
  cleanup.push(() => receiver.close())
  // The engine hears another process's writes at its change poll, once a second at most here.
  const t = await startWebhookEngine({ config: { storage: { changePollMs: 1000 } } })
  cleanup.push(() => t.stop())
  return { t, receiver }
}

describe('live deliveries handed from the outbox to the worker in memory', () => {
  it('are sent without reading them back from the table', async () => {
    const { t, receiver } = await setup()
    const ws = await t.workspaceWithEndpoint(receiver)
    for (let i = 0; i < 8; i++) ws.addClient(`dev-${i}`, `room-${i % 2}`)
    // The clients' own events (client.created: database changes, read from the table) first.
    await receiver.acceptedCount(8)
    await t.worker().whenIdle()
    const reads = vi.spyOn(t.engine.host.storage.webhookOutbox, 'pendingAfter')
    const sessions = []
    for (let i = 0; i < 8; i++) sessions.push((await t.connect(ws.workspaceId, `dev-${i}`)).session)
    for (const s of sessions) s.end()
    // 8 connected, 8 disconnected, 2 rooms started and finished.
    await receiver.acceptedCount(8 + 20)
    checkOrderedAndComplete(receiver.accepted.items)
    expect(reads).not.toHaveBeenCalled()
  })

  it('a write of another process between two of the engine’s commits is delivered once, in its resource’s order', async () => {
    const { t, receiver } = await setup()
    const ws = await t.workspaceWithEndpoint(receiver)
    ws.addClient('dev-1', 'lobby')
    const { session } = await t.connect(ws.workspaceId, 'dev-1')
    // client.created, client.connected, room.started: delivered, the client's lane empty.
    await receiver.acceptedCount(3)
    await t.worker().whenIdle()
    // Another process on the same file (as `hark client update` opens it): the change and its event commit together there.
    const other = openStorage(join(t.dir, 'hark.db'))
    cleanup.push(() => other.close())
    new WebhookOutbox(other, systemClock).install()
    updateClient({ storage: other, clock: systemClock }, ws.workspaceId, 'dev-1', { name: 'Renamed' })
    // Then, before the engine's change poll hears of it, the engine commits the disconnect's events
    // and hands them over: client.disconnected must wait for client.updated, which comes before it.
    session.end()
    await receiver.acceptedCount(6)
    const dev1 = checkOrderedAndComplete(receiver.accepted.items).get('client:dev-1')!
    expect(dev1.map((e) => e.type)).toEqual(['client.created', 'client.connected', 'client.updated', 'client.disconnected'])
    expect(dev1.find((e) => e.type === 'client.updated')!.data).toMatchObject({ name: 'Renamed' })
    // The poll then hears the other process's change and reads past the cursor: nothing is sent twice.
    t.engine.host.storage.feed.poll()
    await t.worker().whenIdle()
    await t.engine.host.storage.batch(() => null)
    expect(receiver.requests.items).toHaveLength(6)
    expect((t.engine.host.storage.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'").get() as { n: number }).n).toBe(0)
  })
})
