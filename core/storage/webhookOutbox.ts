/**
 * The webhook outbox: one row per event and endpoint (a delivery), with the event's id, type,
 * per-resource sequence number and the exact body every attempt sends, and the delivery's retry
 * state. Events are written in the transaction of the change they describe; the delivery worker
 * reads pending deliveries past its cursor (the integer id grows in commit order: SQLite has one
 * writer at a time) and records every attempt's outcome here. (Until migration 9 the event was a
 * row of its own, joined for its body: a second insert per event.)
 */
import { atomically, guard, type Db } from './db.js'

export type DeliveryState = 'pending' | 'delivered' | 'dead'

export interface WebhookDeliveryRecord {
  /** Internal, grows in commit order (the worker's cursor). */
  readonly id: number
  readonly deliveryId: string
  readonly webhookId: string
  readonly eventId: string
  readonly workspaceId: string
  readonly resource: string
  readonly seq: number
  readonly state: DeliveryState
  readonly attempts: number
  readonly nextAttemptAt: number | null
  readonly lastAttemptAt: number | null
  readonly lastStatus: number | null
  readonly lastError: string | null
  readonly lastLatencyMs: number | null
  readonly createdAt: number
  readonly completedAt: number | null
  /** The event's type. */
  readonly type: string
}

/** A pending delivery with what an attempt needs. */
export interface PendingDelivery extends WebhookDeliveryRecord {
  readonly body: string
}

export interface NewDelivery {
  readonly deliveryId: string
  readonly webhookId: string
  readonly eventId: string
  readonly workspaceId: string
  /** `client:<clientId>`, `room:<room>`, `agent:<agentId>` or `webhook:<webhookId>`. */
  readonly resource: string
  readonly seq: number
  readonly type: string
  /** The JSON body every attempt sends, byte for byte (the same on each endpoint's delivery of the event). */
  readonly body: string
  readonly createdAt: number
}

/** What one attempt left behind. */
export interface AttemptOutcome {
  readonly state: DeliveryState
  readonly attempts: number
  readonly nextAttemptAt: number | null
  readonly at: number
  readonly status: number | null
  readonly error: string | null
  readonly latencyMs: number | null
}

interface DeliveryRow {
  id: number; delivery_id: string; webhook_id: string; event_id: string; workspace_id: string; resource: string
  seq: number; state: DeliveryState; attempts: number; next_attempt_at: number | null; last_attempt_at: number | null
  last_status: number | null; last_error: string | null; last_latency_ms: number | null; created_at: number
  completed_at: number | null; type: string; body?: string
}

const toDelivery = (r: DeliveryRow): WebhookDeliveryRecord => ({
  id: r.id, deliveryId: r.delivery_id, webhookId: r.webhook_id, eventId: r.event_id, workspaceId: r.workspace_id,
  resource: r.resource, seq: r.seq, state: r.state, attempts: r.attempts, nextAttemptAt: r.next_attempt_at,
  lastAttemptAt: r.last_attempt_at, lastStatus: r.last_status, lastError: r.last_error, lastLatencyMs: r.last_latency_ms,
  createdAt: r.created_at, completedAt: r.completed_at, type: r.type,
})

const toPending = (r: DeliveryRow): PendingDelivery => ({ ...toDelivery(r), body: r.body! })

/** The delivery webhook_sequences is current through (migration 10). */
const FOLDED_THROUGH = 'SELECT through_id FROM webhook_sequence_fold WHERE only = 1'

/** Rows per multi-row INSERT: one statement binds many rows (libSQL's cost is per statement). */
const CHUNK = 64

