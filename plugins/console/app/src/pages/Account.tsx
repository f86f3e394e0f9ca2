/** The signed-in user's account: change the password (asks for the current one), sign out everywhere. */
import { useState } from 'preact/hooks'
import { post, type SessionInfo } from '../api'
import { ErrorText, Field, PageTitle, useAction } from '../ui'
import { Shell } from './Shell'

export const AccountPage = ({ session }: { session: SessionInfo }) => {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [done, setDone] = useState<string | null>(null)
  const change = useAction()
  const everywhere = useAction()
  return (
    <Shell session={session} workspace={null}>
        <PageTitle>Account</PageTitle>
        <p>
          Signed in as <strong>{session.user.email}</strong>.
        </p>
        <h2>Change password</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault()
            setDone(null)
            void change.run(async () => {
              const r = await post<{ otherSessionsEnded: number }>('/account/password', { currentPassword: current, newPassword: next })
              setCurrent('')
              setNext('')
              setDone(`Password changed. ${r.otherSessionsEnded} other session(s) were signed out.`)
            })
          }}
        >
          <Field label="Current password" type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
          <Field
            label="New password"
            type="password"
            autocomplete="new-password"
            required
            minLength={10}
            value={next}
            onInput={(e) => setNext(e.currentTarget.value)}
            hint="At least 10 characters."
          />
          <ErrorText error={change.error} />
          <p role="status">{done}</p>
          <button type="submit" disabled={change.busy}>
            Change password
          </button>
        </form>
        <h2>Sessions</h2>
        <p>Sign out of the console on every browser and device, this one included.</p>
        <ErrorText error={everywhere.error} />
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void everywhere.run(async () => {
              await post('/session/end-all')
              location.assign('/sign-in')
            })
          }
        >
          Sign out everywhere
        </button>
    </Shell>
  )
}
