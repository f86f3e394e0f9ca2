/**
 * Clients: the list with filters (room, kind, status) and a live online dot; a page to create
 * one; and one client's page — edit name, kind and room (a room change moves a live terminal),
 * issue a token with a lifetime, reveal / copy / reset the device password (reset behind a
 * confirmation), delete.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, get, post } from '../api'
import { useDebounced, useLive } from '../live'
import { navigate } from '../router'
import type { Client } from '../types'
import { Confirm, DataTable, Empty, ErrorText, Field, Link, PageTitle, SelectField, ShownValue, time, useAction } from '../ui'
import { can, type PageProps } from './page'

export const ClientsPage = (props: PageProps) =>
  props.rest[0] === 'new' ? <NewClient {...props} /> : props.rest[0] ? <ClientDetail {...props} clientId={decodeURIComponent(props.rest[0])} /> : <ClientList {...props} />

const OnlineDot = ({ client }: { client: Client }) => (
  <span class={`dot ${client.status}`} role="img" aria-label={client.status === 'online' ? `online over ${client.connection?.transport ?? ''}` : 'offline'} />
)

const ClientList = ({ workspace, live }: PageProps) => {
  const ws = workspace.workspaceId
  const [clients, setClients] = useState<ReadonlyArray<Client> | null>(null)
  const [room, setRoom] = useState('')
  const [kind, setKind] = useState('')
  const [status, setStatus] = useState('')
  const load = useAction()
  const query = () => {
    const q = new URLSearchParams({ limit: '500' })
    if (room.trim()) q.set('room', room.trim())
    if (kind.trim()) q.set('kind', kind.trim())
    if (status) q.set('status', status)
    return q
  }
  const refresh = () => void load.run(async () => setClients((await get<{ clients: Client[] }>(`/workspaces/${ws}/clients?${query()}`)).clients))
  const soon = useDebounced(refresh)
  useEffect(refresh, [ws, status])
  // Clearing the filters reads the list again once the cleared values are in place.
  const [cleared, setCleared] = useState(0)
  useEffect(() => {
    if (cleared > 0) refresh()
  }, [cleared])
  const filtered = room !== '' || kind !== '' || status !== ''
  useLive(live, (e) => {
    if (e.type === 'presence' || e.type === 'client') soon()
  })
  return (
    <>
      <PageTitle workspace={workspace.name}>Clients</PageTitle>
      <div class="toolbar">
        <form
          class="filters"
          role="search"
          aria-label="Filter clients"
          onSubmit={(e) => {
            e.preventDefault()
            refresh()
          }}
        >
          <Field label="Filter by room" value={room} onInput={(e) => setRoom(e.currentTarget.value)} />
          <Field label="Filter by kind" value={kind} onInput={(e) => setKind(e.currentTarget.value)} />
          <SelectField label="Filter by status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">any</option>
            <option value="online">online</option>
            <option value="offline">offline</option>
          </SelectField>
          <button type="submit" class="secondary">
            Apply filters
          </button>
        </form>
        {can(workspace, 'operate') && (
          <button type="button" onClick={() => navigate(`/w/${ws}/clients/new`)}>
            Create client
          </button>
        )}
      </div>
      <ErrorText error={load.error} />
      {clients === null ? (
        <p>Loading…</p>
      ) : clients.length === 0 && filtered ? (
        <Empty>
          <p>No clients match these filters.</p>
          <button
            type="button"
            class="secondary small"
            onClick={() => {
              setRoom('')
              setKind('')
              setStatus('')
              setCleared((n) => n + 1)
            }}
          >
            Clear filters
          </button>
        </Empty>
      ) : clients.length === 0 ? (
        <Empty>
          <p>No clients yet. A client is a device, app or page that connects to the engine and talks in a room.</p>
          {can(workspace, 'operate') ? (
            <p>
              <Link href={`/w/${ws}/clients/new`}>Create a client</Link> here, or from a shell:{' '}
              <code>hark client create CLIENT-ID --workspace {ws} --room lobby</code>
            </p>
          ) : (
            <p>An admin or a developer of {workspace.name} adds them.</p>
          )}
        </Empty>
      ) : (
        <DataTable caption={`Clients of ${workspace.name}`} columns={['Status', 'Client ID', 'Name', 'Kind', 'Room', 'Transport']}>
          {clients.map((c) => (
            <tr key={c.clientId} data-client={c.clientId} data-status={c.status}>
              <td>
                <OnlineDot client={c} /> <span class="muted">{c.status}</span>
              </td>
              <td>
                <Link href={`/w/${ws}/clients/${encodeURIComponent(c.clientId)}`} class="mono">
                  {c.clientId}
                </Link>
              </td>
              <td>{c.name ?? '—'}</td>
              <td>{c.kind ?? '—'}</td>
              <td>{c.room ?? '—'}</td>
              <td>{c.connection?.transport ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  )
}

const NewClient = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const [form, setForm] = useState({ clientId: '', name: '', kind: '', room: '' })
  const create = useAction()
  const set = (key: keyof typeof form) => (e: { currentTarget: HTMLInputElement }) => setForm({ ...form, [key]: e.currentTarget.value })
  return (
    <>
      <PageTitle workspace={workspace.name}>New client</PageTitle>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void create.run(async () => {
            const body = Object.fromEntries(Object.entries(form).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, v.trim()]))
            const c = await post<Client>(`/workspaces/${ws}/clients`, body)
            navigate(`/w/${ws}/clients/${encodeURIComponent(c.clientId)}`)
          })
        }}
      >
        <Field label="Client ID" required value={form.clientId} onInput={set('clientId')} hint="1–128 letters, digits, “.”, “_”, “:” or “-”; it becomes the token subject." />
        <Field label="Name" value={form.name} onInput={set('name')} />
        <Field label="Kind" value={form.kind} onInput={set('kind')} hint="Lower-case, e.g. device, app, web." />
        <Field label="Room" value={form.room} onInput={set('room')} hint="The room this client enters when it connects." />
        <ErrorText error={create.error} />
        <div class="row">
          <button type="submit" disabled={create.busy}>
            Create client
          </button>
          <Link href={`/w/${ws}/clients`}>Back to clients</Link>
        </div>
      </form>
    </>
  )
}

const ClientDetail = ({ workspace, live, clientId }: PageProps & { clientId: string }) => {
  const ws = workspace.workspaceId
  const path = `/workspaces/${ws}/clients/${encodeURIComponent(clientId)}`
  const [client, setClient] = useState<Client | null>(null)
  const [edit, setEdit] = useState({ name: '', kind: '', room: '' })
  const [ttl, setTtl] = useState('3600')
  const [token, setToken] = useState<{ token: string; expiresAt: string | null } | null>(null)
  const [password, setPassword] = useState<string | null>(null)
  const [confirm, setConfirm] = useState<'reset' | 'delete' | null>(null)
  const [saved, setSaved] = useState<string | null>(null)
  const load = useAction()
  const save = useAction()
  const issue = useAction()
  const secret = useAction()
  const remove = useAction()
  const adopt = (c: Client) => {
    setClient(c)
    setEdit({ name: c.name ?? '', kind: c.kind ?? '', room: c.room ?? '' })
  }
  const refresh = () => void load.run(async () => adopt(await get<Client>(path)))
  useEffect(refresh, [path])
  useLive(live, (e) => {
    // Presence only: a reload would overwrite what the user is typing in the form.
    if ((e.type === 'presence' || e.type === 'client') && e.clientId === clientId) {
      void get<Client>(path).then((c) => setClient(c), () => undefined)
    }
  })
  const operate = can(workspace, 'operate')
  const passwords = can(workspace, 'devicePasswords')
  return (
    <>
      <PageTitle workspace={workspace.name}>{`Client ${clientId}`}</PageTitle>
      <p>
        <Link href={`/w/${ws}/clients`}>Back to clients</Link>
      </p>
      <ErrorText error={load.error} />
      {client && (
        <>
          <p>
            <OnlineDot client={client} />{' '}
            {client.status === 'online' ? `Online over ${client.connection?.transport ?? '?'} since ${time(client.connection?.connectedAt ?? null)}, in room ${client.connection?.room ?? '(none)'}.` : 'Offline.'}
          </p>
          <section>
            <h2 id="edit-heading">Details</h2>
            <form
              onSubmit={(e) => {
                e.preventDefault()
                setSaved(null)
                void save.run(async () => {
                  const body = { name: edit.name.trim() || null, kind: edit.kind.trim() || null, room: edit.room.trim() || null }
                  adopt(await api<Client>('PATCH', path, body))
                  setSaved('Saved.')
                })
              }}
            >
              <Field label="Name" value={edit.name} disabled={!operate} onInput={(e) => setEdit({ ...edit, name: e.currentTarget.value })} />
              <Field label="Kind" value={edit.kind} disabled={!operate} onInput={(e) => setEdit({ ...edit, kind: e.currentTarget.value })} />
              <Field label="Room" value={edit.room} disabled={!operate} onInput={(e) => setEdit({ ...edit, room: e.currentTarget.value })} hint="Changing it moves a connected terminal to that room at once." />
              <ErrorText error={save.error} />
              <p role="status">{saved}</p>
              {operate && (
                <button type="submit" disabled={save.busy}>
                  Save changes
                </button>
              )}
            </form>
          </section>
          {operate && (
            <section>
              <h2 id="token-heading">Client token</h2>
              <form
                class="row"
                onSubmit={(e) => {
                  e.preventDefault()
                  void issue.run(async () => {
                    const seconds = ttl.trim() === '' ? undefined : Number(ttl)
                    setToken(await post(`${path}/token`, seconds === undefined ? {} : { ttlSeconds: seconds }))
                  })
                }}
              >
                <Field label="Token lifetime (seconds)" type="number" min={1} value={ttl} onInput={(e) => setTtl(e.currentTarget.value)} hint="Empty: a long-lived token." />
                <button type="submit" disabled={issue.busy}>
                  Issue token
                </button>
              </form>
              <ErrorText error={issue.error} />
              {token && (
                <>
                  <ShownValue label="Client token" value={token.token} copyLabel="Copy token" />
                  <p class="hint">Expires {token.expiresAt === null ? 'never' : time(token.expiresAt)}.</p>
                </>
              )}
            </section>
          )}
          {passwords && (
            <section>
              <h2 id="password-heading">MQTT password</h2>
              <p class="hint">The password a device gives as its MQTT password. Revealing one the device does not have yet generates it.</p>
              <div class="row">
                <button type="button" class="secondary" onClick={() => void secret.run(async () => setPassword((await post<{ password: string }>(`${path}/device-password/reveal`)).password))}>
                  Reveal device password
                </button>
                <button type="button" class="danger" onClick={() => setConfirm('reset')}>
                  Reset device password
                </button>
              </div>
              <ErrorText error={secret.error} />
              {password !== null && <ShownValue label="Device password" value={password} copyLabel="Copy device password" />}
            </section>
          )}
          {operate && (
            <section>
              <h2 id="delete-heading">Delete</h2>
              <ErrorText error={remove.error} />
              <button type="button" class="danger" onClick={() => setConfirm('delete')}>
                Delete client
              </button>
            </section>
          )}
          <Confirm
            open={confirm === 'reset'}
            title={`Reset the password of device ${clientId}?`}
            confirmLabel="Yes, reset the password"
            onCancel={() => setConfirm(null)}
            onConfirm={() => {
              setConfirm(null)
              void secret.run(async () => setPassword((await post<{ password: string }>(`${path}/device-password/reset`)).password))
            }}
          >
            <p>The current password stops working at once, and a device connected with it is disconnected.</p>
          </Confirm>
          <Confirm
            open={confirm === 'delete'}
            title={`Delete client ${clientId}?`}
            confirmLabel="Yes, delete the client"
            onCancel={() => setConfirm(null)}
            onConfirm={() => {
              setConfirm(null)
              void remove.run(async () => {
                await api('DELETE', path)
                navigate(`/w/${ws}/clients`)
              })
            }}
          >
            <p>Its live session ends, and its tokens and device password stop working.</p>
          </Confirm>
        </>
      )}
    </>
  )
}
