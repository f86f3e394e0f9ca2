/**
 * The database on a libSQL server (sqld): this node keeps an embedded replica file, reads it
 * locally and sends its writes to the primary (spec/cluster.md, "Shared state").
 *
 * Two connections on the replica file:
 *  - the **writer**, libSQL's embedded replica (`new Database(file, { syncUrl, authToken })`):
 *    every write and every transaction goes through it to the primary (write delegation; a
 *    transaction is `BEGIN IMMEDIATE`, so its reads run on the primary too and see its writes),
 *    and it pulls the primary's log into the file (`sync`, read-your-writes after each write);
 *  - the **reader**, a plain local connection on the same file: every read outside a transaction.
 *    It sees what the writer pulled in, never waits on the network, and stays usable when a
 *    transaction was cut off by the primary's failure (libSQL then keeps the writer inside a
 *    remote transaction until it is reopened).
 *
 * The primary is "available" until a write or a sync fails to reach it; then writes are refused
 * at once with StorageUnavailable (nothing is sent) until a sync succeeds again. Reads go on from
 * the replica throughout.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { ConfigError } from '../configError.js'
import { StorageFailure, StorageUnavailable } from '../errors.js'
import { randomBase62 } from '../ids.js'
import type { Db, Statement } from './db.js'
import { AsyncDatabase, Database, type Native } from './libsql.js'

type NativeStatement = Statement

/** How long a sync may take before the primary counts as unreachable (bounds real network I/O). */
export const SYNC_TIMEOUT_MS = 2000

export interface RemoteDatabase {
  /** `libsql://…` (TLS) or `http(s)://…` of the primary. */
  readonly url: string
  readonly authToken: string | null
}

export interface PrimaryState {
  readonly available: boolean
  /** Why it is unavailable (the last transport error), or null. */
  readonly reason: string | null
}

