import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ManualClock } from '../clock.js'
import { openStorage, type StorageShape } from '../storage/storage.js'
import { tempDir } from '../test/helpers.js'
import type { WebhookEventInput } from './events.js'
import { WebhookEndpoints } from './endpoints.js'
import { WebhookOutbox } from './outbox.js'
import { CachedSequences, FOLD_EVERY_MS, FOLD_SLICE } from './sequences.js'

const cleanup: Array<() => void> = []
afterEach(() => cleanup.splice(0).reverse().forEach((f) => f()))

const clock = new ManualClock(Date.UTC(2026, 10, 25))

/** An enabled endpoint of ws_1 for every type. */
const addEndpoint = (storage: StorageShape, webhookId: string) =>
  storage.webhookEndpoints.insert({
    webhookId, workspaceId: 'ws_1', url: `https://example.com/${webhookId}`, events: null, description: null, secretEnc: 'x',
    previousSecretEnc: null, previousSecretExpiresAt: null, enabled: true, disabledReason: null, failingSince: null, createdAt: 1, updatedAt: 1,
  })

/** A data dir's file with a workspace and one endpoint for every type. */
const dataFile = () => {
  const dir = tempDir()
  cleanup.push(() => dir.remove())
  const file = join(dir.path, 'hark.db')
  const storage = openStorage(file)
  storage.workspaces.insert({ workspaceId: 'ws_1', name: 'acme', createdAt: 1 })
  addEndpoint(storage, 'wh_1')
  storage.close()
  return file
}

/** A connection of its own to the file, and an outbox numbering as asked (not installed: nothing folds unless told). */
const writer = (file: string, numbering: 'memory' | 'table') => {
  const storage = openStorage(file)
  let open = true
  const close = () => {
    if (open) storage.close()
    open = false
  }
  cleanup.push(close)
  return { storage, outbox: new WebhookOutbox(storage, clock, null, { numbering }), close }
}

const connected = (clientId: string): WebhookEventInput => ({
  workspaceId: 'ws_1', type: 'client.connected', at: clock.now(), data: { clientId, sessionId: `ses_${clientId}`, transport: 'websocket', room: 'lobby' },
})
const started = (room: string): WebhookEventInput => ({ workspaceId: 'ws_1', type: 'room.started', at: clock.now(), data: { room, clientId: 'a' } })

/** Write in a transaction of its own; the numbers given, in order. */
const write = (w: { storage: StorageShape; outbox: WebhookOutbox }, events: WebhookEventInput[]) =>
  w.storage.transaction(() => w.outbox.write(events)).map((d) => `${d.resource}#${d.seq}`)

const table = (storage: StorageShape) =>
  Object.fromEntries(
    (storage.db.prepare('SELECT resource, seq FROM webhook_sequences ORDER BY resource').all() as Array<{ resource: string; seq: number }>).map(
      (r) => [r.resource, r.seq],
    ),
  )
const foldedThrough = (storage: StorageShape) =>
  (storage.db.prepare('SELECT through_id FROM webhook_sequence_fold').get() as { through_id: number }).through_id
const lastDeliveryId = (storage: StorageShape) =>
  (storage.db.prepare('SELECT max(id) AS id FROM webhook_deliveries').get() as { id: number }).id

