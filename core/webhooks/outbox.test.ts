import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ManualClock } from '../clock.js'
import { tempDir } from '../test/helpers.js'
import { openStorage, type StorageShape } from '../storage/storage.js'
import type { PendingDelivery } from '../storage/webhookOutbox.js'
import { LIVE_BATCH_MS, WebhookOutbox } from './outbox.js'

const open: Array<() => void> = []
afterEach(() => open.splice(0).forEach((f) => f()))

const setup = (subscribe = true, numbering: 'table' | 'memory' = 'table') => {
  const dir = tempDir()
  const storage = openStorage(join(dir.path, 'hark.db'))
  open.push(() => (storage.close(), dir.remove()))
  const clock = new ManualClock(Date.UTC(2026, 10, 1))
  const outbox = new WebhookOutbox(storage, clock, null, { numbering })
  outbox.install()
  storage.workspaces.insert({ workspaceId: 'ws_1', name: 'acme', createdAt: 1 })
  if (subscribe) addEndpoint(storage, 'wh_1', null)
  return { storage, clock, outbox }
}

const addEndpoint = (storage: StorageShape, webhookId: string, events: string[] | null) =>
  storage.webhookEndpoints.insert({
    webhookId, workspaceId: 'ws_1', url: `https://example.com/${webhookId}`, events, description: null, secretEnc: 'x',
    previousSecretEnc: null, previousSecretExpiresAt: null, enabled: true, disabledReason: null, failingSince: null, createdAt: 1, updatedAt: 1,
  })

const createClient = (storage: StorageShape, clientId: string, fail = false) =>
  storage.transaction(() => {
    const client = {
      workspaceId: 'ws_1', clientId, name: null, kind: null, room: 'lobby', ephemeral: false, expiresAt: null,
      tokensNotBefore: 1, createdAt: 1, updatedAt: 1,
    }
    storage.clients.insert(client)
    storage.feed.record({ kind: 'client.created', workspaceId: 'ws_1', subject: clientId, at: 1, client })
    if (fail) throw new Error('rolled back after the change was recorded')
  })

const events = (storage: StorageShape) =>
  storage.db.prepare(`SELECT type, resource, seq, body FROM webhook_deliveries
    WHERE id IN (SELECT min(id) FROM webhook_deliveries GROUP BY event_id) ORDER BY resource, seq`).all() as Array<{
    type: string; resource: string; seq: number; body: string
  }>

