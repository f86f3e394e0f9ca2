/**
 * Transcripts: one row per agent run (its room, provider, start and end, how many turns) and one
 * per turn of its conversation, in order (`seq` 1, 2, 3 … per agent). Turns are appended in
 * batches as the conversation goes (core/transcripts/writer.ts); erasure and the retention sweep
 * delete a run's row and its turns go with it (ON DELETE CASCADE).
 */
import { guard, type Db } from './db.js'

export type TurnKind = 'speech' | 'tool_call'
export type TurnRole = 'user' | 'agent'

/** A tool call the agent made, as its provider reported it. */
export interface ToolCallRecord {
  readonly name: string
  /** Where the tool lives (`device`, `mcp`, `backend` …) when the provider says. */
  readonly source: string | null
  readonly arguments: unknown
  /** What it answered (text or JSON), null when it failed. */
  readonly result: unknown
  /** Why it failed, null when it answered. */
  readonly error: string | null
  readonly latencyMs: number | null
}

export interface TranscriptTurn {
  readonly seq: number
  readonly kind: TurnKind
  readonly role: TurnRole
  /** The agent's identity; a terminal's client id; `room` for the room's mixed input. */
  readonly speaker: string
  /** The terminal that spoke, when known. */
  readonly clientId: string | null
  /** What was said (for a cut reply: what the room heard); null when the provider has no text (echo). */
  readonly text: string | null
  /** Epoch milliseconds. */
  readonly startedAt: number
  readonly endedAt: number
  /** An agent reply cut by a barge-in. */
  readonly interrupted: boolean
  /** The terminal that talked over it, when known. */
  readonly interruptedBy: string | null
  readonly tool: ToolCallRecord | null
}

export interface TranscriptRecord {
  readonly workspaceId: string
  readonly agentId: string
  readonly room: string
  readonly identity: string
  readonly provider: string
  readonly presetId: string | null
  readonly startedAt: number
  /** null while the agent runs (or when its node stopped without saying so). */
  readonly endedAt: number | null
  readonly turns: number
}

export interface TranscriptQuery {
  readonly room: string | null
  readonly clientId: string | null
  /** Started at or after (epoch ms). */
  readonly from: number | null
  /** Started before (epoch ms). */
  readonly to: number | null
  /** The last conversation of the previous page (newest first). */
  readonly before: { readonly startedAt: number; readonly agentId: string } | null
  readonly limit: number
}

interface RunRow {
  workspace_id: string; agent_id: string; room: string; identity: string; provider: string; preset_id: string | null
  started_at: number; ended_at: number | null; turns: number
}
interface TurnRow {
  seq: number; kind: TurnKind; role: TurnRole; speaker: string; client_id: string | null; text: string | null
  started_at: number; ended_at: number; interrupted: number; interrupted_by: string | null; tool: string | null
}

const toRecord = (r: RunRow): TranscriptRecord => ({
  workspaceId: r.workspace_id, agentId: r.agent_id, room: r.room, identity: r.identity, provider: r.provider,
  presetId: r.preset_id, startedAt: r.started_at, endedAt: r.ended_at, turns: r.turns,
})
const toTurn = (r: TurnRow): TranscriptTurn => ({
  seq: r.seq, kind: r.kind, role: r.role, speaker: r.speaker, clientId: r.client_id, text: r.text,
  startedAt: r.started_at, endedAt: r.ended_at, interrupted: r.interrupted === 1, interruptedBy: r.interrupted_by,
  tool: r.tool === null ? null : (JSON.parse(r.tool) as ToolCallRecord),
})

