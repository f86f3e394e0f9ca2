/**
 * Agent presets ("saved agents"): per workspace, a provider name and the config a dispatch starts
 * from. The config is stored as JSON text and was validated against the provider's schema when
 * it was written; it never holds secrets (those are server settings).
 */
import { guard, type Db } from './db.js'
import type { RecordingTracksSetting } from './recordings.js'

/** What a preset asks of its agents' conversations: a room recording with these tracks. */
export interface PresetRecordSetting {
  readonly tracks: RecordingTracksSetting
}

export interface AgentPresetRecord {
  readonly workspaceId: string
  readonly presetId: string
  readonly name: string | null
  readonly provider: string
  readonly config: Readonly<Record<string, unknown>>
  /** Record the room while an agent of this preset is in it (absent or null: not by the preset). */
  readonly record?: PresetRecordSetting | null
  readonly createdAt: number
  readonly updatedAt: number
}

export interface AgentPresetPatch {
  readonly name?: string | null
  readonly provider?: string
  readonly config?: Readonly<Record<string, unknown>>
  readonly record?: PresetRecordSetting | null
}

interface Row {
  workspace_id: string; preset_id: string; name: string | null; provider: string; config: string
  record_tracks: string | null; created_at: number; updated_at: number
}
const toRecord = (r: Row): AgentPresetRecord => ({
  workspaceId: r.workspace_id, presetId: r.preset_id, name: r.name, provider: r.provider,
  config: JSON.parse(r.config) as Record<string, unknown>,
  record: r.record_tracks === null ? null : { tracks: r.record_tracks as RecordingTracksSetting }, createdAt: r.created_at, updatedAt: r.updated_at,
})

export const agentPresetsRepo = (db: Db) => {
  const insert = db.prepare(`INSERT INTO agent_presets
    (workspace_id, preset_id, name, provider, config, record_tracks, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
  const byId = db.prepare('SELECT * FROM agent_presets WHERE workspace_id = ? AND preset_id = ?')
  const list = db.prepare(
    'SELECT * FROM agent_presets WHERE workspace_id = ? AND preset_id > ? ORDER BY preset_id LIMIT ?')
  const update = db.prepare(`UPDATE agent_presets SET name = ?, provider = ?, config = ?, record_tracks = ?, updated_at = ?
    WHERE workspace_id = ? AND preset_id = ? RETURNING *`)
  const remove = db.prepare('DELETE FROM agent_presets WHERE workspace_id = ? AND preset_id = ?')
  return {
    insert: (p: AgentPresetRecord) =>
      guard('insert agent preset', () =>
        void insert.run(p.workspaceId, p.presetId, p.name, p.provider, JSON.stringify(p.config), p.record?.tracks ?? null, p.createdAt, p.updatedAt)),
    get: (workspaceId: string, presetId: string) =>
      guard('get agent preset', () => {
        const r = byId.get(workspaceId, presetId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    /** Presets ordered by presetId (a stable cursor). */
    list: (workspaceId: string, q: { after?: string; limit: number }) =>
      guard('list agent presets', () => (list.all(workspaceId, q.after ?? '', q.limit) as Row[]).map(toRecord)),
    /** Replace the given fields; returns the updated record, or null when there is no such preset. */
    update: (workspaceId: string, presetId: string, patch: AgentPresetPatch, at: number) =>
      guard('update agent preset', () => {
        const current = byId.get(workspaceId, presetId) as Row | undefined
        if (!current) return null
        const r = update.get(
          patch.name !== undefined ? patch.name : current.name,
          patch.provider ?? current.provider,
          patch.config !== undefined ? JSON.stringify(patch.config) : current.config,
          patch.record !== undefined ? (patch.record?.tracks ?? null) : current.record_tracks,
          at, workspaceId, presetId,
        ) as Row | undefined
        return r ? toRecord(r) : null
      }),
    delete: (workspaceId: string, presetId: string) =>
      guard('delete agent preset', () => remove.run(workspaceId, presetId).changes === 1),
  }
}
