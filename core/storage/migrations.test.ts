import { afterEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { tempDir } from '../test/helpers.js'
import { openDb } from './db.js'
import { migrate, migrations, type Migration } from './migrations.js'
import { openStorage } from './storage.js'

const dirs: Array<() => void> = []
afterEach(() => dirs.splice(0).forEach((remove) => remove()))
const file = () => {
  const d = tempDir()
  dirs.push(d.remove)
  return join(d.path, 'hark.db')
}

describe('migrations', () => {
  it('creates the schema on a new file in WAL mode and records the version', () => {
    const f = file()
    const db = openDb(f)
    expect(migrate(db)).toEqual(migrations.map((m) => m.version))
    expect((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal')
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as Array<{ name: string }>).map((t) => t.name)
    for (const t of ['workspaces', 'api_keys', 'signing_secrets', 'clients', 'device_passwords', 'issued_tokens', 'usage_daily', 'agent_presets', 'changes']) {
      expect(tables).toContain(t)
    }
    expect(migrate(db)).toEqual([])
    db.close()
  })

  it('applies only newer migrations to an existing file and keeps its data', () => {
    const f = file()
    const s = openStorage(f)
    s.workspaces.insert({ workspaceId: 'ws_1', name: 'acme', createdAt: 1 })
    s.close()

    const next: Migration = {
      version: migrations[migrations.length - 1]!.version + 1,
      name: 'test column',
      sql: 'ALTER TABLE workspaces ADD COLUMN plan TEXT NOT NULL DEFAULT \'free\'',
    }
    const db = openDb(f)
    expect(migrate(db, [...migrations, next])).toEqual([next.version])
    expect(db.prepare('SELECT workspace_id, name, plan FROM workspaces').all()).toMatchObject([
      { workspace_id: 'ws_1', name: 'acme', plan: 'free' },
    ])
    db.close()
  })

  it('refuses a database whose schema is newer than this build knows, naming both versions, and changes nothing', () => {
    const f = file()
    const s = openStorage(f)
    s.workspaces.insert({ workspaceId: 'ws_1', name: 'acme', createdAt: 1 })
    s.close()
    const newest = migrations[migrations.length - 1]!.version
    const older = migrations.slice(0, -1)
    const db = openDb(f)
    expect(() => migrate(db, older)).toThrow(`the database's schema is version ${newest}, newer than this Hark knows (${newest - 1})`)
    expect(db.prepare('SELECT max(version) AS v FROM schema_migrations').get()).toMatchObject({ v: newest })
    expect(db.prepare('SELECT name FROM workspaces').all()).toEqual([{ name: 'acme' }])
    db.close()
  })

  it('rolls a failing migration back and names it', () => {
    const f = file()
    const db = openDb(f)
    migrate(db)
    const bad: Migration = { version: 999, name: 'broken', sql: 'CREATE TABLE t1 (a); INSERT INTO nope VALUES (1);' }
    expect(() => migrate(db, [...migrations, bad])).toThrow(/migration 999 \(broken\) failed/)
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't1'").get()).toMatchObject({ n: 0 })
    db.close()
  })

  it('8 drops the delivery indexes only the hot path used; deliveries pending before the upgrade are read, by id and per endpoint, and the prune keeps to its rule', () => {
    const f = file()
    const db = openDb(f)
    migrate(db, migrations.filter((m) => m.version <= 7))
    const day = 86_400_000
    const now = 30 * day
    db.exec(`INSERT INTO workspaces (workspace_id, name, created_at) VALUES ('ws_1', 'acme', 1);
      INSERT INTO webhook_endpoints (webhook_id, workspace_id, url, secret_enc, created_at, updated_at) VALUES ('wh_1', 'ws_1', 'https://example.com/h', 'x', 1, 1)`)
    const event = db.prepare('INSERT INTO webhook_events (event_id, workspace_id, type, resource, seq, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    const delivery = db.prepare(`INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_id, workspace_id, resource, seq, state, next_attempt_at, created_at, completed_at)
      VALUES (?, 'wh_1', ?, 'ws_1', 'client:dev-1', ?, ?, ?, ?, ?)`)
    // Delivered 10 days ago, delivered an hour ago, pending for 8 days (a disabled endpoint), pending now.
    const rows = [
      { seq: 1, state: 'delivered', created: now - 10 * day, completed: now - 10 * day },
      { seq: 2, state: 'delivered', created: now - 3_600_000, completed: now - 3_600_000 },
      { seq: 3, state: 'pending', created: now - 8 * day, completed: null },
      { seq: 4, state: 'pending', created: now, completed: null },
    ]
    for (const r of rows) {
      event.run(`evt_${r.seq}`, 'ws_1', 'client.connected', 'client:dev-1', r.seq, `{"sequence":${r.seq}}`, r.created)
      delivery.run(`dlv_${r.seq}`, `evt_${r.seq}`, r.seq, r.state, r.state === 'pending' ? r.created : null, r.created, r.completed)
    }
    db.close()

    const s = openStorage(f)
    const indexes = (s.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_deliveries'").all() as Array<{ name: string }>).map((r) => r.name)
    expect(indexes).not.toContain('webhook_deliveries_pending')
    expect(indexes).not.toContain('webhook_deliveries_completed')
    expect(indexes).toContain('webhook_deliveries_by_webhook')
    expect(s.webhookOutbox.pendingAfter(0).map((d) => [d.deliveryId, d.body])).toEqual([['dlv_3', '{"sequence":3}'], ['dlv_4', '{"sequence":4}']])
    expect(s.webhookOutbox.pendingOf('wh_1').map((d) => d.seq)).toEqual([3, 4])
    // Kept 7 days once completed: only the delivery completed 10 days ago goes; pending ones stay, however old.
    expect(s.webhookOutbox.prune(now - 7 * day)).toBe(1)
    expect((s.db.prepare('SELECT seq FROM webhook_deliveries ORDER BY id').all() as Array<{ seq: number }>).map((r) => r.seq)).toEqual([2, 3, 4])
    s.close()
    // An endpoint's pending rows (a gained cluster lease) go through by_webhook. (On a connection of
    // its own: after an EXPLAIN, libSQL's checkpoint at close finds the table locked.)
    const check = openDb(f)
    const plan = (check.prepare(`EXPLAIN QUERY PLAN SELECT id FROM webhook_deliveries WHERE webhook_id = 'wh_1' AND state = 'pending' ORDER BY id`).all() as Array<{ detail: string }>)
    expect(plan.map((r) => r.detail).join('; ')).toMatch(/USING INDEX webhook_deliveries_by_webhook/)
    check.close()
  })

  it('9 moves each event onto its deliveries: every endpoint’s delivery keeps the event’s id, type and body, pending ones are sent, and the events table goes', () => {
    const f = file()
    const db = openDb(f)
    migrate(db, migrations.filter((m) => m.version <= 8))
    db.exec(`INSERT INTO workspaces (workspace_id, name, created_at) VALUES ('ws_1', 'acme', 1);
      INSERT INTO webhook_endpoints (webhook_id, workspace_id, url, secret_enc, created_at, updated_at) VALUES
        ('wh_1', 'ws_1', 'https://a.example/h', 'x', 1, 1), ('wh_2', 'ws_1', 'https://b.example/h', 'x', 1, 1);
      INSERT INTO webhook_events (event_id, workspace_id, type, resource, seq, body, created_at) VALUES
        ('evt_1', 'ws_1', 'client.created', 'client:dev-1', 1, '{"n":1}', 5),
        ('evt_2', 'ws_1', 'client.deleted', 'client:dev-1', 2, '{"n":2}', 6);
      INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_id, workspace_id, resource, seq, state, next_attempt_at, created_at, completed_at) VALUES
        ('dlv_1a', 'wh_1', 'evt_1', 'ws_1', 'client:dev-1', 1, 'delivered', NULL, 5, 7),
        ('dlv_1b', 'wh_2', 'evt_1', 'ws_1', 'client:dev-1', 1, 'pending', 5, 5, NULL),
        ('dlv_2a', 'wh_1', 'evt_2', 'ws_1', 'client:dev-1', 2, 'pending', 6, 6, NULL)`)
    db.close()

    const s = openStorage(f)
    expect(s.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'webhook_events'").get()).toMatchObject({ n: 0 })
    expect(s.webhookOutbox.pendingAfter(0).map((d) => [d.deliveryId, d.eventId, d.type, d.body])).toEqual([
      ['dlv_1b', 'evt_1', 'client.created', '{"n":1}'],
      ['dlv_2a', 'evt_2', 'client.deleted', '{"n":2}'],
    ])
    expect(s.webhookOutbox.get('ws_1', 'wh_1', 'dlv_1a')).toMatchObject({ eventId: 'evt_1', type: 'client.created', state: 'delivered' })
    // A delivered one’s body is still there to send again.
    expect(s.webhookOutbox.body('ws_1', 'wh_1', 'dlv_1a')).toBe('{"n":1}')
    expect(s.webhookOutbox.body('ws_1', 'wh_2', 'dlv_1a')).toBeNull()
    s.close()
  })

  it('10 records that webhook_sequences is current through the last delivery (every writer kept it so until now): numbering goes on from it', () => {
    const f = file()
    const db = openDb(f)
    migrate(db, migrations.filter((m) => m.version <= 9))
    db.exec(`INSERT INTO workspaces (workspace_id, name, created_at) VALUES ('ws_1', 'acme', 1);
      INSERT INTO webhook_endpoints (webhook_id, workspace_id, url, secret_enc, created_at, updated_at) VALUES ('wh_1', 'ws_1', 'https://a.example/h', 'x', 1, 1);
      INSERT INTO webhook_sequences (workspace_id, resource, seq) VALUES ('ws_1', 'client:dev-1', 2);
      INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_id, workspace_id, resource, seq, type, body, state, next_attempt_at, created_at, completed_at) VALUES
        ('dlv_1', 'wh_1', 'evt_1', 'ws_1', 'client:dev-1', 1, 'client.created', '{}', 'delivered', NULL, 5, 7),
        ('dlv_2', 'wh_1', 'evt_2', 'ws_1', 'client:dev-1', 2, 'client.deleted', '{}', 'pending', 6, 6, NULL)`)
    db.close()

    const s = openStorage(f)
    expect(s.db.prepare('SELECT through_id FROM webhook_sequence_fold').all()).toEqual([{ through_id: 2 }])
    expect(s.webhookOutbox.numberedSinceFold()).toEqual([])
    expect(s.webhookOutbox.storedSequences('ws_1', ['client:dev-1', 'client:dev-2'])).toEqual([{ resource: 'client:dev-1', seq: 2 }])
    expect(s.transaction(() => s.webhookOutbox.reserveSequences([{ workspaceId: 'ws_1', resource: 'client:dev-1', n: 1 }]))).toEqual(
      new Map([['ws_1\u0000client:dev-1', 3]]))
    s.close()
  })

  it('11 gives change rows a format and a payload: rows already there keep format 0 and no payload, and are read past them', () => {
    const f = file()
    const db = openDb(f)
    migrate(db, migrations.filter((m) => m.version <= 10))
    db.exec(`INSERT INTO changes (origin, workspace_id, kind, subject, at) VALUES ('old:1:x', 'ws_1', 'client.deleted', 'dev-1', 5)`)
    db.close()

    const s = openStorage(f)
    expect(s.changes.since(0)).toEqual([
      { id: 1, origin: 'old:1:x', workspaceId: 'ws_1', kind: 'client.deleted', subject: 'dev-1', at: 5, format: 0, payload: null },
    ])
    // A storage opened after them starts reading past them.
    expect(s.feed.poll()).toBe(0)
    s.close()
  })
})