// The CLI and nodes on a libSQL server number events in the table, the engine on its own file from memory.
describe.each(['table', 'memory'] as const)('the webhook outbox (sequence numbers from the %s)', (numbering) => {
  it('writes a change’s event and delivery in the change’s transaction: both commit, or neither', () => {
    const { storage } = setup(true, numbering)
    createClient(storage, 'dev-1')
    expect(() => createClient(storage, 'dev-2', true)).toThrow(/rolled back/)
    expect(storage.clients.get('ws_1', 'dev-2')).toBeNull()
    const rows = events(storage)
    expect(rows.map((r) => [r.type, r.resource, r.seq])).toEqual([['client.created', 'client:dev-1', 1]])
    expect(JSON.parse(rows[0]!.body)).toMatchObject({
      type: 'client.created', workspaceId: 'ws_1', resource: 'client:dev-1', sequence: 1,
      data: { clientId: 'dev-1', name: null, kind: null, room: 'lobby', ephemeral: false },
    })
    const deliveries = storage.webhookOutbox.pendingAfter(0)
    expect(deliveries.map((d) => [d.webhookId, d.type, d.seq])).toEqual([['wh_1', 'client.created', 1]])
  })

  it('writes nothing for a workspace without a subscribed endpoint, and costs no write on the live path', async () => {
    const { storage, outbox } = setup(false, numbering)
    createClient(storage, 'dev-1')
    outbox.publish({ workspaceId: 'ws_1', type: 'room.started', at: 1, data: { room: 'lobby', clientId: 'dev-1' } })
    expect(outbox.queued).toBe(0)
    await outbox.flush()
    expect(events(storage)).toEqual([])
  })

  it('numbers a resource’s events in the order they happened, live ones queued this turn before a database change', async () => {
    const { storage, outbox } = setup(true, numbering)
    createClient(storage, 'dev-1')
    // A live event queued (not yet written), then a database change of the same client in the same turn.
    outbox.publish({ workspaceId: 'ws_1', type: 'client.connected', at: 2, data: { clientId: 'dev-1', sessionId: 's1', transport: 'websocket', room: 'lobby' } })
    storage.transaction(() => {
      const before = storage.clients.get('ws_1', 'dev-1')
      const after = storage.clients.update('ws_1', 'dev-1', { room: 'kitchen' }, 3)!
      storage.feed.record({ kind: 'client.updated', workspaceId: 'ws_1', subject: 'dev-1', at: 3, before, after })
    })
    outbox.publish({ workspaceId: 'ws_1', type: 'client.room_changed', at: 4, data: { clientId: 'dev-1', sessionId: 's1', from: 'lobby', to: 'kitchen' } })
    await outbox.flush()
    expect(events(storage).map((r) => [r.type, r.seq])).toEqual([
      ['client.created', 1], ['client.connected', 2], ['client.updated', 3], ['client.room_changed', 4],
    ])
  })

  it('puts live events back when the transaction that took them rolls back', async () => {
    const { storage, outbox } = setup(true, numbering)
    outbox.publish({ workspaceId: 'ws_1', type: 'room.started', at: 2, data: { room: 'lobby', clientId: 'dev-1' } })
    expect(() => createClient(storage, 'dev-1', true)).toThrow()
    await outbox.flush()
    expect(events(storage).map((r) => [r.type, r.resource, r.seq])).toEqual([['room.started', 'room:lobby', 1]])
  })

  it('maps revocations and password resets to their events', () => {
    const { storage } = setup(true, numbering)
    createClient(storage, 'dev-1')
    storage.transaction(() => {
      storage.issuedTokens.insert({ jti: '01JD3M5Q8T7V2XW4YZ6A9BCDEF', workspaceId: 'ws_1', clientId: 'dev-1', issuedAt: 1, expiresAt: null })
    })
    storage.transaction(() => {
      storage.issuedTokens.revoke('ws_1', '01JD3M5Q8T7V2XW4YZ6A9BCDEF', 2)
      storage.feed.record({ kind: 'token.revoked', workspaceId: 'ws_1', subject: '01JD3M5Q8T7V2XW4YZ6A9BCDEF', at: 2, clientId: 'dev-1' })
    })
    // A token Hark has no record of: no event (no client to name).
    storage.feed.record({ kind: 'token.revoked', workspaceId: 'ws_1', subject: '01JD3M5Q8T7V2XW4YZ6A9BCDEG', at: 2, clientId: null })
    storage.feed.record({ kind: 'client.tokensRevoked', workspaceId: 'ws_1', subject: 'dev-1', at: 3 })
    storage.feed.record({ kind: 'devicePassword.reset', workspaceId: 'ws_1', subject: 'dev-1', at: 4 })
    storage.feed.record({ kind: 'apikey.revoked', workspaceId: 'ws_1', subject: 'key_1', at: 5 })
    const rows = events(storage)
    expect(rows.map((r) => [r.type, r.seq, JSON.parse(r.body).data])).toEqual([
      ['client.created', 1, expect.objectContaining({ clientId: 'dev-1' })],
      ['token.revoked', 2, { clientId: 'dev-1', jti: '01JD3M5Q8T7V2XW4YZ6A9BCDEF', all: false }],
      ['token.revoked', 3, { clientId: 'dev-1', jti: null, all: true }],
      ['device_password.reset', 4, { clientId: 'dev-1' }],
    ])
  })

  /** Only the batching timer is driven by the test; turns (setImmediate) and storage run for real. */
  const withDrivenBatching = async (
    run: (t: { publish: (i: number) => void; turn: () => Promise<void>; written: Promise<void>; commits: () => number; storage: StorageShape }) => Promise<void>,
  ) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const { storage, outbox } = setup(true, numbering)
      let commits = 0
      outbox.onCommitted(() => commits++)
      const written = new Promise<void>((resolve) => outbox.onCommitted(() => resolve()))
      const publish = (i: number) =>
        outbox.publish({ workspaceId: 'ws_1', type: 'client.connected', at: 1, data: { clientId: `dev-${i}`, sessionId: `ses_${i}`, transport: 'ws', room: 'lobby' } })
      const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
      await run({ publish, turn, written, commits: () => commits, storage })
    } finally {
      vi.useRealTimers()
    }
  }

  it('groups live events of several event-loop turns into one write, made LIVE_BATCH_MS after the first', () =>
    withDrivenBatching(async ({ publish, turn, written, commits, storage }) => {
      for (let i = 0; i < 5; i++) {
        publish(i)
        // Another turn: a write per turn would commit each event on its own.
        await turn()
      }
      expect(events(storage)).toEqual([])
      vi.advanceTimersByTime(LIVE_BATCH_MS)
      await written
      expect(commits()).toBe(1)
      expect(events(storage).map((r) => r.resource)).toEqual([0, 1, 2, 3, 4].map((i) => `client:dev-${i}`))
    }))

  it('hands the deliveries of committed live events to its listeners as the table has them (ids, bodies and all)', async () => {
    const { storage, outbox } = setup(true, numbering)
    addEndpoint(storage, 'wh_2', ['client.connected'])
    // A database change's delivery first: its row comes before, and is not handed over (its change tells).
    createClient(storage, 'dev-0')
    const handed: PendingDelivery[][] = []
    outbox.onCommitted((deliveries) => handed.push([...deliveries]))
    // One write of more than one INSERT's worth of deliveries (64 rows a statement): 40 events to two endpoints, one to one.
    for (let i = 0; i < 40; i++) {
      outbox.publish({ workspaceId: 'ws_1', type: 'client.connected', at: 2, data: { clientId: `dev-${i}`, sessionId: `ses_${i}`, transport: 'ws', room: 'lobby' } })
    }
    outbox.publish({ workspaceId: 'ws_1', type: 'room.started', at: 2, data: { room: 'lobby', clientId: 'dev-0' } })
    await outbox.flush()
    const all = handed.flat()
    expect(handed).toHaveLength(1)
    expect(all).toHaveLength(81)
    expect(all.filter((d) => d.webhookId === 'wh_2')).toHaveLength(40)
    expect(all).toEqual(storage.webhookOutbox.pendingAfter(1))
    expect(storage.webhookOutbox.pendingAfter(0)[0]).toMatchObject({ id: 1, type: 'client.created' })
  })
})

