/**
 * What the change feed carries, and the change log table it travels through. Every
 * control-relevant write records a change in its own transaction: its kind, workspace, subject,
 * who made it where the writer knows, and what the write's listeners act on (a client's record
 * before and after, the endpoint as written, …), typed by kind. Other processes sharing the
 * database (the CLI, other nodes) read the rows past their cursor: the payload is the row's JSON,
 * versioned by `format` (0: a row of a release before the typed feed, with no payload).
 */
import * as Schema from 'effect/Schema'
import type { ClientRecord } from './clients.js'
import { guard, type Db } from './db.js'
import type { DefaultAgentSetting } from './roomSettings.js'
import type { WebhookEndpointRecord } from './webhookEndpoints.js'

/** Who made a change, where the writer knows: a console user, a back end's API key (REST), the operator (CLI). */
export type ChangeAuthor =
  | { readonly type: 'user'; readonly userId: string; readonly email: string }
  | { readonly type: 'apiKey'; readonly keyId: string }
  | { readonly type: 'operator' }

/** What every change carries. `W`, `S`: whether its kind always has a workspace and a subject. */
interface Recorded<K extends string, W extends string | null = string, S extends string | null = string> {
  /** Its place in the change log: ascending in commit order. */
  readonly id: number
  /** The process that wrote it (`StorageShape.origin`). */
  readonly origin: string
  readonly kind: K
  readonly workspaceId: W
  readonly subject: S
  readonly at: number
  readonly by: ChangeAuthor | null
}

/** A committed change, by kind. The subject is the id of what changed (named below where it is not obvious). */
export type Change =
  | Recorded<'workspace.created', string, null>
  /** Subject: the key id. */
  | Recorded<'apikey.revoked'>
  /** Subject: the new secret's kid. */
  | Recorded<'secret.rotated'>
  /** Subject: the jti. `clientId`: the token's client; null when no issued token of that jti is known. */
  | (Recorded<'token.revoked'> & { readonly clientId: string | null })
  | (Recorded<'client.created'> & { readonly client: ClientRecord })
  /** `before`: null only in a change an older release recorded (read from storage, the state before is unknown). */
  | (Recorded<'client.updated'> & { readonly before: ClientRecord | null; readonly after: ClientRecord })
  | Recorded<'client.deleted'>
  /** `at`: the instant tokens minted before no longer count. */
  | Recorded<'client.tokensRevoked'>
  | Recorded<'devicePassword.reset'>
  /** Subject: the room. `defaultAgent`: its setting now. */
  | (Recorded<'room.updated'> & { readonly defaultAgent: DefaultAgentSetting | null })
  /** `endpoint`: as stored (its secrets sealed under the master key, as in its table). */
  | (Recorded<'webhook.created'> & { readonly endpoint: WebhookEndpointRecord })
  | (Recorded<'webhook.updated'> & { readonly endpoint: WebhookEndpointRecord })
  | Recorded<'webhook.deleted'>
  /** New webhook deliveries were committed (events, a test, a redelivery): the worker reads past its cursor. */
  | Recorded<'webhook.queued'>
  /** A user's console sessions ended or a membership went (subject: the user; null with a workspace: all its members). */
  | Recorded<'user.accessChanged', string | null, string | null>

export type ChangeKind = Change['kind']
export type ChangeOf<K extends ChangeKind> = Extract<Change, { readonly kind: K }>

type Base = 'id' | 'origin' | 'kind' | 'workspaceId' | 'subject' | 'at'
/** What a change carries beyond the log's columns (`by` included): the row's JSON. */
type PayloadOf<K extends ChangeKind> = Omit<ChangeOf<K>, Base>

/** A change as a writer records it: the log adds its id and origin; `by` defaults to null. */
export type NewChange = Change extends infer C
  ? C extends Change ? Omit<C, 'id' | 'origin' | 'by'> & { readonly by?: ChangeAuthor | null } : never
  : never

/** The format of the payloads this release writes. */
export const CHANGE_FORMAT = 1

/** A change log row as stored (and as a cluster node sends a change to the others). */
export interface ChangeRow {
  readonly id: number
  readonly origin: string
  readonly kind: string
  readonly workspaceId: string | null
  readonly subject: string | null
  readonly at: number
  /** 0: no payload (a release before the typed feed); 1: `payload` is this release's JSON. */
  readonly format: number
  readonly payload: string | null
}

const Client = Schema.Struct({
  workspaceId: Schema.String, clientId: Schema.String, name: Schema.NullOr(Schema.String), kind: Schema.NullOr(Schema.String),
  room: Schema.NullOr(Schema.String), ephemeral: Schema.Boolean, expiresAt: Schema.NullOr(Schema.Number),
  tokensNotBefore: Schema.Number, createdAt: Schema.Number, updatedAt: Schema.Number,
})
const Endpoint = Schema.Struct({
  webhookId: Schema.String, workspaceId: Schema.String, url: Schema.String, events: Schema.NullOr(Schema.Array(Schema.String)),
  description: Schema.NullOr(Schema.String), secretEnc: Schema.String, previousSecretEnc: Schema.NullOr(Schema.String),
  previousSecretExpiresAt: Schema.NullOr(Schema.Number), enabled: Schema.Boolean, disabledReason: Schema.NullOr(Schema.String),
  failingSince: Schema.NullOr(Schema.Number), createdAt: Schema.Number, updatedAt: Schema.Number,
})
const DefaultAgent = Schema.Struct({
  presetId: Schema.NullOr(Schema.String), overrides: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  stopDelaySeconds: Schema.NullOr(Schema.Number),
})
const Author = Schema.Union([
  Schema.Struct({ type: Schema.Literal('user'), userId: Schema.String, email: Schema.String }),
  Schema.Struct({ type: Schema.Literal('apiKey'), keyId: Schema.String }),
  Schema.Struct({ type: Schema.Literal('operator') }),
])