/** Errors of the way to the primary (not of the SQL): connection refused, timeouts, auth refused. */
const TRANSPORT_ERROR =
  /^(WriteDelegation|Replication|Hrana|Sync)\(|sync error|error trying to connect|connection (refused|reset|closed)|PrimaryHandshakeTimeout|transport error|broken pipe|Unauthenticated|PermissionDenied/i

export const isTransportError = (e: unknown): boolean => e instanceof Error && TRANSPORT_ERROR.test(e.message)

/** Reads: run on the reader outside transactions. Everything else goes to the primary. */
const READ = /^\s*(SELECT|PRAGMA|EXPLAIN)\b/i

const firstLine = (e: unknown) => String(e instanceof Error ? e.message : e).split('\n')[0]!.slice(0, 300)

/** The embedded replica's sync, without blocking the event loop (libsql/promise's sync on the same handle). */
const syncInBackground = (writer: Native): Promise<unknown> =>
  (AsyncDatabase.prototype.sync as (this: Native) => Promise<unknown>).call(writer)

class ReplicaStatement implements Statement {
  private onReader: NativeStatement | undefined
  private onWriter: NativeStatement | undefined
  private writerGeneration = -1

  constructor(
    private readonly db: ReplicaDb,
    private readonly sql: string,
    private readonly read: boolean,
  ) {}

  private writer(): NativeStatement {
    if (this.writerGeneration !== this.db.generation) {
      this.onWriter = this.db.writerHandle().prepare(this.sql)
      this.writerGeneration = this.db.generation
    }
    return this.onWriter!
  }

  private reader(): NativeStatement {
    return (this.onReader ??= this.db.readerHandle().prepare(this.sql))
  }

  private local(): boolean {
    return this.read && !this.db.inTransaction
  }

  run(...params: unknown[]) {
    if (this.local()) return this.reader().run(...params)
    return this.db.remote(() => this.writer().run(...params))
  }

  get(...params: unknown[]): unknown {
    if (this.local()) return this.reader().get(...params)
    // Reads reach the writer only inside a transaction, where libSQL runs them on the primary. Were
    // one run locally, get() would leave the statement open, holding a stale read snapshot
    // (libsql 0.5); all() runs it to its end either way.
    return this.db.remote(() => this.writer().all(...params)[0])
  }

  all(...params: unknown[]): unknown[] {
    if (this.local()) return this.reader().all(...params)
    return this.db.remote(() => this.writer().all(...params))
  }
}

export class ReplicaDb implements Db {
  /** Bumped when the writer is reopened: statements prepare again on the new one. */
  generation = 0
  private writer: Native
  private readonly reader: Native
  private depth = 0
  /** A transaction was cut off by a transport failure: reopen the writer once the primary answers. */
  private broken = false
  private state: PrimaryState = { available: true, reason: null }
  private readonly listeners = new Set<(state: PrimaryState) => void>()
  private pendingSync: Promise<unknown> | null = null

  private readonly unlock: () => void

  constructor(
    readonly file: string,
    private readonly remoteDb: RemoteDatabase,
  ) {
    this.unlock = lockReplica(file)
    try {
      this.writer = this.openWriter()
      this.writer.sync()
      this.reader = new Database(file)
      this.reader.pragma('busy_timeout = 5000')
      this.reader.pragma('query_only = ON')
    } catch (e) {
      this.unlock()
      throw e
    }
  }

  private openWriter(): Native {
    // libsql's Options type lacks authToken; the constructor reads it (libsql/index.js).
    const options = { syncUrl: this.remoteDb.url, authToken: this.remoteDb.authToken ?? '' } as ConstructorParameters<typeof Database>[1]
    return new Database(this.file, options)
  }

  get primary(): PrimaryState {
    return this.state
  }

  /** Hear the primary go (with the reason) and come back; returns the unsubscribe function. */
  onPrimary(listener: (state: PrimaryState) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private setState(available: boolean, reason: string | null): void {
    const changed = available !== this.state.available
    this.state = { available, reason }
    if (changed) for (const listener of this.listeners) listener(this.state)
  }

  get inTransaction(): boolean {
    return this.depth > 0
  }

  writerHandle(): Native {
    return this.writer
  }

  readerHandle(): Native {
    return this.reader
  }

  private down(cause: unknown): never {
    this.setState(false, firstLine(cause))
    throw new StorageUnavailable({ message: 'the database primary is unreachable; try again later', cause })
  }

  /** Run `f` against the primary: refused while it is unavailable, StorageUnavailable when it cannot be reached. */
  remote<A>(f: () => A): A {
    if (!this.state.available) {
      throw new StorageUnavailable({ message: 'the database primary is unreachable; try again later' })
    }
    try {
      return f()
    } catch (e) {
      if (isTransportError(e)) {
        if (this.depth > 0) this.broken = true
        this.down(e)
      }
      throw e
    }
  }

  prepare(sql: string): Statement {
    return new ReplicaStatement(this, sql, READ.test(sql))
  }

  /**
   * Reads outside a transaction run on the reader; everything else on the primary. Every BEGIN
   * becomes BEGIN IMMEDIATE: a transaction runs whole on the primary, so its reads see its writes.
   */
  exec(sql: string): void {
    if (this.depth === 0 && READ.test(sql)) {
      this.reader.exec(sql)
      return
    }
    const begins = /^\s*BEGIN\b/i.test(sql)
    const ends = /^\s*(COMMIT|END|ROLLBACK)\b/i.test(sql)
    try {
      this.remote(() => this.writer.exec(begins ? 'BEGIN IMMEDIATE' : sql))
    } catch (e) {
      // A COMMIT or ROLLBACK that did not reach the primary leaves the writer inside the
      // transaction; sqld drops it with the connection. The writer is reopened once it answers.
      if (ends && e instanceof StorageUnavailable) this.broken = true
      throw e
    } finally {
      if (ends) this.depth = Math.max(0, this.depth - 1)
    }
    if (begins) this.depth++
  }

  pragma(source: string): unknown {
    return this.reader.pragma(source)
  }

  /** `transaction(f)()`: f in one transaction on the primary, rolled back if it throws. */
  transaction<A>(f: () => A): () => A {
    return () => {
      this.exec('BEGIN IMMEDIATE')
      try {
        const result = f()
        this.exec('COMMIT')
        return result
      } catch (e) {
        if (this.depth > 0 || !(e instanceof StorageUnavailable)) {
          try {
            this.exec('ROLLBACK')
          } catch {
            // unreachable primary: the transaction is gone with the connection (see exec)
          }
        }
        throw e
      }
    }
  }

  /**
   * Pull the primary's log into the replica file, off the event loop. A sync that fails, or has not
   * finished within SYNC_TIMEOUT_MS, makes the primary unavailable (it keeps running; the next
   * refresh waits for it rather than starting another); one that succeeds makes it available
   * again, reopening the writer first when a transaction was cut off.
   */
  async refresh(): Promise<void> {
    // A sync begun before this call (one that outlasted SYNC_TIMEOUT_MS) is waited for, not
    // doubled; if it fails, a fresh one is tried: the primary may have come back meanwhile.
    let inherited = this.pendingSync !== null
    for (;;) {
      const sync = (this.pendingSync ??= syncInBackground(this.writer).finally(() => (this.pendingSync = null)))
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), SYNC_TIMEOUT_MS)
      })
      try {
        const outcome = await Promise.race([sync.then(() => 'synced' as const), timedOut])
        if (outcome === 'synced') break
        this.setState(false, `sync did not finish within ${SYNC_TIMEOUT_MS} ms`)
        return
      } catch (e) {
        if (inherited) {
          inherited = false
          continue
        }
        this.setState(false, firstLine(e))
        return
      } finally {
        clearTimeout(timer)
      }
    }
    if (this.broken) {
      try {
        this.writer.close()
      } catch {
        // closing a writer stuck in a remote transaction may fail; it is replaced either way
      }
      try {
        this.writer = this.openWriter()
      } catch (e) {
        this.setState(false, firstLine(e))
        return
      }
      this.generation++
      this.broken = false
    }
    this.setState(true, null)
  }

  close(): void {
    try {
      this.reader.close()
      this.writer.close()
    } catch (e) {
      throw new StorageFailure({ message: 'storage: closing the replica failed', cause: e })
    } finally {
      this.unlock()
    }
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/**
 * One user per replica file: `<file>.lock` holds the PID of the process that has it open (a
 * second storage in the same process is refused too). A lock left by a dead process is taken
 * over. Returns the release.
 */
const lockReplica = (file: string): (() => void) => {
  const lock = `${file}.lock`
  const mine = `${process.pid}:${randomBase62(8)}`
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lock, mine, { flag: 'wx', mode: 0o600 })
      return () => {
        try {
          if (readFileSync(lock, 'utf8') === mine) unlinkSync(lock)
        } catch {
          // already gone
        }
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    let holder = Number.NaN
    try {
      holder = Number(readFileSync(lock, 'utf8').split(':')[0])
    } catch {
      continue // released meanwhile
    }
    if (Number.isInteger(holder) && alive(holder)) {
      throw new Error(`the replica ${file} is in use by process ${holder}: every node needs its own data dir (delete ${lock} if that process is not Hark)`)
    }
    try {
      unlinkSync(lock)
    } catch {
      // another process took it over first; try again
    }
  }
  throw new Error(`could not lock the replica ${file} (${lock})`)
}

