import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../log.js'
import { startTestEngine, tempDir } from '../test/helpers.js'
import { BackgroundCheckpoints, LAZY_START_PAGES, RESTART_ANYWAY_FACTOR, SQLITE_AUTOCHECKPOINT_PAGES, type CheckpointReport } from './checkpointer.js'
import { Database } from './libsql.js'
import { openStorage, type StorageShape } from './storage.js'

const log = createLogger('silent')
const autocheckpoint = (s: StorageShape) => Number((s.db.pragma('wal_autocheckpoint') as Array<{ wal_autocheckpoint: number }>)[0]!.wal_autocheckpoint)

const open: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close()
})

const fixture = () => {
  const dir = tempDir('hark-checkpoint-')
  const storage = openStorage(join(dir.path, 'hark.db'))
  open.push(dir.remove, () => storage.close())
  return { dir, storage }
}

/** Rows of ~3.5 KB each: one WAL page apiece, so `n` rows take the log past `n` pages. */
const writePages = (storage: StorageShape, n: number) => {
  storage.db.exec('CREATE TABLE IF NOT EXISTS scratch (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
  const insert = storage.db.prepare('INSERT INTO scratch (body) VALUES (?)')
  // Commits of 100 rows, as an engine's would come: SQLite checks its threshold after each commit.
  for (let i = 0; i < n; i += 100) storage.transaction(() => {
    for (let k = 0; k < 100; k++) insert.run(String(i + k).padEnd(3500, '.'))
  })
}

describe('WAL checkpoints on a thread of their own', () => {
  it("takes checkpoints off the engine's connection and copies the log into the database file", async () => {
    const { dir, storage } = fixture()
    expect(autocheckpoint(storage)).toBe(SQLITE_AUTOCHECKPOINT_PAGES)
    const metrics = new Registry()
    const checkpoints = new BackgroundCheckpoints(storage, { intervalMs: 20, log, metrics })
    await checkpoints.start()
    open.push(() => checkpoints.stop())
    // The engine's commits no longer checkpoint, whatever the log's size.
    expect(autocheckpoint(storage)).toBe(0)
    const reports: CheckpointReport[] = []
    checkpoints.onCheckpoint((r) => reports.push(r))
    // Past SQLite's 1000-page mark twice over, while the thread's timer checkpoints beside the writes.
    writePages(storage, 2 * SQLITE_AUTOCHECKPOINT_PAGES + 200)
    // One more tick once the writes are done: by its end the last checkpoint has every page.
    await checkpoints.tickNow()
    expect(reports.length).toBeGreaterThan(0)
    expect(reports.at(-1)!.checkpointed).toBe(reports.at(-1)!.log)
    // The database file alone, without its log, has every row: the thread copied the pages in.
    const copy = join(dir.path, 'copy.db')
    copyFileSync(join(dir.path, 'hark.db'), copy)
    const alone = new Database(copy, { readonly: true })
    try {
      expect((alone.prepare('SELECT count(*) AS n FROM scratch').get() as { n: number }).n).toBe(2 * SQLITE_AUTOCHECKPOINT_PAGES + 200)
    } finally {
      alone.close()
    }
    const text = await metrics.metrics()
    expect(text).toMatch(/^hark_storage_checkpoints_total [1-9]/m)
    expect(text).toMatch(/^hark_storage_checkpoint_seconds_count [1-9]/m)
  })

  it('startOnWrites: no thread until the log holds LAZY_START_PAGES, the engine not checkpointing meanwhile; then the thread checkpoints', async () => {
    const { dir, storage } = fixture()
    const checkpoints = new BackgroundCheckpoints(storage, { intervalMs: 20, log })
    checkpoints.startOnWrites()
    open.push(() => checkpoints.stop())
    expect(checkpoints.running).toBeNull()
    expect(autocheckpoint(storage)).toBe(0)
    expect(() => checkpoints.startOnWrites()).toThrow(/already started/)
    const first = new Promise<CheckpointReport>((resolve) => checkpoints.onCheckpoint(resolve))
    const rows = Math.ceil((LAZY_START_PAGES + 1) / 100) * 100
    writePages(storage, rows)
    // The next look at the log's size starts the thread, whose first tick copies the log.
    const report = await first
    expect(checkpoints.running).not.toBeNull()
    expect(report.log).toBeGreaterThanOrEqual(LAZY_START_PAGES)
    await checkpoints.tickNow()
    const copy = join(dir.path, 'copy.db')
    copyFileSync(join(dir.path, 'hark.db'), copy)
    const alone = new Database(copy, { readonly: true })
    try {
      expect((alone.prepare('SELECT count(*) AS n FROM scratch').get() as { n: number }).n).toBe(rows)
    } finally {
      alone.close()
    }
    await checkpoints.stop()
    expect(autocheckpoint(storage)).toBe(SQLITE_AUTOCHECKPOINT_PAGES)
  })

  it('startOnWrites then stop before any write: no thread ever, the engine checkpoints again', async () => {
    const { storage } = fixture()
    const checkpoints = new BackgroundCheckpoints(storage, { intervalMs: 20, log })
    checkpoints.startOnWrites()
    await checkpoints.stop()
    expect(checkpoints.running).toBeNull()
    expect(autocheckpoint(storage)).toBe(SQLITE_AUTOCHECKPOINT_PAGES)
  })

  it('checkpoints when something was written, and not on a tick that finds nothing new', async () => {
    const { storage } = fixture()
    // Its timer out of the way: the ticks here are the test's.
    const checkpoints = new BackgroundCheckpoints(storage, { intervalMs: 10_000, log })
    await checkpoints.start()
    open.push(() => checkpoints.stop())
    const reports: CheckpointReport[] = []
    checkpoints.onCheckpoint((r) => reports.push(r))
    // The first tick checkpoints whatever the log holds (the migrations' pages).
    expect(await checkpoints.tickNow()).toBe(true)
    expect(await checkpoints.tickNow()).toBe(false)
    for (let i = 0; i < 3; i++) {
      writePages(storage, 100)
      expect(await checkpoints.tickNow()).toBe(true)
      expect(reports.at(-1)!.log).toBeGreaterThanOrEqual(100)
      expect(reports.at(-1)!.checkpointed).toBe(reports.at(-1)!.log)
      expect(await checkpoints.tickNow()).toBe(false)
    }
    expect(reports).toHaveLength(4)
  })

  it('starts the log over once the thread has copied all of it', async () => {
    const { storage } = fixture()
    const checkpoints = new BackgroundCheckpoints(storage, { intervalMs: 10_000, log, restartPages: 64 })
    await checkpoints.start()
    open.push(() => checkpoints.stop())
    const reports: CheckpointReport[] = []
    checkpoints.onCheckpoint((r) => reports.push(r))
    writePages(storage, 300)
    expect(await checkpoints.tickNow()).toBe(true)
    const long = reports.at(-1)!
    expect(long.log).toBeGreaterThanOrEqual(300)
    expect(long.checkpointed).toBe(long.log)
    // The engine's next commit finds the log all copied and writes from its start again.
    writePages(storage, 100)
    expect(await checkpoints.tickNow()).toBe(true)
    expect(reports.at(-1)!.log).toBeLessThan(long.log)
    expect(reports.at(-1)!.log).toBeGreaterThanOrEqual(100)
  })

  it('when a reader holds the log past RESTART_ANYWAY_FACTOR × restartPages, the engine copies what it can itself', async () => {
    const { dir, storage } = fixture()
    const metrics = new Registry()
    const checkpoints = new BackgroundCheckpoints(storage, { intervalMs: 10_000, log, metrics, restartPages: 16 })
    await checkpoints.start()
    open.push(() => checkpoints.stop())
    writePages(storage, 100)
    await checkpoints.tickNow()
    // Another connection reading from an old snapshot: no pass can copy what came after it.
    const reader = new Database(join(dir.path, 'hark.db'))
    open.push(() => {
      if (reader.open) reader.close()
    })
    reader.exec('BEGIN')
    reader.prepare('SELECT count(*) AS n FROM scratch').all()
    const restarts = async () => Number(/^hark_storage_wal_restarts_total (\d+)$/m.exec(await metrics.metrics())![1])
    const before = await restarts()
    writePages(storage, 16 * RESTART_ANYWAY_FACTOR + 100)
    const held: CheckpointReport[] = []
    const stopHeld = checkpoints.onCheckpoint((r) => held.push(r))
    await checkpoints.tickNow()
    stopHeld()
    expect(held.at(-1)!.checkpointed).toBeLessThan(held.at(-1)!.log)
    // The tick's last pass left the log past the cap: the engine copied what it could itself.
    expect(await restarts()).toBe(before + 1)
    // The reader gone, the next pass copies everything and the log starts over at the next commit.
    reader.exec('COMMIT')
    await checkpoints.tickNow()
    const reports: CheckpointReport[] = []
    checkpoints.onCheckpoint((r) => reports.push(r))
    writePages(storage, 100)
    await checkpoints.tickNow()
    expect(reports[0]!.log).toBeLessThan(held.at(-1)!.log)
    expect(reports[0]!.log).toBeGreaterThanOrEqual(100)
  })

  it("gives checkpoints back to the engine's connection when the thread ends, and on stop", async () => {
    const { storage } = fixture()
    const metrics = new Registry()
    const checkpoints = new BackgroundCheckpoints(storage, { intervalMs: 20, log, metrics })
    await checkpoints.start()
    expect(autocheckpoint(storage)).toBe(0)
    const fellBack = new Promise<void>((resolve) => checkpoints.onFallback(resolve))
    await checkpoints.running!.terminate()
    await fellBack
    expect(autocheckpoint(storage)).toBe(SQLITE_AUTOCHECKPOINT_PAGES)
    expect(checkpoints.running).toBeNull()
    expect(await metrics.metrics()).toMatch(/^hark_storage_checkpoint_thread_ended_total 1$/m)

    const again = new BackgroundCheckpoints(storage, { intervalMs: 20, log })
    await again.start()
    expect(autocheckpoint(storage)).toBe(0)
    await again.stop()
    expect(again.running).toBeNull()
    expect(autocheckpoint(storage)).toBe(SQLITE_AUTOCHECKPOINT_PAGES)
  })

  it('a thread that cannot start leaves SQLite checkpointing on the engine connection', async () => {
    const { storage } = fixture()
    const checkpoints = new BackgroundCheckpoints(storage, {
      intervalMs: 20,
      log,
      entry: new URL('data:text/javascript,throw new Error("no thread today")'),
    })
    await expect(checkpoints.start()).rejects.toThrow(/no thread today/)
    expect(autocheckpoint(storage)).toBe(SQLITE_AUTOCHECKPOINT_PAGES)
  })
})

describe('the engine', () => {
  it('runs the checkpoint thread on its local file (storage.walCheckpointMs), and reports it on /metrics', async () => {
    const { engine, stop } = await startTestEngine({ storage: { walCheckpointMs: 10 } })
    try {
      const { storage } = engine.host
      expect(autocheckpoint(storage)).toBe(0)
      // The thread starts once the log holds LAZY_START_PAGES; its first tick finds the writes,
      // and its report reaches /metrics.
      writePages(storage, Math.ceil((LAZY_START_PAGES + 1) / 100) * 100)
      await vi.waitFor(
        async () => {
          const text = await (await fetch(`http://127.0.0.1:${engine.ports.rest}/metrics`)).text()
          expect(text).toMatch(/^hark_storage_checkpoints_total [1-9]/m)
        },
        { timeout: 10_000, interval: 20 },
      )
    } finally {
      await stop()
    }
  })

  it('with storage.walCheckpointMs 0 checkpoints as SQLite does, on its own connection', async () => {
    const { engine, stop } = await startTestEngine({ storage: { walCheckpointMs: 0 } })
    try {
      expect(autocheckpoint(engine.host.storage)).toBe(SQLITE_AUTOCHECKPOINT_PAGES)
      const text = await (await fetch(`http://127.0.0.1:${engine.ports.rest}/metrics`)).text()
      expect(text).not.toContain('hark_storage_checkpoints_total')
    } finally {
      await stop()
    }
  })
})
