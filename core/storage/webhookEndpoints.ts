/**
 * Webhook endpoints of a workspace: where events go, which types, the signing secret (sealed
 * under the master key) and, for 24 h after a rotation, the previous one. An endpoint failing
 * for days is disabled here with its reason.
 */
import { guard, type Db } from './db.js'

export interface WebhookEndpointRecord {
  readonly webhookId: string
  readonly workspaceId: string
  readonly url: string
  /** Event types delivered; null = every type. */
  readonly events: ReadonlyArray<string> | null
  readonly description: string | null
  readonly secretEnc: string
  /** The secret before the last rotation, signing alongside until `previousSecretExpiresAt`. */
  readonly previousSecretEnc: string | null
  readonly previousSecretExpiresAt: number | null
  readonly enabled: boolean
  readonly disabledReason: string | null
  /** First failed attempt since the last success (ms); null while healthy. */
  readonly failingSince: number | null
  readonly createdAt: number
  readonly updatedAt: number
}

export interface WebhookEndpointPatch {
  readonly url?: string
  readonly events?: ReadonlyArray<string> | null
  readonly description?: string | null
  readonly enabled?: boolean
  readonly disabledReason?: string | null
  readonly failingSince?: number | null
  readonly secretEnc?: string
  readonly previousSecretEnc?: string | null
  readonly previousSecretExpiresAt?: number | null
}

interface Row {
  webhook_id: string; workspace_id: string; url: string; events: string | null; description: string | null
  secret_enc: string; previous_secret_enc: string | null; previous_secret_expires_at: number | null
  enabled: number; disabled_reason: string | null; failing_since: number | null; created_at: number; updated_at: number
}

const toRecord = (r: Row): WebhookEndpointRecord => ({
  webhookId: r.webhook_id, workspaceId: r.workspace_id, url: r.url,
  events: r.events === null ? null : (JSON.parse(r.events) as string[]), description: r.description,
  secretEnc: r.secret_enc, previousSecretEnc: r.previous_secret_enc, previousSecretExpiresAt: r.previous_secret_expires_at,
  enabled: r.enabled === 1, disabledReason: r.disabled_reason, failingSince: r.failing_since,
  createdAt: r.created_at, updatedAt: r.updated_at,
})

const COLUMNS: { readonly [K in keyof WebhookEndpointPatch]-?: string } = {
  url: 'url', events: 'events', description: 'description', enabled: 'enabled', disabledReason: 'disabled_reason',
  failingSince: 'failing_since', secretEnc: 'secret_enc', previousSecretEnc: 'previous_secret_enc',
  previousSecretExpiresAt: 'previous_secret_expires_at',
}

const columnValue = (key: keyof WebhookEndpointPatch, value: unknown): string | number | null => {
  if (value === null) return null
  if (key === 'events') return JSON.stringify(value)
  if (key === 'enabled') return value ? 1 : 0
  return value as string | number
}

export const webhookEndpointsRepo = (db: Db) => {
  const insert = db.prepare(`INSERT INTO webhook_endpoints
    (webhook_id, workspace_id, url, events, description, secret_enc, previous_secret_enc, previous_secret_expires_at,
     enabled, disabled_reason, failing_since, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const byId = db.prepare('SELECT * FROM webhook_endpoints WHERE workspace_id = ? AND webhook_id = ?')
  const byIdAnyWorkspace = db.prepare('SELECT * FROM webhook_endpoints WHERE webhook_id = ?')
  const list = db.prepare('SELECT * FROM webhook_endpoints WHERE workspace_id = ? ORDER BY created_at, webhook_id')
  const all = db.prepare('SELECT * FROM webhook_endpoints ORDER BY created_at, webhook_id')
  const count = db.prepare('SELECT count(*) AS n FROM webhook_endpoints WHERE workspace_id = ?')
  const remove = db.prepare('DELETE FROM webhook_endpoints WHERE workspace_id = ? AND webhook_id = ?')
  return {
    insert: (e: WebhookEndpointRecord) =>
      guard('insert webhook endpoint', () =>
        void insert.run(e.webhookId, e.workspaceId, e.url, e.events === null ? null : JSON.stringify(e.events), e.description,
          e.secretEnc, e.previousSecretEnc, e.previousSecretExpiresAt, e.enabled ? 1 : 0, e.disabledReason, e.failingSince,
          e.createdAt, e.updatedAt)),
    get: (workspaceId: string, webhookId: string) =>
      guard('get webhook endpoint', () => {
        const r = byId.get(workspaceId, webhookId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    /** By id alone (the delivery worker, which serves every workspace). */
    find: (webhookId: string) =>
      guard('get webhook endpoint', () => {
        const r = byIdAnyWorkspace.get(webhookId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    list: (workspaceId: string) => guard('list webhook endpoints', () => (list.all(workspaceId) as Row[]).map(toRecord)),
    all: () => guard('list webhook endpoints', () => (all.all() as Row[]).map(toRecord)),
    count: (workspaceId: string) => guard('count webhook endpoints', () => (count.get(workspaceId) as { n: number }).n),
    /** Apply a patch; returns the updated record, or null when there is no such endpoint. */
    update: (workspaceId: string, webhookId: string, patch: WebhookEndpointPatch, at: number) =>
      guard('update webhook endpoint', () => {
        const sets: string[] = ['updated_at = ?']
        const values: Array<string | number | null> = [at]
        for (const key of Object.keys(COLUMNS) as Array<keyof WebhookEndpointPatch>) {
          if (patch[key] === undefined) continue
          sets.push(`${COLUMNS[key]} = ?`)
          values.push(columnValue(key, patch[key]))
        }
        const r = db
          .prepare(`UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE workspace_id = ? AND webhook_id = ? RETURNING *`)
          .get(...values, workspaceId, webhookId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    delete: (workspaceId: string, webhookId: string) =>
      guard('delete webhook endpoint', () => remove.run(workspaceId, webhookId).changes === 1),
  }
}
