/**
 * The storage service: the only place in Hark that speaks SQL. It opens the libSQL file in the
 * data dir — or, with `storage.url`, this node's replica of the database on a libSQL server
 * (replica.ts) — applies migrations, and exposes one repository per table. Writes that other
 * parts of the engine or other processes must notice record a change on its `feed` (changeFeed.ts).
 */
import { hostname } from 'node:os'
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { randomBase62 } from '../ids.js'
import { agentPresetsRepo } from './agentPresets.js'
import { apiKeysRepo } from './apiKeys.js'
import { auditEventsRepo } from './auditEvents.js'
import { makeChangeFeed, type ChangeFeed } from './changeFeed.js'
import { changesRepo } from './changes.js'
import { clientsRepo } from './clients.js'
import { atomically, openDb, type Db } from './db.js'
import { deviceEnrollmentsRepo } from './deviceEnrollments.js'
import { checkPrimary, openReplica, type PrimaryState, type RemoteDatabase } from './replica.js'
import { devicePasswordsRepo } from './devicePasswords.js'
import { invitationsRepo } from './invitations.js'
import { issuedTokensRepo } from './issuedTokens.js'
import { membershipsRepo } from './memberships.js'
import { migrate } from './migrations.js'
import { recordingsRepo } from './recordings.js'
import { roomSettingsRepo } from './roomSettings.js'
import { signingSecretsRepo } from './signingSecrets.js'
import { transcriptsRepo } from './transcripts.js'
import { usageRepo } from './usage.js'
import { webhookEndpointsRepo } from './webhookEndpoints.js'
import { webhookOutboxRepo } from './webhookOutbox.js'
import { userSessionsRepo } from './userSessions.js'
import { usersRepo } from './users.js'
import { messageOf, StorageError } from '../startupErrors.js'
import { workspacesRepo } from './workspaces.js'

export const makeRepositories = (db: Db) => ({
  workspaces: workspacesRepo(db),
  apiKeys: apiKeysRepo(db),
  signingSecrets: signingSecretsRepo(db),
  clients: clientsRepo(db),
  devicePasswords: devicePasswordsRepo(db),
  issuedTokens: issuedTokensRepo(db),
  changes: changesRepo(db),
  usage: usageRepo(db),
  agentPresets: agentPresetsRepo(db),
  roomSettings: roomSettingsRepo(db),
  recordings: recordingsRepo(db),
  webhookEndpoints: webhookEndpointsRepo(db),
  webhookOutbox: webhookOutboxRepo(db),
  deviceEnrollments: deviceEnrollmentsRepo(db),
  users: usersRepo(db),
  userSessions: userSessionsRepo(db),
  memberships: membershipsRepo(db),
  invitations: invitationsRepo(db),
  auditEvents: auditEventsRepo(db),
  transcripts: transcriptsRepo(db),
})

export type Repositories = ReturnType<typeof makeRepositories>

export interface StorageShape extends Repositories {
  readonly db: Db
  /** The libSQL file: the database itself, or this node's replica of the server's. */
  readonly file: string
  /** The libSQL server this storage is a replica of, or null (the file is the database). */
  readonly remote: RemoteDatabase | null
  /** Identity of this process (`host:pid:random`) in the change log and the usage meter. */
  readonly origin: string
  /** Run `f` in one transaction (nested calls join the outer one); rolls back on throw. */
  transaction<A>(f: () => A): A
  /**
   * Group commit: run `f` with the other writes queued in this event-loop turn, in one
   * transaction, and resolve once it is committed. Cheaper than a commit per request under load.
   */
  batch<A>(f: () => A): Promise<A>
  /** Committed changes, typed by kind: record them with their writes, subscribe to the kinds you act on. */
  readonly feed: ChangeFeed
  /**
   * Bring the replica up to date with the primary (off the event loop), before
   * `feed.poll`; resolves at once for a local file. Never rejects: an unreachable primary
   * shows in `primary`.
   */
  refresh(): Promise<void>
  /** Whether writes can reach the database (always so for a local file). */
  readonly primary: PrimaryState
  /** Hear the libSQL server's primary go and come back (never, for a local file). Returns the unsubscribe function. */
  onPrimary(listener: (state: PrimaryState) => void): () => void
  close(): void
}

export class Storage extends Context.Service<Storage, StorageShape>()('hark/Storage') {}

const LOCAL: PrimaryState = { available: true, reason: null }

/**
 * Open a storage handle on `file` (migrated): the database itself, or with `remote` this
 * process's replica of the database on that libSQL server. The CLI uses this directly; the
 * engine via the layer.
 */
export const openStorage = (file: string, remote: RemoteDatabase | null = null): StorageShape => {
  const replica = remote ? openReplica(file, remote) : null
  const db: Db = replica ?? openDb(file)
  try {
    migrate(db)
  } catch (e) {
    db.close()
    throw e
  }
  const repos = makeRepositories(db)
  const origin = `${hostname()}:${process.pid}:${randomBase62(8)}`
  let depth = 0
  const { feed, committed, rolledBack } = makeChangeFeed(
    repos,
    origin,
    { inTransaction: () => depth > 0, transaction: (f) => storage.transaction(f) },
    { replica: replica !== null },
  )
  let open = true

  let queued: Array<{ run: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = []
  const flushQueued = () => {
    // close() flushes what is queued itself; the turn's scheduled flush must then find nothing to do.
    if (queued.length === 0 || !open) return
    const jobs = queued
    queued = []
    const results: unknown[] = []
    try {
      storage.transaction(() => {
        for (const job of jobs) results.push(job.run())
      })
    } catch (e) {
      for (const job of jobs) job.reject(e)
      return
    }
    jobs.forEach((job, i) => job.resolve(results[i]))
  }

  const storage: StorageShape = {
    ...repos,
    db,
    file,
    remote,
    origin,
    transaction: <A>(f: () => A): A => {
      if (depth > 0) return f()
      depth++
      let result: A
      try {
        result = atomically(db, f)
      } catch (e) {
        rolledBack()
        // Clients read inside the transaction (and cached) may have been read as it wrote them: gone.
        repos.clients.invalidateAll()
        throw e
      } finally {
        depth--
      }
      committed()
      return result
    },
    batch: <A>(f: () => A) =>
      new Promise<A>((resolve, reject) => {
        if (queued.length === 0) setImmediate(flushQueued)
        queued.push({ run: f, resolve: resolve as (v: unknown) => void, reject })
      }),
    feed,
    refresh: () => (replica ? replica.refresh() : Promise.resolve()),
    get primary() {
      return replica ? replica.primary : LOCAL
    },
    onPrimary: (listener) => (replica ? replica.onPrimary(listener) : () => undefined),
    close: () => {
      if (!open) return
      if (queued.length > 0) flushQueued()
      open = false
      try {
        // The replica's WAL belongs to libSQL's sync: it is left as it is.
        if (!replica) db.pragma('wal_checkpoint(TRUNCATE)')
      } finally {
        db.close()
      }
    },
  }
  return storage
}

/** Storage as a layer; on a libSQL server the server is asked first (checkPrimary names a wrong address or token). */
export const storageLayer = (file: string, remote: RemoteDatabase | null = null) =>
  Layer.effect(
    Storage,
    Effect.acquireRelease(
      remote
        ? Effect.tryPromise({
            try: async () => {
              await checkPrimary(remote)
              return openStorage(file, remote)
            },
            catch: (e) => e,
          })
        : Effect.try({ try: () => openStorage(file), catch: (e) => new StorageError({ file, message: messageOf(e), cause: e }) }),
      (s) => Effect.sync(() => s.close()),
    ),
  )
