/**
 * The connection every repository speaks SQL through. On one node it is the libSQL file, opened
 * in WAL mode so the CLI and a running engine can share it, with a busy timeout so their writes
 * queue instead of failing. On a libSQL server it is the node's replica (replica.ts), which
 * answers the same calls.
 */
import { Database } from './libsql.js'
import { StorageFailure, StorageUnavailable } from '../errors.js'

/** A prepared statement (the part of libSQL's the repositories use). */
export interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint }
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
}

/** A connection (the part of libSQL's the repositories use). */
export interface Db {
  prepare(sql: string): Statement
  exec(sql: string): void
  pragma(source: string): unknown
  /** `transaction(f)()` runs f in one transaction, rolled back if it throws. */
  transaction<A>(f: () => A): () => A
  readonly inTransaction: boolean
  close(): void
}

export const openDb = (file: string): Db => {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 5000')
  db.pragma('foreign_keys = ON')
  return db
}

/** Run a statement block, turning libSQL exceptions into a typed StorageFailure (StorageUnavailable passes as it is). */
export const guard = <A>(what: string, f: () => A): A => {
  try {
    return f()
  } catch (cause) {
    if (cause instanceof StorageFailure || cause instanceof StorageUnavailable) throw cause
    throw new StorageFailure({ message: `storage: ${what} failed`, cause })
  }
}

/** True when an error is a UNIQUE / PRIMARY KEY violation (a local one, or the primary's). */
export const isUniqueViolation = (cause: unknown): boolean =>
  cause instanceof Error && /UNIQUE constraint failed|PRIMARY KEY/i.test(cause.message)

/** Run `f` atomically: in a new transaction, or inside the one already open on this connection. */
export const atomically = <A>(db: Db, f: () => A): A => (db.inTransaction ? f() : db.transaction(f)())
