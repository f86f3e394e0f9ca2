/**
 * Workspace settings: its name, the signing secret (rotate it: tokens signed with the previous one
 * keep working for the grace period, then stop), and deleting the workspace.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, get, post } from '../api'
import { navigate } from '../router'
import { Confirm, ErrorText, Field, PageTitle, time, useAction } from '../ui'
import type { PageProps } from './page'

interface SecretInfo {
  readonly graceSeconds: number
  readonly current: { readonly kid: string; readonly createdAt: string } | null
  readonly retiring: ReadonlyArray<{ readonly kid: string; readonly createdAt: string; readonly retiresAt: string }>
}

const duration = (seconds: number) =>
  seconds % 86_400 === 0 ? `${seconds / 86_400} day(s)` : seconds % 3600 === 0 ? `${seconds / 3600} hour(s)` : `${seconds} seconds`

export const SettingsPage = ({ workspace, onChanged }: PageProps) => {
  const ws = workspace.workspaceId
  const [name, setName] = useState(workspace.name)
  const [secret, setSecret] = useState<SecretInfo | null>(null)
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null)
  const [saved, setSaved] = useState<string | null>(null)
  const rename = useAction()
  const rotate = useAction()
  const remove = useAction()
  useEffect(() => void rotate.run(async () => setSecret(await get<SecretInfo>(`/workspaces/${ws}/signing-secret`))), [ws])
  return (
    <>
      <PageTitle workspace={workspace.name}>Settings</PageTitle>
      <section aria-labelledby="name-heading">
        <h2 id="name-heading">Name</h2>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault()
            setSaved(null)
            void rename.run(async () => {
              await api('PATCH', `/workspaces/${ws}`, { name: name.trim() })
              await onChanged()
              setSaved('Renamed.')
            })
          }}
        >
          <Field label="Workspace name" required maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" disabled={rename.busy}>
            Rename workspace
          </button>
        </form>
        <p role="status">{saved}</p>
        <ErrorText error={rename.error} />
      </section>
      <section aria-labelledby="secret-heading">
        <h2 id="secret-heading">Signing secret</h2>
        <p>
          Client tokens are signed with the workspace’s hidden secret. Rotate it when it may have leaked: new tokens are signed with a new secret at once,
          and tokens signed with the previous one keep working for the grace period{secret ? ` (${duration(secret.graceSeconds)})` : ''}, then stop.
          Reissue long-lived tokens within it.
        </p>
        {secret && (
          <ul>
            <li>Current secret: {secret.current ? `${secret.current.kid}, since ${time(secret.current.createdAt)}` : 'none'}</li>
            {secret.retiring.map((s) => (
              <li key={s.kid}>
                Previous secret {s.kid}: verifies until {time(s.retiresAt)}
              </li>
            ))}
          </ul>
        )}
        <ErrorText error={rotate.error} />
        <button type="button" class="danger" onClick={() => setConfirm('rotate')}>
          Rotate signing secret
        </button>
      </section>
      <section aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete the workspace</h2>
        <p>Its API keys stop working, its clients are deleted and disconnected, its members lose access. This cannot be undone.</p>
        <ErrorText error={remove.error} />
        <button type="button" class="danger" onClick={() => setConfirm('delete')}>
          Delete workspace
        </button>
      </section>
      <Confirm
        open={confirm === 'rotate'}
        title="Rotate the signing secret?"
        confirmLabel="Yes, rotate it"
        onCancel={() => setConfirm(null)}
        onConfirm={() => {
          setConfirm(null)
          void rotate.run(async () => setSecret(await post<SecretInfo>(`/workspaces/${ws}/signing-secret/rotate`)))
        }}
      >
        <p>Tokens signed with the current secret keep working for {secret ? duration(secret.graceSeconds) : 'the grace period'}, then stop.</p>
      </Confirm>
      <Confirm
        open={confirm === 'delete'}
        title={`Delete ${workspace.name}?`}
        confirmLabel="Yes, delete the workspace"
        onCancel={() => setConfirm(null)}
        onConfirm={() => {
          setConfirm(null)
          void remove.run(async () => {
            await api('DELETE', `/workspaces/${ws}`)
            await onChanged()
            navigate('/')
          })
        }}
      >
        <p>Everything in it goes, at once.</p>
      </Confirm>
    </>
  )
}
