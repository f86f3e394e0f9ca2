/**
 * Reading, finding and erasing agents' conversations: what the REST API and the console share.
 * Pages are ordered (turns by seq; conversations newest first) and their cursors opaque. Whoever
 * may not read text (a console viewer) gets the same shapes with text and tool calls withheld.
 * Erasure deletes the rows and writes an audit entry.
 */
import type { ClockShape } from '../clock.js'
import { NotFound, ValidationFailed } from '../errors.js'
import { isoTime, isoTimeOrNull } from '../operations/views.js'
import { recordAudit, type Actor } from '../people/audit.js'
import type { StorageShape } from '../storage/storage.js'
import type { TranscriptRecord, TranscriptTurn } from '../storage/transcripts.js'

export const TURNS_LIMIT_DEFAULT = 100
export const TURNS_LIMIT_MAX = 500
export const TRANSCRIPTS_LIMIT_DEFAULT = 50
export const TRANSCRIPTS_LIMIT_MAX = 200
/** What a cursor this API returns looks like (base64url). */
export const TRANSCRIPT_CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,200}$'

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/
const AGENT_ID = /^ag_[A-Za-z0-9]{1,64}$/

export const transcriptView = (t: TranscriptRecord) => ({
  agentId: t.agentId,
  room: t.room,
  identity: t.identity,
  provider: t.provider,
  presetId: t.presetId,
  startedAt: isoTime(t.startedAt),
  endedAt: isoTimeOrNull(t.endedAt),
  turns: t.turns,
})

export const turnView = (t: TranscriptTurn, withText: boolean) => ({
  seq: t.seq,
  kind: t.kind,
  role: t.role,
  speaker: t.speaker,
  clientId: t.clientId,
  text: withText ? t.text : null,
  startedAt: isoTime(t.startedAt),
  endedAt: isoTime(t.endedAt),
  interrupted: t.interrupted,
  interruptedBy: t.interruptedBy,
  tool: withText ? t.tool : null,
})

const badCursor = () => new ValidationFailed({ field: 'cursor', message: 'query parameter cursor is not a cursor this API returned' })

const decode = (cursor: string): string => Buffer.from(cursor, 'base64url').toString('utf8')
const encode = (s: string): string => Buffer.from(s, 'utf8').toString('base64url')

/** A time filter: ISO 8601 with a time zone. */
export const parseTime = (field: string, value: string | undefined): number | null => {
  if (value === undefined) return null
  const ms = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN
  if (!Number.isFinite(ms)) throw new ValidationFailed({ field, message: `query parameter ${field} must be an ISO 8601 date-time with a time zone (2026-03-01T10:00:00Z)` })
  return ms
}

export interface TurnsPage {
  readonly cursor?: string | undefined
  readonly limit?: number | undefined
}

/** One conversation with a page of its turns; 404 when none is recorded for that agent in the workspace. */
export const readTranscript = (storage: StorageShape, workspaceId: string, agentId: string, page: TurnsPage, withText: boolean) => {
  let after = 0
  if (page.cursor !== undefined) {
    const s = decode(page.cursor)
    if (!/^[1-9][0-9]{0,9}$/.test(s)) throw badCursor()
    after = Number(s)
  }
  const limit = page.limit ?? TURNS_LIMIT_DEFAULT
  const record = AGENT_ID.test(agentId) ? storage.transcripts.get(workspaceId, agentId) : null
  if (!record) throw new NotFound({ message: `no transcript of agent ${agentId} in this workspace` })
  const turns = storage.transcripts.turns(workspaceId, agentId, after, limit + 1)
  const more = turns.length > limit
  const shown = more ? turns.slice(0, limit) : turns
  return {
    ...transcriptView(record),
    textHidden: !withText,
    items: shown.map((t) => turnView(t, withText)),
    nextCursor: more ? encode(String(shown[shown.length - 1]!.seq)) : null,
  }
}

export interface TranscriptFilter {
  readonly room?: string | undefined
  readonly clientId?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly cursor?: string | undefined
  readonly limit?: number | undefined
}

/** Conversations of a workspace, newest first, by room, terminal and start time. */
export const findTranscripts = (storage: StorageShape, workspaceId: string, f: TranscriptFilter) => {
  const from = parseTime('from', f.from)
  const to = parseTime('to', f.to)
  if (from !== null && to !== null && to < from) throw new ValidationFailed({ field: 'to', message: 'query parameter to is before from' })
  let before: { startedAt: number; agentId: string } | null = null
  if (f.cursor !== undefined) {
    const m = /^([0-9]{1,16})\.(ag_[A-Za-z0-9]{1,64})$/.exec(decode(f.cursor))
    if (!m) throw badCursor()
    before = { startedAt: Number(m[1]), agentId: m[2]! }
  }
  const limit = f.limit ?? TRANSCRIPTS_LIMIT_DEFAULT
  const rows = storage.transcripts.list(workspaceId, { room: f.room ?? null, clientId: f.clientId ?? null, from, to, before, limit: limit + 1 })
  const more = rows.length > limit
  const shown = more ? rows.slice(0, limit) : rows
  const last = shown[shown.length - 1]
  return { items: shown.map(transcriptView), nextCursor: more && last ? encode(`${last.startedAt}.${last.agentId}`) : null }
}

/** Erase a conversation (its turns go with it) and say who did it in the audit log. */
export const eraseTranscript = (storage: StorageShape, clock: ClockShape, actor: Actor, workspaceId: string, agentId: string) => {
  storage.transaction(() => {
    if (!AGENT_ID.test(agentId) || !storage.transcripts.delete(workspaceId, agentId)) {
      throw new NotFound({ message: `no transcript of agent ${agentId} in this workspace` })
    }
    recordAudit(storage, clock, actor, { action: 'transcript.deleted', workspaceId, target: agentId })
  })
  return { agentId, deleted: true as const }
}
