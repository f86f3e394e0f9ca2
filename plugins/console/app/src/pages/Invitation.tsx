/**
 * An invitation link: which workspace, which role. Without an account for the invited email the
 * visitor creates one here; with one, they sign in as that user and accept.
 */
import { useEffect, useState } from 'preact/hooks'
import { get, post, type SessionInfo } from '../api'
import { navigate } from '../router'
import { ErrorText, Field, PageTitle, useAction } from '../ui'

interface InvitationInfo {
  readonly workspace: { readonly workspaceId: string; readonly name: string }
  readonly email: string
  readonly role: string
  readonly expiresAt: string
  readonly userExists: boolean
}

export const InvitationPage = ({ token, session, onChanged }: { token: string; session: SessionInfo | null; onChanged: () => Promise<void> }) => {
  const [info, setInfo] = useState<InvitationInfo | null>(null)
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const [registered, setRegistered] = useState(false)
  const load = useAction()
  const act = useAction()
  useEffect(() => void load.run(async () => setInfo(await get<InvitationInfo>(`/invitations/${encodeURIComponent(token)}`))), [token])
  const here = `/invitations/${encodeURIComponent(token)}`
  return (
    <main class="narrow">
      <PageTitle>Invitation</PageTitle>
      <ErrorText error={load.error} />
      {registered && info && (
        <p role="status">
          Your account {info.email} is ready and you are a {info.role} of {info.workspace.name}. <a href="/sign-in">Sign in</a>
        </p>
      )}
      {info && !registered && (
        <>
          <p>
            You are invited to the workspace <strong>{info.workspace.name}</strong> as <strong>{info.role}</strong>, as {info.email}.
          </p>
          {!info.userExists ? (
            <form
              onSubmit={(e) => {
                e.preventDefault()
                void act.run(async () => {
                  await post(`/invitations/${encodeURIComponent(token)}/register`, { name: name.trim() || undefined, password })
                  setRegistered(true)
                })
              }}
            >
              <h2>Create your account</h2>
              <Field label="Email" type="email" readOnly value={info.email} />
              <Field label="Name" autocomplete="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
              <Field
                label="Password"
                type="password"
                autocomplete="new-password"
                required
                minLength={10}
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
                hint="At least 10 characters."
              />
              <ErrorText error={act.error} />
              <button type="submit" disabled={act.busy}>
                Create account and join
              </button>
            </form>
          ) : session === null ? (
            <p>
              <a href={`/sign-in?next=${encodeURIComponent(here)}`}>Sign in as {info.email}</a> to accept it.
            </p>
          ) : (
            <>
              <ErrorText error={act.error} />
              <button
                type="button"
                onClick={() =>
                  void act.run(async () => {
                    const r = await post<{ workspace: { workspaceId: string } }>(`/invitations/${encodeURIComponent(token)}/accept`)
                    await onChanged()
                    navigate(`/w/${r.workspace.workspaceId}/clients`)
                  })
                }
              >
                Accept invitation
              </button>
            </>
          )}
        </>
      )}
    </main>
  )
}
