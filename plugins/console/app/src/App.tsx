/**
 * The console app: who is signed in, and which page the address names. Signed out, every page
 * but sign-in and an invitation leads to sign-in, which then returns to the page asked for. A
 * user with no workspace lands where one is created; otherwise `/` opens their first workspace.
 */
import { useEffect, useState } from 'preact/hooks'
import { ApiError, get, setCsrfToken, whenSessionEnds, type SessionInfo } from './api'
import { AccountPage } from './pages/Account'
import { InvitationPage } from './pages/Invitation'
import { SignInPage } from './pages/SignIn'
import { WorkspacesPage } from './pages/Workspaces'
import { WorkspaceLayout } from './pages/WorkspaceLayout'
import { navigate, Redirect, useLocation } from './router'

type SessionState = { kind: 'loading' } | { kind: 'anonymous' } | { kind: 'signedIn'; session: SessionInfo }

const signInPath = (next: string) => (next === '/' || next.startsWith('/sign-in') ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`)

export const App = () => {
  const { path, query } = useLocation()
  const [state, setState] = useState<SessionState>({ kind: 'loading' })

  const adopt = (session: SessionInfo | null) => {
    setCsrfToken(session?.csrfToken ?? null)
    setState(session ? { kind: 'signedIn', session } : { kind: 'anonymous' })
  }
  /** Read the session again (after creating a workspace, accepting an invitation, a role change). */
  const refresh = async () => {
    try {
      adopt(await get<SessionInfo>('/session'))
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) adopt(null)
      else throw e
    }
  }

  useEffect(() => {
    whenSessionEnds(() => {
      adopt(null)
      const here = location.pathname + location.search
      if (!here.startsWith('/sign-in') && !here.startsWith('/invitations/')) navigate(signInPath(here))
    })
    void refresh()
  }, [])

  if (path.startsWith('/invitations/')) {
    const token = decodeURIComponent(path.slice('/invitations/'.length))
    return <InvitationPage token={token} session={state.kind === 'signedIn' ? state.session : null} onChanged={refresh} />
  }
  if (path === '/sign-in') {
    const next = query.get('next')
    return (
      <SignInPage
        onSignedIn={(session) => {
          adopt(session)
          navigate(next !== null && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true })
        }}
      />
    )
  }
  if (state.kind === 'loading') return <p class="loading">Loading…</p>
  if (state.kind === 'anonymous') return <Redirect to={signInPath(path + location.search)} />
  const { session } = state
  if (path === '/' || path === '') {
    const first = session.workspaces[0]
    return <Redirect to={first ? `/w/${first.workspaceId}/clients` : '/workspaces'} />
  }
  if (path === '/workspaces') return <WorkspacesPage session={session} onChanged={refresh} />
  if (path === '/account') return <AccountPage session={session} />
  const m = /^\/w\/([^/]+)(?:\/(.*))?$/.exec(path)
  if (m) {
    const workspace = session.workspaces.find((w) => w.workspaceId === m[1])
    if (workspace) return <WorkspaceLayout session={session} workspace={workspace} rest={(m[2] ?? '').split('/').filter(Boolean)} onChanged={refresh} />
  }
  return (
    <main class="narrow">
      <h1>Not found</h1>
      <p>There is no such page, or no such workspace of yours.</p>
      <p>
        <a href="/">Back to the console</a>
      </p>
    </main>
  )
}
