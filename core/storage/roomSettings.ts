/**
 * Room settings: what a workspace configured for one room by name — so far its default agent,
 * dispatched when the first terminal joins and stopped a while after the last one leaves. A room
 * needs no row to exist; a row only carries settings.
 */
import { guard, type Db } from './db.js'

/** Which agent a room starts by itself: a preset (or the platform default) plus overrides. */
export interface DefaultAgentSetting {
  readonly presetId: string | null
  readonly overrides: Readonly<Record<string, unknown>> | null
  /** Seconds the agent stays after the last terminal left; null: the engine's setting. */
  readonly stopDelaySeconds: number | null
}

export interface RoomSettingsRecord {
  readonly workspaceId: string
  readonly room: string
  readonly defaultAgent: DefaultAgentSetting | null
  readonly updatedAt: number
}

interface Row { workspace_id: string; room: string; default_agent: string | null; updated_at: number }
const toRecord = (r: Row): RoomSettingsRecord => ({
  workspaceId: r.workspace_id, room: r.room,
  defaultAgent: r.default_agent === null ? null : (JSON.parse(r.default_agent) as DefaultAgentSetting),
  updatedAt: r.updated_at,
})

export const roomSettingsRepo = (db: Db) => {
  const upsert = db.prepare(`INSERT INTO room_settings (workspace_id, room, default_agent, updated_at)
    VALUES (?, ?, ?, ?)
    ON CONFLICT (workspace_id, room) DO UPDATE SET default_agent = excluded.default_agent, updated_at = excluded.updated_at
    RETURNING *`)
  const byRoom = db.prepare('SELECT * FROM room_settings WHERE workspace_id = ? AND room = ?')
  const list = db.prepare('SELECT * FROM room_settings WHERE workspace_id = ? AND room > ? ORDER BY room LIMIT ?')
  const withDefault = db.prepare('SELECT room FROM room_settings WHERE workspace_id = ? AND default_agent IS NOT NULL')
  return {
    put: (s: Omit<RoomSettingsRecord, 'updatedAt'>, at: number) =>
      guard('put room settings', () =>
        toRecord(upsert.get(s.workspaceId, s.room, s.defaultAgent === null ? null : JSON.stringify(s.defaultAgent), at) as Row)),
    get: (workspaceId: string, room: string) =>
      guard('get room settings', () => {
        const r = byRoom.get(workspaceId, room) as Row | undefined
        return r ? toRecord(r) : null
      }),
    /** The workspace's rooms that name a default agent. */
    roomsWithDefaultAgent: (workspaceId: string): string[] =>
      guard('list rooms with a default agent', () => (withDefault.all(workspaceId) as Array<{ room: string }>).map((r) => r.room)),
    list: (workspaceId: string, q: { after?: string; limit: number }) =>
      guard('list room settings', () => (list.all(workspaceId, q.after ?? '', q.limit) as Row[]).map(toRecord)),
  }
}