export const transcriptsRepo = (db: Db) => {
  const open = db.prepare(`INSERT INTO transcripts (workspace_id, agent_id, room, identity, provider, preset_id, started_at)
    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
  const insertTurn = db.prepare(`INSERT INTO transcript_turns
    (workspace_id, agent_id, seq, kind, role, speaker, client_id, text, started_at, ended_at, interrupted, interrupted_by, tool)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
  const count = db.prepare('UPDATE transcripts SET turns = turns + ? WHERE workspace_id = ? AND agent_id = ?')
  const end = db.prepare('UPDATE transcripts SET ended_at = ? WHERE workspace_id = ? AND agent_id = ? AND ended_at IS NULL')
  const get = db.prepare('SELECT * FROM transcripts WHERE workspace_id = ? AND agent_id = ?')
  const turns = db.prepare('SELECT * FROM transcript_turns WHERE workspace_id = ? AND agent_id = ? AND seq > ? ORDER BY seq LIMIT ?')
  const list = db.prepare(`SELECT * FROM transcripts AS t WHERE workspace_id = ?1
      AND (?2 IS NULL OR room = ?2)
      AND (?3 IS NULL OR started_at >= ?3)
      AND (?4 IS NULL OR started_at < ?4)
      AND (?5 IS NULL OR started_at < ?5 OR (started_at = ?5 AND agent_id < ?6))
      AND (?7 IS NULL OR EXISTS (SELECT 1 FROM transcript_turns AS u
        WHERE u.workspace_id = t.workspace_id AND u.client_id = ?7 AND u.agent_id = t.agent_id))
    ORDER BY started_at DESC, agent_id DESC LIMIT ?8`)
  const remove = db.prepare('DELETE FROM transcripts WHERE workspace_id = ? AND agent_id = ?')
  const sweep = db.prepare('DELETE FROM transcripts WHERE ended_at IS NOT NULL AND ended_at < ?')
  const sweepOpen = db.prepare(`DELETE FROM transcripts AS t WHERE ended_at IS NULL AND started_at < ?1
    AND NOT EXISTS (SELECT 1 FROM transcript_turns AS u WHERE u.workspace_id = t.workspace_id AND u.agent_id = t.agent_id AND u.ended_at >= ?1)`)

  return {
    /** The run's row (once; a second call changes nothing). */
    open: (r: Omit<TranscriptRecord, 'endedAt' | 'turns'>) =>
      guard('open transcript', () => void open.run(r.workspaceId, r.agentId, r.room, r.identity, r.provider, r.presetId, r.startedAt)),
    /** Append turns (their seq given); a turn already written (same seq) is skipped. */
    append: (workspaceId: string, agentId: string, list: ReadonlyArray<TranscriptTurn>) =>
      guard('append transcript turns', () => {
        let n = 0
        for (const t of list) {
          n += insertTurn.run(
            workspaceId, agentId, t.seq, t.kind, t.role, t.speaker, t.clientId, t.text, t.startedAt, t.endedAt,
            t.interrupted ? 1 : 0, t.interruptedBy, t.tool === null ? null : JSON.stringify(t.tool),
          ).changes
        }
        if (n > 0) count.run(n, workspaceId, agentId)
        return n
      }),
    end: (workspaceId: string, agentId: string, at: number) => guard('end transcript', () => void end.run(at, workspaceId, agentId)),
    get: (workspaceId: string, agentId: string) =>
      guard('read transcript', () => {
        const r = get.get(workspaceId, agentId) as RunRow | undefined
        return r ? toRecord(r) : null
      }),
    /** Turns after `afterSeq`, in order. */
    turns: (workspaceId: string, agentId: string, afterSeq: number, limit: number) =>
      guard('read transcript turns', () => (turns.all(workspaceId, agentId, afterSeq, limit) as TurnRow[]).map(toTurn)),
    /** Conversations of a workspace, newest first. */
    list: (workspaceId: string, q: TranscriptQuery) =>
      guard('list transcripts', () =>
        (list.all(workspaceId, q.room, q.from, q.to, q.before?.startedAt ?? null, q.before?.agentId ?? null, q.clientId, q.limit) as RunRow[]).map(toRecord)),
    /** Erase one conversation and its turns; false when there was none. */
    delete: (workspaceId: string, agentId: string) => guard('delete transcript', () => remove.run(workspaceId, agentId).changes > 0),
    /**
     * Retention: conversations that ended before `before`, and those never marked ended (their
     * node stopped abruptly, or the agent still runs) with nothing since `openBefore`. Returns how many went.
     */
    sweep: (before: number, openBefore: number) => guard('sweep transcripts', () => sweep.run(before).changes + sweepOpen.run(openBefore).changes),
  }
}