describe('recording attempts', () => {
  it('writes many outcomes in few statements, each to its own delivery, untouched ones left pending', () => {
    const { storage } = setup()
    const n = 70
    for (let i = 0; i < n; i++) createClient(storage, `dev-${i}`)
    const pending = storage.webhookOutbox.pendingAfter(0)
    expect(pending).toHaveLength(n)
    const outcomes = new Map(
      pending.slice(0, n - 1).map((d, i) => [
        d.id,
        i % 2 === 0
          ? { state: 'delivered' as const, attempts: 1, nextAttemptAt: null, at: 1000 + i, status: 204, error: null, latencyMs: i }
          : { state: 'pending' as const, attempts: 2, nextAttemptAt: 9000 + i, at: 2000 + i, status: 503, error: `HTTP 503 #${i}`, latencyMs: i },
      ]),
    )
    storage.webhookOutbox.recordAttempts(outcomes)
    const rows = storage.db
      .prepare('SELECT id, state, attempts, next_attempt_at, last_attempt_at, last_status, last_error, last_latency_ms, completed_at FROM webhook_deliveries ORDER BY id')
      .all() as Array<Record<string, unknown>>
    rows.forEach((r, i) => {
      if (i === n - 1) return expect(r).toMatchObject({ state: 'pending', attempts: 0, last_attempt_at: null, completed_at: null })
      const o = outcomes.get(r.id as number)!
      expect(r).toEqual({
        id: r.id, state: o.state, attempts: o.attempts, next_attempt_at: o.nextAttemptAt, last_attempt_at: o.at, last_status: o.status,
        last_error: o.error, last_latency_ms: o.latencyMs, completed_at: o.state === 'pending' ? null : o.at,
      })
    })
    expect(storage.webhookOutbox.pendingAfter(0)).toHaveLength(n - Math.ceil((n - 1) / 2))
  })
})
