/**
 * The audit log: when (short; in full as the time's title), what was done (second, so a phone
 * shows it before the table scrolls), by whom, to which target, from which IP, and the event's
 * detail as key/value lines; newest first, page by page.
 */
import { useEffect, useState } from 'preact/hooks'
import { get } from '../api'
import { Breakable, DataTable, Empty, ErrorText, KeyValues, PageTitle, When, useAction } from '../ui'
import type { PageProps } from './page'

interface AuditEvent {
  readonly id: number
  readonly at: string
  readonly actor: string
  readonly action: string
  readonly target: string | null
  readonly ip: string | null
  readonly detail: Record<string, unknown> | null
}

export const AuditPage = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const [events, setEvents] = useState<ReadonlyArray<AuditEvent> | null>(null)
  const [next, setNext] = useState<number | null>(null)
  const load = useAction()
  const page = (before: number | null) =>
    void load.run(async () => {
      const r = await get<{ events: AuditEvent[]; nextBefore: number | null }>(`/workspaces/${ws}/audit?limit=100${before === null ? '' : `&before=${before}`}`)
      setEvents((e) => (before === null || e === null ? r.events : [...e, ...r.events]))
      setNext(r.nextBefore)
    })
  useEffect(() => page(null), [ws])
  return (
    <>
      <PageTitle workspace={workspace.name}>Audit log</PageTitle>
      <ErrorText error={load.error} />
      {events === null ? (
        <p>Loading…</p>
      ) : events.length === 0 ? (
        <Empty>
          <p>No security events yet. Sign-ins, API keys, device passwords, members and secret rotations are recorded here as they happen.</p>
        </Empty>
      ) : (
        <DataTable name="audit" caption={`Security events of ${workspace.name}, newest first`} columns={['When', 'What', 'Who', 'Target', 'From', 'Detail']}>
          {events.map((e) => (
            <tr key={e.id}>
              <td>
                <When iso={e.at} />
              </td>
              <td class="mono">{e.action}</td>
              <td>
                <Breakable text={e.actor} />
              </td>
              <td>
                <Breakable text={e.target ?? '—'} />
              </td>
              <td class="mono">{e.ip ?? '—'}</td>
              <td>
                <KeyValues value={e.detail} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {next !== null && (
        <button type="button" class="secondary" onClick={() => page(next)} disabled={load.busy}>
          Show older events
        </button>
      )}
    </>
  )
}
