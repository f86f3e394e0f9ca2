/**
 * API keys: create one (its value is shown this once, with a copy button and a warning), the list
 * with created and last-used times, revoke.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, get, post } from '../api'
import { Confirm, DataTable, Empty, ErrorText, Field, PageTitle, ShownOnce, When, useAction } from '../ui'
import type { PageProps } from './page'

interface ApiKey {
  readonly keyId: string
  readonly name: string | null
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
}

export const ApiKeysPage = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const [keys, setKeys] = useState<ReadonlyArray<ApiKey> | null>(null)
  const [name, setName] = useState('')
  const [created, setCreated] = useState<string | null>(null)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  const load = useAction()
  const create = useAction()
  const revoke = useAction()
  const refresh = () => void load.run(async () => setKeys((await get<{ apiKeys: ApiKey[] }>(`/workspaces/${ws}/api-keys`)).apiKeys))
  useEffect(refresh, [ws])
  return (
    <>
      <PageTitle workspace={workspace.name}>API keys</PageTitle>
      <p>A back end calls the REST API (<code>/api/v1</code>) with an API key. Keys are stored as hashes: a key’s value is shown only when it is created.</p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault()
          void create.run(async () => {
            const r = await post<{ apiKey: string }>(`/workspaces/${ws}/api-keys`, { name: name.trim() || null })
            setCreated(r.apiKey)
            setName('')
            refresh()
          })
        }}
      >
        <Field label="Key name" value={name} onInput={(e) => setName(e.currentTarget.value)} hint="To tell keys apart, e.g. production back end." />
        <button type="submit" disabled={create.busy}>
          Create API key
        </button>
      </form>
      <ErrorText error={create.error} />
      {created && (
        <ShownOnce region="The new key" label="New API key" value={created} copyLabel="Copy API key" onDone={() => setCreated(null)}>
          <p>
            <strong>Copy this key now.</strong> It is shown only this once; if it is lost, create another and revoke this one.
          </p>
        </ShownOnce>
      )}
      <ErrorText error={load.error} />
      <ErrorText error={revoke.error} />
      {keys && keys.length > 0 && (
        <DataTable caption="API keys" columns={['Name', 'Key ID', 'Created', 'Last used', 'Status', 'Actions']}>
            {keys.map((k) => (
              <tr key={k.keyId}>
                <td>{k.name ?? '—'}</td>
                <td class="mono">{k.keyId}</td>
                <td>
                  <When iso={k.createdAt} />
                </td>
                <td>
                  <When iso={k.lastUsedAt} empty="never" />
                </td>
                <td>
                  {k.revokedAt ? (
                    <>
                      revoked <When iso={k.revokedAt} />
                    </>
                  ) : (
                    'active'
                  )}
                </td>
                <td>
                  {!k.revokedAt && (
                    <button type="button" class="danger small" aria-label={`Revoke ${k.name ?? k.keyId}`} onClick={() => setRevoking(k)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
        </DataTable>
      )}
      {keys && keys.length === 0 && (
        <Empty>
          <p>
            No API keys yet. Create one above for your back end, or from a shell: <code>hark apikey create --workspace {ws}</code>
          </p>
        </Empty>
      )}
      <Confirm
        open={revoking !== null}
        title={`Revoke ${revoking?.name ?? revoking?.keyId ?? ''}?`}
        confirmLabel="Yes, revoke the key"
        onCancel={() => setRevoking(null)}
        onConfirm={() => {
          const k = revoking
          setRevoking(null)
          if (k)
            void revoke.run(async () => {
              await api('DELETE', `/workspaces/${ws}/api-keys/${k.keyId}`)
              refresh()
            })
        }}
      >
        <p>Calls with this key are refused from then on.</p>
      </Confirm>
    </>
  )
}
