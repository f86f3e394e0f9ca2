/** The audit log: who did what to which target, when, from which IP; newest first, page by page. */
import { useEffect, useState } from 'preact/hooks'
import { get } from '../api'
import { DataTable, ErrorText, PageTitle, time, useAction } from '../ui'
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
  const [events, setEvents] = useState<ReadonlyArray<AuditEvent>>([])
  const [next, setNext] = useState<number | null>(null)
  const load = useAction()
  const page = (before: number | null) =>
    void load.run(async () => {
      const r = await get<{ events: AuditEvent[]; nextBefore: number | null }>(`/workspaces/${ws}/audit?limit=100${before === null ? '' : `&before=${before}`}`)
      setEvents((e) => (before === null ? r.events : [...e, ...r.events]))
      setNext(r.nextBefore)
    })
  useEffect(() => page(null), [ws])
  return (
    <>
      <PageTitle workspace={workspace.name}>Audit log</PageTitle>
      <ErrorText error={load.error} />
      <DataTable caption={`Security events of ${workspace.name}, newest first`} columns={['When', 'Who', 'What', 'Target', 'From', 'Detail']}>
          {events.map((e) => (
            <tr key={e.id}>
              <td>{time(e.at)}</td>
              <td>{e.actor}</td>
              <td class="mono">{e.action}</td>
              <td>{e.target ?? '—'}</td>
              <td class="mono">{e.ip ?? '—'}</td>
              <td class="mono small">{e.detail ? JSON.stringify(e.detail) : ''}</td>
            </tr>
          ))}
      </DataTable>
      {next !== null && (
        <button type="button" class="secondary" onClick={() => page(next)} disabled={load.busy}>
          Show older events
        </button>
      )}
    </>
  )
}
