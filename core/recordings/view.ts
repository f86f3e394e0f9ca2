/**
 * The JSON form of a recording (the REST API's `Recording`, the console's list and detail): its
 * room, what it records, its state, its participants and its track files, without the node's paths.
 */
import type { RecordingRecord } from '../storage/recordings.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export const recordingView = (r: RecordingRecord) => ({
  recordingId: r.recordingId,
  room: r.room,
  tracks: r.tracks,
  status: r.status,
  startedAt: iso(r.startedAt)!,
  endedAt: iso(r.endedAt),
  durationMs: r.durationMs,
  sizeBytes: r.sizeBytes,
  startedBy: r.startedBy,
  failure: r.failure,
  participants: r.trackList.filter((t) => t.participantId !== null).map((t) => ({ id: t.participantId!, kind: t.kind })),
  files: r.trackList.map((t) => ({ track: t.name, participantId: t.participantId, bytes: t.bytes, durationMs: t.durationMs })),
})

export type RecordingView = ReturnType<typeof recordingView>
