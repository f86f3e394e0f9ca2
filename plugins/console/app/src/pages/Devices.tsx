/**
 * Add device by code (admin only): a device that ships without credentials (xiaozhi-esp32
 * firmware) shows a 6-digit code; entering it here with a client id (an existing client, or a new
 * one to create) and an optional room binds the device to that client. Its next OTA check is
 * answered with its credentials. The server checks the code (6 digits; one a device is waiting
 * with) and says what is wrong. Below, the devices added so far.
 */
import { useEffect, useId, useState } from 'preact/hooks'
import { get, post } from '../api'
import type { Client } from '../types'
import { DataTable, Empty, ErrorText, Field, Link, PageTitle, When, useAction } from '../ui'
import type { PageProps } from './page'

interface Device {
  readonly deviceId: string
  readonly clientId: string
  readonly kind: string
  readonly boundAt: string
}

interface Claimed {
  readonly deviceId: string
  readonly clientId: string
  readonly room: string | null
  readonly clientCreated: boolean
}

export const DevicesPage = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const listId = useId()
  const [devices, setDevices] = useState<ReadonlyArray<Device>>([])
  const [clients, setClients] = useState<ReadonlyArray<string>>([])
  const [code, setCode] = useState('')
  const [clientId, setClientId] = useState('')
  const [room, setRoom] = useState('')
  const [claimed, setClaimed] = useState<Claimed | null>(null)
  const load = useAction()
  const claim = useAction()
  const refresh = () =>
    void load.run(async () => {
      const [d, c] = await Promise.all([get<{ devices: Device[] }>(`/workspaces/${ws}/devices`), get<{ clients: Client[] }>(`/workspaces/${ws}/clients?limit=500`)])
      setDevices(d.devices)
      setClients(c.clients.filter((x) => !x.ephemeral).map((x) => x.clientId))
    })
  useEffect(refresh, [ws])
  return (
    <>
      <PageTitle workspace={workspace.name}>Add device by code</PageTitle>
      <p>
        A xiaozhi-esp32 device that is not in a workspace yet shows a 6-digit activation code (on its screen, or spoken). Enter it here to make the
        device a client of {workspace.name}.
      </p>
      <form
        aria-label="Add device by code"
        onSubmit={(e) => {
          e.preventDefault()
          setClaimed(null)
          void claim.run(async () => {
            const r = await post<Claimed>(`/workspaces/${ws}/devices/claim`, { code: code.trim(), clientId: clientId.trim(), room: room.trim() || null })
            setClaimed(r)
            setCode('')
            refresh()
          })
        }}
      >
        <Field label="Activation code" inputMode="numeric" autoComplete="off" value={code} onInput={(e) => setCode(e.currentTarget.value)} hint="The 6 digits the device shows." />
        <Field
          label="Client ID"
          list={listId}
          value={clientId}
          onInput={(e) => setClientId(e.currentTarget.value)}
          hint="An existing client (the device replaces nothing else it has), or a new ID: the client is created."
        />
        <datalist id={listId}>
          {clients.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        <Field label="Room" value={room} onInput={(e) => setRoom(e.currentTarget.value)} hint="Optional: the room the device talks in." />
        <button type="submit" disabled={claim.busy}>
          Add device
        </button>
      </form>
      <ErrorText error={claim.error} />
      <div role="status" class="status">
        {claimed && (
          <p class="notice">
            Device <span class="mono">{claimed.deviceId}</span> is now client{' '}
            <Link href={`/w/${ws}/clients/${encodeURIComponent(claimed.clientId)}`}>{claimed.clientId}</Link>
            {claimed.clientCreated ? ' (created)' : ''}
            {claimed.room ? ` in room ${claimed.room}` : ''}. What happens next: at its next OTA check the device receives its credentials and
            connects; it checks when it starts and while it shows the code, so restarting it connects it at once.
          </p>
        )}
      </div>
      <h2>Devices added by code</h2>
      <ErrorText error={load.error} />
      {devices.length === 0 ? (
        <Empty>
          <p>None yet. Enter a device’s 6-digit code above; from a shell it is <code>hark xiaozhi activate CODE --workspace {ws} --client CLIENT-ID</code>.</p>
        </Empty>
      ) : (
        <DataTable caption="Devices added by code" columns={['Device', 'Client', 'Kind', 'Added']}>
          {devices.map((d) => (
            <tr key={d.deviceId} data-device={d.deviceId}>
              <td class="mono">{d.deviceId}</td>
              <td>{d.clientId}</td>
              <td>{d.kind}</td>
              <td>
                <When iso={d.boundAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  )
}
