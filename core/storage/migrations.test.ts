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

  it('rolls a failing migration back and names it', () => {
    const f = file()
    const db = openDb(f)
    migrate(db)
    const bad: Migration = { version: 999, name: 'broken', sql: 'CREATE TABLE t1 (a); INSERT INTO nope VALUES (1);' }
    expect(() => migrate(db, [...migrations, bad])).toThrow(/migration 999 \(broken\) failed/)
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't1'").get()).toMatchObject({ n: 0 })
    db.close()
  })

  it('tells listeners about commits only, and other processes through polling', () => {
    const f = file()
    const a = openStorage(f)
    const b = openStorage(f)
    const heardA: string[] = []
    const heardB: string[] = []
    a.onChange((c) => heardA.push(`${c.kind}:${c.subject}`))
    b.onChange((c) => heardB.push(`${c.kind}:${c.subject}`))
    expect(() =>
      a.transaction(() => {
        a.recordChange('client.updated', 'ws', 'c1', 1)
        throw new Error('rollback')
      }),
    ).toThrow('rollback')
    expect(heardA).toEqual([])
    a.transaction(() => a.recordChange('client.updated', 'ws', 'c2', 2))
    expect(heardA).toEqual(['client.updated:c2'])
    expect(a.pollRemoteChanges()).toBe(0)
    expect(b.pollRemoteChanges()).toBe(1)
    expect(heardB).toEqual(['client.updated:c2'])
    expect(b.pollRemoteChanges()).toBe(0)
    a.close()
    b.close()
  })
})
