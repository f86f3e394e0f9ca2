/**
 * The storage service: the only place in Hark that speaks SQL. It opens the libSQL file in the
 * data dir — or, with `storage.url`, this node's replica of the database on a libSQL server
 * (replica.ts) — applies migrations, and exposes one repository per table. Writes that other
 * processes must notice go through `recordChange`.
 */
import { hostname } from 'node:os'
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { randomBase62 } from '../ids.js'
import { agentPresetsRepo } from './agentPresets.js'
import { apiKeysRepo } from './apiKeys.js'
import { auditEventsRepo } from './auditEvents.js'
import { changesRepo, type ChangeKind, type ChangeRecord } from './changes.js'
import { clientsRepo } from './clients.js'
import { atomically, openDb, type Db } from './db.js'
import { deviceEnrollmentsRepo } from './deviceEnrollments.js'
import { checkPrimary, openReplica, type PrimaryState, type RemoteDatabase } from './replica.js'
import { devicePasswordsRepo } from './devicePasswords.js'
import { invitationsRepo } from './invitations.js'
import { issuedTokensRepo } from './issuedTokens.js'
import { membershipsRepo } from './memberships.js'
import { migrate } from './migrations.js'
import { roomSettingsRepo } from './roomSettings.js'
import { signingSecretsRepo } from './signingSecrets.js'
import { usageRepo } from './usage.js'
import { webhookEndpointsRepo } from './webhookEndpoints.js'
import { webhookOutboxRepo } from './webhookOutbox.js'
import { userSessionsRepo } from './userSessions.js'
import { usersRepo } from './users.js'
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
  webhookEndpoints: webhookEndpointsRepo(db),
  webhookOutbox: webhookOutboxRepo(db),
  deviceEnrollments: deviceEnrollmentsRepo(db),
  users: usersRepo(db),
  userSessions: userSessionsRepo(db),
  memberships: membershipsRepo(db),
  invitations: invitationsRepo(db),
  auditEvents: auditEventsRepo(db),
})

export type Repositories = ReturnType<typeof makeRepositories>

/** A committed control-relevant change, from this process or (via polling) another one. */
export type ChangeListener = (change: ChangeRecord) => void

/**
 * Hears a change as it is written, inside its transaction (the webhook outbox writes the
 * change's event there, so both commit or neither). A throw rolls the transaction back.
 */
export type ChangeWriter = (change: ChangeRecord) => void

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
   * Append a change row. Listeners in this process hear it once it is committed (right away
   * outside a transaction); other processes hear it through `pollRemoteChanges`.
   */
  recordChange(kind: ChangeKind, workspaceId: string | null, subject: string | null, at: number): void
  /**
   * Group commit: run `f` with the other writes queued in this event-loop turn, in one
   * transaction, and resolve once it is committed. Cheaper than a commit per request under load.
   */
  batch<A>(f: () => A): Promise<A>
  /** Listen to committed changes (local and polled). Returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void
  /** Add a writer that runs with every recordChange, in its transaction. Returns the removal function. */
  onRecord(writer: ChangeWriter): () => void
  /** Read rows other processes committed since the last call and tell listeners; returns how many. */
  pollRemoteChanges(): number
  /** Hear every change poll end (after its sync, on a libSQL server): other processes' writes are readable. Returns the unsubscribe function. */
  onPolled(listener: () => void): () => void
  /**
   * Bring the replica up to date with the primary (off the event loop), before
   * `pollRemoteChanges`; resolves at once for a local file. Never rejects: an unreachable primary
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
  const listeners = new Set<ChangeListener>()
  const polled = new Set<() => void>()
  const writers = new Set<ChangeWriter>()
  let pending: ChangeRecord[] = []
  let depth = 0
  let cursor = repos.changes.lastId()
  let dataVersion = repos.changes.dataVersion()
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

  const notify = (changes: ReadonlyArray<ChangeRecord>) => {
    for (const change of changes) for (const listener of listeners) listener(change)
  }

  const pollChanges = (): number => {
    // A replica's data_version does not follow what its sync pulls in: read past the cursor.
    if (!replica) {
      const version = repos.changes.dataVersion()
      if (version === dataVersion) return 0
      dataVersion = version
    }
    let seen = 0
    for (;;) {
      const rows = repos.changes.since(cursor)
      if (rows.length === 0) break
      cursor = rows[rows.length - 1]!.id
      const remote = rows.filter((r) => r.origin !== origin)
      for (const r of remote) {
        if (r.kind.startsWith('client.') && r.workspaceId && r.subject) repos.clients.invalidate(r.workspaceId, r.subject)
      }
      seen += remote.length
      notify(remote)
    }
    return seen
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
        pending = []
        // Records read inside the transaction (the webhook outbox reads the client it writes about) are gone.
        repos.clients.invalidateAll()
        throw e
      } finally {
        depth--
      }
      const committed = pending
      pending = []
      notify(committed)
      return result
    },
    recordChange: (kind, workspaceId, subject, at) => {
      if (writers.size > 0 && depth === 0) {
        // The writers' rows and the change row commit together.
        storage.transaction(() => storage.recordChange(kind, workspaceId, subject, at))
        return
      }
      const id = repos.changes.append({ origin, kind, workspaceId, subject, at })
      const change = { id, origin, kind, workspaceId, subject, at }
      for (const writer of writers) writer(change)
      if (depth > 0) pending.push(change)
      else notify([change])
    },
    batch: <A>(f: () => A) =>
      new Promise<A>((resolve, reject) => {
        if (queued.length === 0) setImmediate(flushQueued)
        queued.push({ run: f, resolve: resolve as (v: unknown) => void, reject })
      }),
    onChange: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    onRecord: (writer) => {
      writers.add(writer)
      return () => writers.delete(writer)
    },
    pollRemoteChanges: () => {
      try {
        return pollChanges()
      } finally {
        for (const listener of polled) listener()
      }
    },
    onPolled: (listener) => {
      polled.add(listener)
      return () => polled.delete(listener)
    },
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
        : Effect.sync(() => openStorage(file)),
      (s) => Effect.sync(() => s.close()),
    ),
  )
