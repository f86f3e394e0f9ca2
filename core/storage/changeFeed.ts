/**
 * The change feed: committed changes (changes.ts), typed by kind, to whoever subscribes to their
 * kinds — this process's own on commit, other processes' (the CLI, other nodes sharing the
 * database) at the next poll of the change log. A change carries what its listeners act on, so
 * none of them reads back what was just written; only a row an older release wrote (no payload)
 * is completed from storage here, once, for all of them.
 */
import { CHANGE_FORMAT, readChangeRow, type Change, type ChangeKind, type ChangeOf, type ChangeRow, type NewChange } from './changes.js'
import type { changesRepo } from './changes.js'
import type { clientsRepo } from './clients.js'
import type { issuedTokensRepo } from './issuedTokens.js'
import type { roomSettingsRepo } from './roomSettings.js'
import type { webhookEndpointsRepo } from './webhookEndpoints.js'

export interface ChangeFeed {
  /**
   * Record a change with the caller's transaction (or in one of its own): writers hear it there,
   * listeners once it is committed (right away outside a transaction), other processes at their
   * next poll. Returns the change as listeners get it.
   */
  record(change: NewChange): Change
  /** Hear committed changes of these kinds (this process's and polled ones), in commit order. Returns the unsubscribe function. */
  on<K extends ChangeKind>(kinds: K | ReadonlyArray<K>, listener: (change: ChangeOf<K>) => void): () => void
  /** Hear every committed change. Returns the unsubscribe function. */
  onAny(listener: (change: Change) => void): () => void
  /**
   * Hear a change of these kinds as it is recorded, inside its transaction (the webhook outbox
   * writes the change's event there, so both commit or neither); a throw rolls it back. Returns
   * the removal function.
   */
  onRecord<K extends ChangeKind>(kinds: K | ReadonlyArray<K>, writer: (change: ChangeOf<K>) => void): () => void
  /** Read the rows other processes committed since the last call and tell listeners; returns how many rows. */
  poll(): number
  /** Hear every poll end (after its sync, on a libSQL server): other processes' writes are readable. Returns the unsubscribe function. */
  onPolled(listener: () => void): () => void
  /** A change another node sent as its row: decoded (completed from storage if an older release's), or null when unusable. */
  read(row: ChangeRow): Change | null
}

/** What the feed reads: the log itself, and the tables a row of an older release is completed from. */
export interface FeedRepositories {
  readonly changes: ReturnType<typeof changesRepo>
  readonly clients: ReturnType<typeof clientsRepo>
  readonly issuedTokens: ReturnType<typeof issuedTokensRepo>
  readonly roomSettings: ReturnType<typeof roomSettingsRepo>
  readonly webhookEndpoints: ReturnType<typeof webhookEndpointsRepo>
}

/** How the feed joins the storage's transactions. */
export interface FeedTransactions {
  readonly inTransaction: () => boolean
  readonly transaction: <A>(f: () => A) => A
}

interface Entry {
  /** null: every kind. */
  readonly kinds: ReadonlySet<string> | null
  readonly f: (change: Change) => void
}

const entry = (kinds: string | ReadonlyArray<string> | null, f: (change: never) => void): Entry => ({
  kinds: kinds === null ? null : new Set(typeof kinds === 'string' ? [kinds] : kinds),
  f: f as (change: Change) => void,
})

/**
 * The feed of one storage handle, and the two calls its transactions make: `committed` (tell
 * listeners what the transaction recorded) and `rolledBack` (forget it).
 */
export const makeChangeFeed = (
  repos: FeedRepositories,
  origin: string,
  tx: FeedTransactions,
  options: { readonly replica: boolean },
): { feed: ChangeFeed; committed: () => void; rolledBack: () => void } => {
  const listeners = new Set<Entry>()
  const writers = new Set<Entry>()
  const polled = new Set<() => void>()
  let pending: Change[] = []
  let cursor = repos.changes.lastId()
  let dataVersion = repos.changes.dataVersion()

  const notify = (changes: ReadonlyArray<Change>) => {
    for (const change of changes) {
      for (const l of listeners) if (l.kinds === null || l.kinds.has(change.kind)) l.f(change)
    }
  }

  /** A row's change; one an older release wrote gets what it lacks from storage as it is now. */
  const complete = (row: ChangeRow): Change | null => {
    const read = readChangeRow(row)
    if (read !== 'legacy') return read
    const base = { id: row.id, origin: row.origin, kind: row.kind, workspaceId: row.workspaceId, subject: row.subject, at: row.at, by: null }
    const workspaceId = row.workspaceId!
    const subject = row.subject!
    switch (row.kind as ChangeKind) {
      case 'client.created': {
        const client = repos.clients.get(workspaceId, subject)
        return client ? ({ ...base, client } as Change) : null
      }
      case 'client.updated': {
        const after = repos.clients.get(workspaceId, subject)
        return after ? ({ ...base, before: null, after } as Change) : null
      }
      case 'token.revoked':
        return { ...base, clientId: repos.issuedTokens.get(workspaceId, subject)?.clientId ?? null } as Change
      case 'room.updated':
        return { ...base, defaultAgent: repos.roomSettings.get(workspaceId, subject)?.defaultAgent ?? null } as Change
      case 'webhook.created':
      case 'webhook.updated': {
        // Gone since: its webhook.deleted follows.
        const endpoint = repos.webhookEndpoints.find(subject)
        return endpoint ? ({ ...base, endpoint } as Change) : null
      }
      default:
        return base as Change
    }
  }

  const poll = (): number => {
    // A replica's data_version does not follow what its sync pulls in: read past the cursor.
    if (!options.replica) {
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
      const changes: Change[] = []
      for (const r of remote) {
        const change = complete(r)
        if (change !== null) changes.push(change)
      }
      notify(changes)
    }
    return seen
  }

  const feed: ChangeFeed = {
    record: (input) => {
      if (writers.size > 0 && !tx.inTransaction()) {
        // The writers' rows and the change row commit together.
        return tx.transaction(() => feed.record(input))
      }
      const { kind, workspaceId, subject, at, by = null, ...rest } = input
      const payload = JSON.stringify({ by, ...rest })
      const id = repos.changes.append({ id: 0, origin, kind, workspaceId, subject, at, format: CHANGE_FORMAT, payload })
      const change = { ...input, by, id, origin } as Change
      for (const w of writers) if (w.kinds === null || w.kinds.has(kind)) w.f(change)
      if (tx.inTransaction()) pending.push(change)
      else notify([change])
      return change
    },
    on: (kinds, listener) => {
      const e = entry(kinds, listener)
      listeners.add(e)
      return () => listeners.delete(e)
    },
    onAny: (listener) => {
      const e = entry(null, listener)
      listeners.add(e)
      return () => listeners.delete(e)
    },
    onRecord: (kinds, writer) => {
      const e = entry(kinds, writer)
      writers.add(e)
      return () => writers.delete(e)
    },
    poll: () => {
      try {
        return poll()
      } finally {
        for (const listener of polled) listener()
      }
    },
    onPolled: (listener) => {
      polled.add(listener)
      return () => polled.delete(listener)
    },
    read: complete,
  }
  return {
    feed,
    committed: () => {
      const committed = pending
      pending = []
      notify(committed)
    },
    rolledBack: () => {
      pending = []
    },
  }
}
