/** Sign in with email and password; the server's answer is shown as it is (one answer for every failure). */
import { useState } from 'preact/hooks'
import { post, type SessionInfo } from '../api'
import { ErrorText, Field, PageTitle, useAction } from '../ui'

export const SignInPage = ({ onSignedIn, email: initialEmail = '' }: { onSignedIn: (s: SessionInfo) => void; email?: string }) => {
  const [email, setEmail] = useState(initialEmail)
  const [password, setPassword] = useState('')
  const action = useAction()
  return (
    <main class="narrow">
      <PageTitle>Sign in to Hark</PageTitle>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void action.run(async () => onSignedIn(await post<SessionInfo>('/session', { email, password })))
        }}
      >
        <Field label="Email" type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <Field
          label="Password"
          type="password"
          name="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <ErrorText error={action.error} />
        <button type="submit" disabled={action.busy}>
          Sign in
        </button>
      </form>
      <p class="hint">No account? An admin of a workspace invites you; the operator creates the first user with <code>hark user create</code>.</p>
    </main>
  )
}