describe('webhook sequence numbers from memory (the engine on its own file)', () => {
  it('numbers as the table does, and writes webhook_sequences only when it folds', () => {
    const engine = writer(dataFile(), 'memory')
    expect(write(engine, [connected('a'), started('r'), connected('a')])).toEqual(['client:a#1', 'room:r#1', 'client:a#2'])
    expect(write(engine, [connected('a')])).toEqual(['client:a#3'])
    expect(write(engine, [started('r'), connected('b')])).toEqual(['room:r#2', 'client:b#1'])
    expect(table(engine.storage)).toEqual({})
    expect(foldedThrough(engine.storage)).toBe(0)
    engine.outbox.foldSequences()
    expect(table(engine.storage)).toEqual({ 'client:a': 3, 'client:b': 1, 'room:r': 2 })
    expect(foldedThrough(engine.storage)).toBe(lastDeliveryId(engine.storage))
    // Memory and table agree after the fold; numbering goes on from either.
    expect(write(engine, [connected('a')])).toEqual(['client:a#4'])
    expect(write(writer(engine.storage.file, 'memory'), [connected('a'), connected('b')])).toEqual(['client:a#5', 'client:b#2'])
  })

  it('after a crash (no fold), a restart goes on from the numbers on the deliveries', () => {
    const file = dataFile()
    const engine = writer(file, 'memory')
    write(engine, [connected('a'), connected('a'), started('r')])
    engine.outbox.foldSequences()
    write(engine, [connected('a'), started('r'), connected('c')])
    engine.close() // as kill -9 leaves it: the numbers since the fold are on the deliveries only
    const restarted = writer(file, 'memory')
    expect(table(restarted.storage)).toEqual({ 'client:a': 2, 'room:r': 1 })
    expect(write(restarted, [connected('a'), started('r'), connected('c'), connected('d')])).toEqual([
      'client:a#4', 'room:r#3', 'client:c#2', 'client:d#1',
    ])
  })

  it('another connection writing the same file (the CLI) and the engine never hand out a number twice', () => {
    const file = dataFile()
    const engine = writer(file, 'memory')
    const cli = writer(file, 'table')
    expect(write(engine, [connected('a'), connected('a')])).toEqual(['client:a#1', 'client:a#2'])
    // The CLI folds the engine's numbers in before its own.
    expect(write(cli, [connected('a')])).toEqual(['client:a#3'])
    expect(table(cli.storage)).toMatchObject({ 'client:a': 3 })
    // The engine sees another connection committed and reads its numbers back.
    expect(write(engine, [connected('a'), connected('b')])).toEqual(['client:a#4', 'client:b#1'])
    engine.outbox.foldSequences()
    expect(write(cli, [connected('a'), connected('b')])).toEqual(['client:a#5', 'client:b#2'])
    expect(write(engine, [connected('b')])).toEqual(['client:b#3'])
    // Every delivery's number once, in order, whoever wrote it.
    const seqs = engine.storage.db.prepare("SELECT seq FROM webhook_deliveries WHERE resource = 'client:a' ORDER BY id").all()
    expect(seqs.map((r) => (r as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5])
  })

  it('a transaction that rolls back gives its numbers back', () => {
    const engine = writer(dataFile(), 'memory')
    expect(write(engine, [connected('a')])).toEqual(['client:a#1'])
    // Rolled back after its deliveries were written…
    expect(() => engine.storage.transaction(() => {
      engine.outbox.write([connected('a'), connected('b')])
      throw new Error('rolled back')
    })).toThrow('rolled back')
    expect(write(engine, [connected('a'), connected('b')])).toEqual(['client:a#2', 'client:b#1'])
    // …and before: a reservation whose deliveries never got written (an event that cannot be written).
    const bad = { ...connected('a'), data: { clientId: 'a', room: 'lobby', transport: 'websocket', sessionId: 1n } } as unknown as WebhookEventInput
    expect(() => write(engine, [connected('b'), bad])).toThrow()
    expect(write(engine, [connected('a'), connected('b')])).toEqual(['client:a#3', 'client:b#2'])
  })

  it('prune keeps the deliveries past the fold, the only record of their numbers', () => {
    const engine = writer(dataFile(), 'memory')
    write(engine, [connected('a'), connected('a')])
    const ids = (engine.storage.db.prepare('SELECT id FROM webhook_deliveries').all() as Array<{ id: number }>).map((r) => r.id)
    const at = clock.now()
    engine.storage.transaction(() =>
      engine.storage.webhookOutbox.recordAttempts(new Map(ids.map((id) => [id, {
        state: 'delivered' as const, attempts: 1, nextAttemptAt: null, at, status: 204, error: null, latencyMs: 1,
      }]))))
    const later = at + 30 * 86_400_000
    expect(engine.storage.webhookOutbox.prune(later)).toBe(0)
    engine.outbox.foldSequences()
    expect(engine.storage.webhookOutbox.prune(later)).toBe(2)
    expect(write(engine, [connected('a')])).toEqual(['client:a#3'])
    // A restart finds the number in the table, its deliveries gone.
    expect(write(writer(engine.storage.file, 'memory'), [connected('a')])).toEqual(['client:a#4'])
  })

  it('deleting an endpoint keeps the numbers its deliveries carried: a crash after it goes on from them', () => {
    const file = dataFile()
    const engine = writer(file, 'memory')
    expect(write(engine, [connected('a'), connected('a'), started('r')])).toEqual(['client:a#1', 'client:a#2', 'room:r#1'])
    const endpoints = new WebhookEndpoints({
      storage: engine.storage, clock, outbox: engine.outbox, secrets: { seal: (s: string) => s, open: (s: string) => s },
      policy: { allowPrivateNetworks: true }, resolve: async () => [],
    })
    endpoints.delete('ws_1', 'wh_1')
    // Its deliveries went with it (the cascade); a new endpoint, then a kill -9 before any fold of the engine's.
    expect(lastDeliveryId(engine.storage)).toBeNull()
    addEndpoint(engine.storage, 'wh_2')
    engine.close()
    expect(write(writer(file, 'memory'), [connected('a'), started('r')])).toEqual(['client:a#3', 'room:r#2'])
  })

  it('is refused on a database shared through a libSQL server', () => {
    const storage = { remote: { url: 'http://127.0.0.1:1' } } as unknown as StorageShape
    expect(() => new WebhookOutbox(storage, clock, null, { numbering: 'memory' })).toThrow(/a database of its own/)
  })
})

describe('the engine’s fold', () => {
  const cached = (w: { outbox: WebhookOutbox }) => w.outbox.sequences as CachedSequences
  const resources = (n: number) => Array.from({ length: n }, (_, i) => connected(`d${i}`))

  it('writes a slice of resources a transaction and moves the fold with the last; numbers handed out meanwhile are folded next time', () => {
    const file = dataFile()
    const engine = writer(file, 'memory')
    write(engine, resources(600))
    const through = lastDeliveryId(engine.storage)
    const seq = cached(engine)
    expect(seq.due).toBe(true)
    expect(engine.storage.transaction(() => seq.foldStep())).toBe(true)
    expect(Object.keys(table(engine.storage))).toHaveLength(FOLD_SLICE)
    expect(foldedThrough(engine.storage)).toBe(0)
    // Between two steps: d0 again, and a new one.
    expect(write(engine, [connected('d0'), connected('new')])).toEqual(['client:d0#2', 'client:new#1'])
    expect(engine.storage.transaction(() => seq.foldStep())).toBe(true)
    expect(engine.storage.transaction(() => seq.foldStep())).toBe(false)
    expect(Object.keys(table(engine.storage))).toHaveLength(600)
    expect(table(engine.storage)['client:d0']).toBe(1)
    expect(foldedThrough(engine.storage)).toBe(through)
    // What came during the fold waits for the next one; a crash now reads it back from its deliveries.
    expect(seq.due).toBe(true)
    engine.close()
    expect(write(writer(file, 'memory'), [connected('d0'), connected('new'), connected('d599')])).toEqual([
      'client:d0#3', 'client:new#2', 'client:d599#2',
    ])
  })

  it('a step whose transaction rolls back starts over, and nothing is lost', () => {
    const file = dataFile()
    const engine = writer(file, 'memory')
    write(engine, resources(300))
    const seq = cached(engine)
    engine.storage.transaction(() => seq.foldStep())
    expect(() => engine.storage.transaction(() => {
      seq.foldStep() // the last slice and the move of the fold…
      throw new Error('rolled back') // …undone
    })).toThrow('rolled back')
    seq.abortFold()
    expect(foldedThrough(engine.storage)).toBe(0)
    expect(write(engine, [connected('d299')])).toEqual(['client:d299#2'])
    while (engine.storage.transaction(() => seq.foldStep()));
    expect(Object.keys(table(engine.storage))).toHaveLength(300)
    expect(table(engine.storage)['client:d299']).toBe(2)
    expect(foldedThrough(engine.storage)).toBe(lastDeliveryId(engine.storage))
    expect(seq.due).toBe(false)
  })

  it('runs every FOLD_EVERY_MS once installed, and folds the rest when removed (shutdown)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      const engine = writer(dataFile(), 'memory')
      const uninstall = engine.outbox.install()
      write(engine, resources(FOLD_SLICE + 10))
      vi.advanceTimersByTime(FOLD_EVERY_MS)
      await vi.waitFor(() => expect(foldedThrough(engine.storage)).toBe(lastDeliveryId(engine.storage)))
      expect(Object.keys(table(engine.storage))).toHaveLength(FOLD_SLICE + 10)
      write(engine, [connected('late')])
      uninstall()
      expect(table(engine.storage)['client:late']).toBe(1)
      expect(foldedThrough(engine.storage)).toBe(lastDeliveryId(engine.storage))
    } finally {
      vi.useRealTimers()
    }
  })
})