export const webhookOutboxRepo = (db: Db) => {
  const reserveRows = new Map<number, ReturnType<Db['prepare']>>()
  const reserve = (n: number) => {
    let st = reserveRows.get(n)
    if (!st) {
      st = db.prepare(`INSERT INTO webhook_sequences (workspace_id, resource, seq) VALUES ${Array(n).fill('(?, ?, ?)').join(', ')}
        ON CONFLICT (workspace_id, resource) DO UPDATE SET seq = seq + excluded.seq RETURNING workspace_id, resource, seq`)
      reserveRows.set(n, st)
    }
    return st
  }
  const multi = (table: string, columns: string, perRow: number) => {
    const cache = new Map<number, ReturnType<Db['prepare']>>()
    const row = `(${Array(perRow).fill('?').join(', ')})`
    return (n: number) => {
      let st = cache.get(n)
      if (!st) cache.set(n, (st = db.prepare(`INSERT INTO ${table} (${columns}) VALUES ${Array(n).fill(row).join(', ')}`)))
      return st
    }
  }
  const insertDeliveries = multi(
    'webhook_deliveries',
    'delivery_id, webhook_id, event_id, workspace_id, resource, seq, type, body, state, next_attempt_at, created_at',
    11,
  )
  // A delivery's history leaves the body out; what an attempt needs reads it.
  const historyRows = `SELECT id, delivery_id, webhook_id, event_id, workspace_id, resource, seq, type, state, attempts, next_attempt_at,
    last_attempt_at, last_status, last_error, last_latency_ms, created_at, completed_at FROM webhook_deliveries d`
  const fullRows = `SELECT * FROM webhook_deliveries d`
  const pendingAfter = db.prepare(`${fullRows} WHERE d.id > ? AND d.state = 'pending' ORDER BY d.id LIMIT ?`)
  const pendingOf = db.prepare(`${fullRows} WHERE d.webhook_id = ? AND d.state = 'pending' ORDER BY d.id`)
  const lastId = db.prepare('SELECT coalesce(max(id), 0) AS id FROM webhook_deliveries')
  // Many outcomes in one statement: UPDATE … FROM a VALUES list (column1 … column9), one row per delivery.
  const recordRows = new Map<number, ReturnType<Db['prepare']>>()
  const record = (n: number) => {
    let st = recordRows.get(n)
    if (!st) {
      st = db.prepare(`UPDATE webhook_deliveries SET state = v.column2, attempts = v.column3, next_attempt_at = v.column4,
        last_attempt_at = v.column5, last_status = v.column6, last_error = v.column7, last_latency_ms = v.column8, completed_at = v.column9
        FROM (VALUES ${Array(n).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}) AS v WHERE webhook_deliveries.id = v.column1`)
      recordRows.set(n, st)
    }
    return st
  }
  const list = db.prepare(`${historyRows} WHERE d.workspace_id = ? AND d.webhook_id = ? AND d.id < ? ORDER BY d.id DESC LIMIT ?`)
  const one = db.prepare(`${historyRows} WHERE d.workspace_id = ? AND d.webhook_id = ? AND d.delivery_id = ?`)
  const bodyOf = db.prepare('SELECT body FROM webhook_deliveries WHERE workspace_id = ? AND webhook_id = ? AND delivery_id = ?')
  // Completed before `before`: created before it too, so below the first row created since (ids
  // grow with time): a range of the rowid, no index on completed_at. A row whose id is out of
  // step with its time (the clock set back) waits for a later prune.
  // …and never past the fold: the deliveries after it hold the only copy of their resources' numbers.
  const pruneDeliveries = db.prepare(`DELETE FROM webhook_deliveries
    WHERE id < coalesce((SELECT id FROM webhook_deliveries WHERE created_at >= ? ORDER BY id LIMIT 1), 9007199254740991)
    AND id <= (${FOLDED_THROUGH}) AND completed_at IS NOT NULL AND completed_at < ?`)
  // Sequence numbers: webhook_sequences holds each resource's last number as of delivery
  // `through_id` (migration 10); a delivery past it may carry a newer one (core/webhooks/sequences.ts).
  const numberedSinceFold = db.prepare(`SELECT workspace_id, resource, max(seq) AS seq FROM webhook_deliveries
    WHERE id > (${FOLDED_THROUGH}) GROUP BY workspace_id, resource`)
  const foldIn = db.prepare(`INSERT INTO webhook_sequences (workspace_id, resource, seq)
    SELECT workspace_id, resource, max(seq) FROM webhook_deliveries WHERE id > (${FOLDED_THROUGH}) GROUP BY workspace_id, resource
    ON CONFLICT (workspace_id, resource) DO UPDATE SET seq = max(seq, excluded.seq)`)
  const advanceFold = db.prepare('UPDATE webhook_sequence_fold SET through_id = (SELECT coalesce(max(id), 0) FROM webhook_deliveries) WHERE only = 1')
  // Any number of a workspace's resources in one statement: a JSON array of their names.
  const storedSeqs = db.prepare(`SELECT resource, seq FROM webhook_sequences
    WHERE workspace_id = ? AND resource IN (SELECT value FROM json_each(?))`)
  // Any number of resources in one statement: a JSON array of [workspaceId, resource, seq].
  const storeSeqs = db.prepare(`INSERT INTO webhook_sequences (workspace_id, resource, seq)
    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?) WHERE true
    ON CONFLICT (workspace_id, resource) DO UPDATE SET seq = max(seq, excluded.seq)`)
  const foldTo = db.prepare('UPDATE webhook_sequence_fold SET through_id = max(through_id, ?) WHERE only = 1')
  const deliveryThere = db.prepare('SELECT 1 AS there FROM webhook_deliveries WHERE id = ? AND delivery_id = ?')
  /** Every number of the deliveries past the fold into webhook_sequences (the highest of each resource); the fold moves to the last delivery. */
  const fold = () => {
    foldIn.run()
    advanceFold.run()
  }

  const recordAttempts = (outcomes: ReadonlyMap<number, AttemptOutcome>) =>
    guard('record webhook attempts', () => {
      const all = [...outcomes]
      for (let i = 0; i < all.length; i += CHUNK) {
        const chunk = all.slice(i, i + CHUNK)
        record(chunk.length).run(
          chunk.flatMap(([id, o]) => [id, o.state, o.attempts, o.nextAttemptAt, o.at, o.status, o.error, o.latencyMs, o.state === 'pending' ? null : o.at]))
      }
    })

  return {
    /**
     * Reserve sequence numbers in the table: `n` for each (workspaceId, resource), inside the events'
     * transaction, after folding in what deliveries past the fold numbered (a writer that numbers
     * from memory leaves its numbers there). Returns the first number of each, keyed
     * `workspaceId NUL resource` (one statement per 64).
     */
    reserveSequences: (wanted: ReadonlyArray<{ workspaceId: string; resource: string; n: number }>) =>
      guard('reserve webhook sequences', () => {
        fold()
        const first = new Map<string, number>()
        for (let i = 0; i < wanted.length; i += CHUNK) {
          const chunk = wanted.slice(i, i + CHUNK)
          const rows = reserve(chunk.length).all(chunk.flatMap((w) => [w.workspaceId, w.resource, w.n])) as Array<{
            workspace_id: string; resource: string; seq: number
          }>
          const asked = new Map(chunk.map((w) => [`${w.workspaceId}\u0000${w.resource}`, w.n]))
          for (const r of rows) {
            const key = `${r.workspace_id}\u0000${r.resource}`
            first.set(key, r.seq - asked.get(key)! + 1)
          }
        }
        // This transaction's own deliveries, inserted next, are past the fold: the next fold takes them in again (the same numbers).
        advanceFold.run()
        return first
      }),
    /** Each resource's highest number on the deliveries past the fold. */
    numberedSinceFold: () =>
      guard('read webhook sequences', () =>
        numberedSinceFold.all() as Array<{ workspace_id: string; resource: string; seq: number }>),
    /** Resources' numbers in webhook_sequences (as of the fold); one with none is left out. */
    storedSequences: (workspaceId: string, resources: ReadonlyArray<string>) =>
      guard('read webhook sequences', () =>
        storedSeqs.all(workspaceId, JSON.stringify(resources)) as Array<{ resource: string; seq: number }>),
    /** Fold the numbers of the deliveries past the fold into webhook_sequences. */
    foldSequences: () => guard('fold webhook sequences', () => atomically(db, fold)),
    /** Resources' numbers into webhook_sequences (a lower one than the table's is left). */
    storeSequences: (rows: ReadonlyArray<{ workspaceId: string; resource: string; seq: number }>) =>
      guard('store webhook sequences', () => {
        if (rows.length > 0) storeSeqs.run(JSON.stringify(rows.map((r) => [r.workspaceId, r.resource, r.seq])))
      }),
    /** webhook_sequences is current through delivery `id` (never moved back). */
    foldThrough: (id: number) => guard('fold webhook sequences', () => void foldTo.run(id)),
    /** True when the delivery (internal id and delivery id) is in the table: its transaction committed. */
    deliveryThere: (id: number, deliveryId: string) =>
      guard('read webhook delivery', () => deliveryThere.get(id, deliveryId) !== undefined),
    /**
     * New pending deliveries, due at once. Returns their internal ids, in order: the rows of one
     * multi-row INSERT get consecutive ids (AUTOINCREMENT, one writer), the last one reported.
     */
    insertDeliveries: (deliveries: ReadonlyArray<NewDelivery>): number[] =>
      guard('insert webhook deliveries', () => {
        const ids: number[] = []
        for (let i = 0; i < deliveries.length; i += CHUNK) {
          const chunk = deliveries.slice(i, i + CHUNK)
          const last = Number(insertDeliveries(chunk.length).run(
            chunk.flatMap((d) => [
              d.deliveryId, d.webhookId, d.eventId, d.workspaceId, d.resource, d.seq, d.type, d.body, 'pending', d.createdAt, d.createdAt,
            ])).lastInsertRowid)
          for (let k = chunk.length - 1; k >= 0; k--) ids.push(last - k)
        }
        return ids
      }),
    /** Pending deliveries committed after `afterId`, oldest first. */
    pendingAfter: (afterId: number, limit = 1000) =>
      guard('read pending webhook deliveries', () => (pendingAfter.all(afterId, limit) as DeliveryRow[]).map(toPending)),
    pendingOf: (webhookId: string) =>
      guard('read pending webhook deliveries', () => (pendingOf.all(webhookId) as DeliveryRow[]).map(toPending)),
    lastId: () => guard('read webhook delivery cursor', () => (lastId.get() as { id: number }).id),
    /** Store what attempts (or give-ups) left behind, by delivery id (one statement per 64). */
    recordAttempts,
    /** Deliveries of an endpoint, newest first, before the internal id `beforeId`. */
    list: (workspaceId: string, webhookId: string, q: { beforeId?: number; limit: number }) =>
      guard('list webhook deliveries', () =>
        (list.all(workspaceId, webhookId, q.beforeId ?? Number.MAX_SAFE_INTEGER, q.limit) as DeliveryRow[]).map(toDelivery)),
    get: (workspaceId: string, webhookId: string, deliveryId: string) =>
      guard('get webhook delivery', () => {
        const r = one.get(workspaceId, webhookId, deliveryId) as DeliveryRow | undefined
        return r ? toDelivery(r) : null
      }),
    /** The body a delivery sends (a redelivery sends it again). */
    body: (workspaceId: string, webhookId: string, deliveryId: string) =>
      guard('get webhook delivery', () => (bodyOf.get(workspaceId, webhookId, deliveryId) as { body: string } | undefined)?.body ?? null),
    /** Forget deliveries completed before `before`. */
    prune: (before: number) => guard('prune webhook deliveries', () => pruneDeliveries.run(before, before).changes),
  }
}