/** The server's HTTP address: `libsql://` is HTTPS. */
const httpUrl = (url: string) => url.replace(/^libsql:\/\//, 'https://').replace(/\/+$/, '')

/**
 * Ask the server for `SELECT 1` over its HTTP API (async, bounded by `timeoutMs` of real time),
 * so a wrong token or address is named before libSQL's replica tries (its errors do not say).
 */
export const checkPrimary = async (remote: RemoteDatabase, timeoutMs = 5000): Promise<void> => {
  let status: number
  try {
    const response = await fetch(`${httpUrl(remote.url)}/v2/pipeline`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(remote.authToken ? { authorization: `Bearer ${remote.authToken}` } : {}) },
      body: JSON.stringify({ requests: [{ type: 'execute', stmt: { sql: 'SELECT 1' } }, { type: 'close' }] }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    status = response.status
    await response.body?.cancel()
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? firstLine(e)
    throw new StorageUnavailable({ message: `cannot reach the database at ${remote.url} (storage.url): ${cause}`, cause: e })
  }
  if (status === 401 || status === 403) {
    throw new ConfigError(
      'storage.authToken',
      'settings',
      `${remote.url} refused it (HTTP ${status})${remote.authToken ? '' : ': the server wants a token'}`,
    )
  }
  if (status !== 200) {
    throw new ConfigError('storage.url', 'settings', `${remote.url} answered HTTP ${status} to a query: is it a libSQL server (sqld)?`)
  }
}

/** Open the replica file `file` of the database at `remote` (pulling what is new first). */
export const openReplica = (file: string, remote: RemoteDatabase): ReplicaDb => {
  try {
    return new ReplicaDb(file, remote)
  } catch (e) {
    if (!isTransportError(e)) throw e
    throw new StorageUnavailable({ message: `cannot reach the database at ${remote.url}: ${firstLine(e)}`, cause: e })
  }
}
