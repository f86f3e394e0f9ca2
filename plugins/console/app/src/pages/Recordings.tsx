/**
 * Room recordings: newest first, each with its room, what it records, its state, length, size and
 * participants. Admins and developers play each track in the page (an <audio> on the track's
 * download, which the server audits) and delete a recording; a viewer sees the metadata only,
 * as the server answers it (spec/records.md#recordings).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, get } from '../api'
import { Breakable, Confirm, DataTable, Empty, ErrorText, PageTitle, When, useAction } from '../ui'
import { can, type PageProps } from './page'

interface RecordingFile {
  readonly track: string
  readonly participantId: string | null
  readonly bytes: number
  readonly durationMs: number
}

interface Recording {
  readonly recordingId: string
  readonly room: string
  readonly tracks: string
  readonly status: 'recording' | 'finished' | 'failed'
  readonly startedAt: string
  readonly durationMs: number | null
  readonly sizeBytes: number
  readonly failure: string | null
  readonly participants: ReadonlyArray<{ readonly id: string; readonly kind: string | null }>
  readonly files: ReadonlyArray<RecordingFile>
}

const seconds = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`)
const size = (bytes: number) => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`)

export const RecordingsPage = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const operate = can(workspace, 'operate')
  const [recordings, setRecordings] = useState<ReadonlyArray<Recording> | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<Recording | null>(null)
  const load = useAction()
  const remove = useAction()
  const page = (cursor: string | null) =>
    void load.run(async () => {
      const r = await get<{ recordings: Recording[]; nextCursor: string | null }>(`/workspaces/${ws}/recordings${cursor === null ? '' : `?cursor=${cursor}`}`)
      setRecordings((e) => (cursor === null || e === null ? r.recordings : [...e, ...r.recordings]))
      setNext(r.nextCursor)
    })
  useEffect(() => page(null), [ws])
  const confirmDelete = () =>
    void remove.run(async () => {
      const r = deleting!
      setDeleting(null)
      await api('DELETE', `/workspaces/${ws}/recordings/${r.recordingId}`)
      setRecordings((list) => (list ?? []).filter((x) => x.recordingId !== r.recordingId))
    })
  return (
    <>
      <PageTitle workspace={workspace.name}>Recordings</PageTitle>
      <ErrorText error={load.error ?? remove.error} />
      {recordings === null ? (
        <p>Loading…</p>
      ) : recordings.length === 0 ? (
        <Empty>
          <p>No recordings yet. Start one with POST /api/v1/rooms/&#123;room&#125;/recordings, or set a room to record every session.</p>
        </Empty>
      ) : (
        <DataTable
          name="recordings"
          caption={`Recordings of ${workspace.name}, newest first`}
          columns={['Started', 'Room', 'Status', 'Length', 'Size', 'Tracks', ...(operate ? ['Actions'] : [])]}
        >
          {recordings.map((r) => (
            <tr key={r.recordingId}>
              <td>
                <When iso={r.startedAt} />
              </td>
              <td>
                <Breakable text={r.room} />
              </td>
              <td>
                {r.status}
                {r.failure !== null && <span class="muted"> ({r.failure})</span>}
              </td>
              <td>{seconds(r.durationMs)}</td>
              <td>{size(r.sizeBytes)}</td>
              <td>
                <ul class="tracks">
                  {r.files.map((f) => (
                    <li key={f.track}>
                      <span class="mono">{f.track}</span> {f.participantId === null ? 'room mix' : <Breakable text={f.participantId} />}
                      {operate && r.status !== 'recording' && (
                        <audio controls preload="none" src={`/api/workspaces/${ws}/recordings/${r.recordingId}/tracks/${f.track}`} aria-label={`Play ${f.track} of ${r.room}`} />
                      )}
                    </li>
                  ))}
                </ul>
              </td>
              {operate && (
                <td>
                  <button type="button" class="danger" onClick={() => setDeleting(r)} disabled={remove.busy}>
                    Delete
                  </button>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {next !== null && (
        <button type="button" class="secondary" onClick={() => page(next)} disabled={load.busy}>
          Show older recordings
        </button>
      )}
      <Confirm open={deleting !== null} title="Delete this recording?" confirmLabel="Delete recording" onConfirm={confirmDelete} onCancel={() => setDeleting(null)}>
        <p>Its files are removed from the engine's disk. This cannot be undone.</p>
      </Confirm>
    </>
  )
}
