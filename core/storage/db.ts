/**
 * The libSQL file: opened in WAL mode so the CLI and a running engine can share it, with a
 * busy timeout so their writes queue instead of failing.
 */
import Database from 'libsql'
import { StorageFailure } from '../errors.js'

export type Db = InstanceType<typeof Database>

export const openDb = (file: string): Db => {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 5000')
  db.pragma('foreign_keys = ON')
  return db
}

/** Run a statement block, turning libSQL exceptions into a typed StorageFailure. */
export const guard = <A>(what: string, f: () => A): A => {
  try {
    return f()
  } catch (cause) {
    if (cause instanceof StorageFailure) throw cause
    throw new StorageFailure({ message: `storage: ${what} failed`, cause })
  }
}

/** True when an error is a UNIQUE / PRIMARY KEY violation. */
export const isUniqueViolation = (cause: unknown): boolean =>
  cause instanceof Error && /UNIQUE constraint failed|PRIMARY KEY/i.test(cause.message)

/** Run `f` atomically: in a new transaction, or inside the one already open on this connection. */
export const atomically = <A>(db: Db, f: () => A): A => (db.inTransaction ? f() : db.transaction(f)())
