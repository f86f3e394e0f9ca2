/**
 * Room recordings (core/recordings): one row per recording — its room, what it records, where its
 * files are and on which node, its state (`recording` while it runs, then `finished` or `failed`)
 * and its tracks as JSON — and the room setting that records every session of a room.
 */
import { guard, type Db } from './db.js'

export type RecordingTracksSetting = 'mixed' | 'per-participant' | 'both'
export type RecordingStatus = 'recording' | 'finished' | 'failed'

export interface RecordedTrack {
  readonly name: string
  readonly participantId: string | null
  readonly kind: 'terminal' | 'agent' | null
  readonly file: string
  readonly bytes: number
  readonly durationMs: number
}

export interface RecordingRecord {
  readonly recordingId: string
  readonly workspaceId: string
  readonly room: string
  readonly tracks: RecordingTracksSetting
  readonly status: RecordingStatus
  readonly nodeId: string
  readonly dir: string
  readonly startedAt: number
  readonly endedAt: number | null
  readonly durationMs: number | null
  readonly sizeBytes: number
  readonly trackList: ReadonlyArray<RecordedTrack>
  /** `api` (POST …/recordings), `room` (the room's setting), `agent:<agentId>` (an agent whose preset records). */
  readonly startedBy: string
  readonly failure: string | null
}

interface Row {
  recording_id: string; workspace_id: string; room: string; tracks: string; status: string; node_id: string; dir: string
  started_at: number; ended_at: number | null; duration_ms: number | null; size_bytes: number; track_list: string
  started_by: string; failure: string | null
}
const toRecord = (r: Row): RecordingRecord => ({
  recordingId: r.recording_id, workspaceId: r.workspace_id, room: r.room, tracks: r.tracks as RecordingTracksSetting,
  status: r.status as RecordingStatus, nodeId: r.node_id, dir: r.dir, startedAt: r.started_at, endedAt: r.ended_at,
  durationMs: r.duration_ms, sizeBytes: r.size_bytes, trackList: JSON.parse(r.track_list) as RecordedTrack[], startedBy: r.started_by,
  failure: r.failure,
})

export interface RecordingQuery {
  readonly room?: string
  readonly status?: RecordingStatus
  /** Started at or after / before (epoch ms). */
  readonly from?: number
  readonly to?: number
  /** Started by this agent (its preset records): `startedBy` is `agent:<agentId>`. */
  readonly agentId?: string
  /** Page cursor: ids below this one (newest first). */
  readonly before?: string
  readonly limit: number
}

export const recordingsRepo = (db: Db) => {
  const insert = db.prepare(`INSERT INTO recordings (recording_id, workspace_id, room, tracks, status, node_id, dir, started_at, started_by)
    VALUES (?, ?, ?, ?, 'recording', ?, ?, ?, ?)`)
  const setTracks = db.prepare('UPDATE recordings SET track_list = ? WHERE recording_id = ?')
  const end = db.prepare(`UPDATE recordings SET status = ?, ended_at = ?, duration_ms = ?, size_bytes = ?, track_list = ?, failure = ?
    WHERE recording_id = ?`)
  const byId = db.prepare('SELECT * FROM recordings WHERE workspace_id = ? AND recording_id = ?')
  const running = db.prepare(`SELECT * FROM recordings WHERE status = 'recording' AND node_id = ?`)
  const remove = db.prepare('DELETE FROM recordings WHERE workspace_id = ? AND recording_id = ?')
  const endedBefore = db.prepare(`SELECT * FROM recordings WHERE status != 'recording' AND ended_at < ? AND node_id = ? LIMIT ?`)
  const list = db.prepare(`SELECT * FROM recordings WHERE workspace_id = ?1 AND recording_id < ?2
    AND (?3 IS NULL OR room = ?3) AND (?4 IS NULL OR status = ?4) AND (?5 IS NULL OR started_at >= ?5) AND (?6 IS NULL OR started_at < ?6)
    AND (?8 IS NULL OR started_by = 'agent:' || ?8)
    ORDER BY recording_id DESC LIMIT ?7`)
  const setting = db.prepare('SELECT record_tracks FROM room_settings WHERE workspace_id = ? AND room = ?')
  const settings = db.prepare('SELECT room, record_tracks FROM room_settings WHERE workspace_id = ? AND record_tracks IS NOT NULL')
  const putSetting = db.prepare(`INSERT INTO room_settings (workspace_id, room, default_agent, updated_at, record_tracks) VALUES (?, ?, NULL, ?, ?)
    ON CONFLICT (workspace_id, room) DO UPDATE SET record_tracks = excluded.record_tracks, updated_at = excluded.updated_at`)
  return {
    insert: (r: Pick<RecordingRecord, 'recordingId' | 'workspaceId' | 'room' | 'tracks' | 'nodeId' | 'dir' | 'startedAt' | 'startedBy'>) =>
      guard('insert recording', () => {
        insert.run(r.recordingId, r.workspaceId, r.room, r.tracks, r.nodeId, r.dir, r.startedAt, r.startedBy)
      }),
    setTracks: (recordingId: string, tracks: ReadonlyArray<RecordedTrack>) =>
      guard('update recording tracks', () => {
        setTracks.run(JSON.stringify(tracks), recordingId)
      }),
    end: (recordingId: string, e: { status: Exclude<RecordingStatus, 'recording'>; endedAt: number; durationMs: number; sizeBytes: number; trackList: ReadonlyArray<RecordedTrack>; failure: string | null }) =>
      guard('end recording', () => {
        end.run(e.status, e.endedAt, e.durationMs, e.sizeBytes, JSON.stringify(e.trackList), e.failure, recordingId)
      }),
    get: (workspaceId: string, recordingId: string) =>
      guard('get recording', () => {
        const r = byId.get(workspaceId, recordingId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    /** Recordings this node left running (a crash): the recovery pass finishes them. */
    running: (nodeId: string) => guard('list running recordings', () => (running.all(nodeId) as Row[]).map(toRecord)),
    /** Ended recordings of this node past retention. */
    endedBefore: (at: number, nodeId: string, limit: number) =>
      guard('list expired recordings', () => (endedBefore.all(at, nodeId, limit) as Row[]).map(toRecord)),
    list: (workspaceId: string, q: RecordingQuery) =>
      guard('list recordings', () =>
        (list.all(workspaceId, q.before ?? '\uffff', q.room ?? null, q.status ?? null, q.from ?? null, q.to ?? null, q.limit, q.agentId ?? null) as Row[]).map(toRecord)),
    delete: (workspaceId: string, recordingId: string) => guard('delete recording', () => remove.run(workspaceId, recordingId).changes > 0),
    /** The room's setting: record every session with these tracks (null: not automatically). */
    autoRecord: (workspaceId: string, room: string) =>
      guard('get room recording setting', () => {
        const r = setting.get(workspaceId, room) as { record_tracks: string | null } | undefined
        return (r?.record_tracks ?? null) as RecordingTracksSetting | null
      }),
    /** Every room of the workspace whose setting records its sessions, with its tracks. */
    autoRecordRooms: (workspaceId: string): ReadonlyMap<string, RecordingTracksSetting> =>
      guard('list room recording settings', () =>
        new Map((settings.all(workspaceId) as Array<{ room: string; record_tracks: RecordingTracksSetting }>).map((r) => [r.room, r.record_tracks]))),
    setAutoRecord: (workspaceId: string, room: string, tracks: RecordingTracksSetting | null, at: number) =>
      guard('put room recording setting', () => {
        putSetting.run(workspaceId, room, at, tracks)
      }),
  }
}
