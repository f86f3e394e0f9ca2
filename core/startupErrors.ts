/**
 * What can stop an engine from starting, as tagged errors in the start's error channel: a caller
 * matches on `_tag`, and `hark start` prints each one's message as its one line. A setting that
 * cannot be used is a `ConfigError` (configError.ts), a listener that cannot bind a `ListenError`
 * (transport.ts), an unreachable database primary a `StorageUnavailable` (errors.ts); the rest are here.
 */
import * as Data from 'effect/Data'
import type { ConfigError } from './configError.js'
import type { StorageUnavailable } from './errors.js'
import type { ListenError } from './transport.js'

/** The database file cannot be opened or migrated. */
export class StorageError extends Data.TaggedError('StorageError')<{
  readonly file: string
  readonly message: string
  readonly cause?: unknown
}> {}

/** An extension cannot be loaded, built or started (a transport's start, a provider worker's module). */
export class ExtensionError extends Data.TaggedError('ExtensionError')<{
  /** `<kind> <name>`, e.g. "transport mqtt". */
  readonly extension: string
  readonly message: string
  readonly cause?: unknown
}> {}

/** The node cannot join its cluster (`cluster.natsUrl`), or no cluster extension is registered to. */
export class ClusterJoinError extends Data.TaggedError('ClusterJoinError')<{
  readonly natsUrl: string
  readonly message: string
  readonly cause?: unknown
}> {}

export type StartupError = ConfigError | ListenError | StorageError | StorageUnavailable | ExtensionError | ClusterJoinError

/** The message of whatever was thrown, for a tagged error's one line. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))
