/**
 * The storage service: the only place in Hark that speaks SQL. It opens the libSQL file in the
 * data dir, applies migrations, and exposes one repository per table. Writes that other
 * processes must notice go through `recordChange`.
 */
import { hostname } from 'node:os'
import { Context, Effect, Layer } from 'effect'
import { randomBase62 } from '../ids.js'
import { agentPresetsRepo } from './agentPresets.js'
import { apiKeysRepo } from './apiKeys.js'
import { auditEventsRepo } from './auditEvents.js'
import { changesRepo, type ChangeKind, type ChangeRecord } from './changes.js'
import { clientsRepo } from './clients.js'
import { atomically, openDb, type Db } from './db.js'
import { devicePasswordsRepo } from './devicePasswords.js'
import { invitationsRepo } from './invitations.js'
import { issuedTokensRepo } from './issuedTokens.js'
import { membershipsRepo } from './memberships.js'
import { migrate } from './migrations.js'
import { roomSettingsRepo } from './roomSettings.js'
import { signingSecretsRepo } from './signingSecrets.js'
import { usageRepo } from './usage.js'
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
  users: usersRepo(db),
  userSessions: userSessionsRepo(db),
  memberships: membershipsRepo(db),
  invitations: invitationsRepo(db),
  auditEvents: auditEventsRepo(db),
})

export type Repositories = ReturnType<typeof makeRepositories>

/** A committed control-relevant change, from this process or (via polling) another one. */
export type ChangeListener = (change: ChangeRecord) => void

export interface StorageShape extends Repositories {
  readonly db: Db
  readonly file: string
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
  /** Read rows other processes committed since the last call and tell listeners; returns how many. */
  pollRemoteChanges(): number
  close(): void
}

export class Storage extends Context.Service<Storage, StorageShape>()('hark/Storage') {}

/** Open a storage handle on `file` (migrated). The CLI uses this directly; the engine via the layer. */
export const openStorage = (file: string): StorageShape => {
  const db = openDb(file)
  migrate(db)
  const repos = makeRepositories(db)
  const origin = `${hostname()}:${process.pid}:${randomBase62(8)}`
  const listeners = new Set<ChangeListener>()
  let pending: ChangeRecord[] = []
  let depth = 0
  let cursor = repos.changes.lastId()
  let dataVersion = repos.changes.dataVersion()
  let open = true

  let queued: Array<{ run: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = []
  const flushQueued = () => {
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

  const storage: StorageShape = {
    ...repos,
    db,
    file,
    origin,
    transaction: <A>(f: () => A): A => {
      if (depth > 0) return f()
      depth++
      let result: A
      try {
        result = atomically(db, f)
      } catch (e) {
        pending = []
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
      const id = repos.changes.append({ origin, kind, workspaceId, subject, at })
      const change = { id, origin, kind, workspaceId, subject, at }
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
    pollRemoteChanges: () => {
      const version = repos.changes.dataVersion()
      if (version === dataVersion) return 0
      dataVersion = version
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
    },
    close: () => {
      if (!open) return
      if (queued.length > 0) flushQueued()
      open = false
      try {
        db.pragma('wal_checkpoint(TRUNCATE)')
      } finally {
        db.close()
      }
    },
  }
  return storage
}

export const storageLayer = (file: string) =>
  Layer.effect(
    Storage,
    Effect.acquireRelease(
      Effect.sync(() => openStorage(file)),
      (s) => Effect.sync(() => s.close()),
    ),
  )