const payload = <const F extends Schema.Struct.Fields>(fields: F) => Schema.Struct({ by: Schema.NullOr(Author), ...fields })
const bare = payload({})

/** Each kind's payload schema; typed so that what it decodes is exactly that kind's payload. */
const payloads: { readonly [K in ChangeKind]: Schema.Codec<PayloadOf<K>, unknown> } = {
  'workspace.created': bare,
  'apikey.revoked': bare,
  'secret.rotated': bare,
  'token.revoked': payload({ clientId: Schema.NullOr(Schema.String) }),
  'client.created': payload({ client: Client }),
  'client.updated': payload({ before: Schema.NullOr(Client), after: Client }),
  'client.deleted': bare,
  'client.tokensRevoked': bare,
  'devicePassword.reset': bare,
  'room.updated': payload({ defaultAgent: Schema.NullOr(DefaultAgent) }),
  'webhook.created': payload({ endpoint: Endpoint }),
  'webhook.updated': payload({ endpoint: Endpoint }),
  'webhook.deleted': bare,
  'webhook.queued': bare,
  'user.accessChanged': bare,
}

const decoders = new Map(
  Object.entries(payloads).map(([kind, schema]) => [kind, Schema.decodeUnknownOption(Schema.fromJsonString(schema))] as const),
)

/** Kinds whose workspace or subject may be null; every other kind has both. */
const NULLABLE: Partial<Record<ChangeKind, { readonly workspace?: true; readonly subject?: true }>> = {
  'workspace.created': { subject: true },
  'user.accessChanged': { workspace: true, subject: true },
}

export const isChangeKind = (kind: string): kind is ChangeKind => decoders.has(kind)

/** The row of a change: its payload as JSON. */
export const changeRow = (change: Change): ChangeRow => {
  const { id, origin, kind, workspaceId, subject, at, ...rest } = change
  return { id, origin, kind, workspaceId, subject, at, format: CHANGE_FORMAT, payload: JSON.stringify(rest) }
}

/**
 * What a row says: the change, or `legacy` when its kind and columns are known but its payload
 * is missing or unreadable (a row of an older release: the feed reads what it lacks from
 * storage), or null for a row this release cannot use (an unknown kind, a missing workspace or
 * subject), which is skipped.
 */
export const readChangeRow = (row: ChangeRow): Change | 'legacy' | null => {
  if (!isChangeKind(row.kind)) return null
  const nullable = NULLABLE[row.kind]
  if ((row.workspaceId === null && !nullable?.workspace) || (row.subject === null && !nullable?.subject)) return null
  if (row.format === 0 || row.payload === null) return 'legacy'
  const decoded = decoders.get(row.kind)!(row.payload)
  if (decoded._tag === 'None') return 'legacy'
  const { id, origin, kind, workspaceId, subject, at } = row
  return { ...decoded.value, id, origin, kind, workspaceId, subject, at } as Change
}

/** A row read from the network (another node's message): the row's fields, checked. */
export const asChangeRow = (value: unknown): ChangeRow | null => {
  if (typeof value !== 'object' || value === null) return null
  const r = value as Record<string, unknown>
  const text = (v: unknown) => typeof v === 'string'
  const textOrNull = (v: unknown) => v === null || text(v)
  if (typeof r.id !== 'number' || !text(r.origin) || !text(r.kind) || !textOrNull(r.workspaceId) || !textOrNull(r.subject) || typeof r.at !== 'number') return null
  return {
    id: r.id, origin: r.origin as string, kind: r.kind as string, workspaceId: r.workspaceId as string | null,
    subject: r.subject as string | null, at: r.at,
    // A node of an older release sends the bare change.
    format: typeof r.format === 'number' ? r.format : 0,
    payload: typeof r.payload === 'string' ? r.payload : null,
  }
}

interface Row {
  id: number; origin: string; workspace_id: string | null; kind: string; subject: string | null; at: number; format: number; payload: string | null
}
const toRow = (r: Row): ChangeRow => ({
  id: r.id, origin: r.origin, workspaceId: r.workspace_id, kind: r.kind, subject: r.subject, at: r.at, format: r.format, payload: r.payload,
})

export const changesRepo = (db: Db) => {
  const insert = db.prepare('INSERT INTO changes (origin, workspace_id, kind, subject, at, format, payload) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const since = db.prepare('SELECT * FROM changes WHERE id > ? ORDER BY id LIMIT ?')
  const last = db.prepare('SELECT coalesce(max(id), 0) AS id FROM changes')
  const prune = db.prepare('DELETE FROM changes WHERE at < ?')
  const version = db.prepare('PRAGMA data_version')
  return {
    /** Append a row (its id is ignored); returns the id the log gave it. */
    append: (c: ChangeRow) =>
      guard('append change', () =>
        Number(insert.run(c.origin, c.workspaceId, c.kind, c.subject, c.at, c.format, c.payload).lastInsertRowid)),
    since: (id: number, limit = 500) => guard('read changes', () => (since.all(id, limit) as Row[]).map(toRow)),
    lastId: () => guard('read change cursor', () => (last.get() as { id: number }).id),
    // libSQL adds a _metadata member to row objects, so read the column by name.
    dataVersion: () => guard('read data version', () => (version.get() as { data_version: number }).data_version),
    prune: (before: number) => guard('prune changes', () => prune.run(before).changes),
  }
}
