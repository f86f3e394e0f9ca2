/** The bar above every signed-in page: the workspace switcher, the account, signing out. */
import { api, type SessionInfo, type WorkspaceSummary } from '../api'
import { navigate } from '../router'
import { Link } from '../ui'

export const TopBar = ({ session, workspace }: { session: SessionInfo; workspace: WorkspaceSummary | null }) => (
  <header class="topbar">
    <Link href="/" class="brand">
      Hark console
    </Link>
    <div class="switcher">
      <label for="workspace-switcher">Workspace</label>
      <select
        id="workspace-switcher"
        value={workspace?.workspaceId ?? ''}
        onChange={(e) => {
          const id = e.currentTarget.value
          navigate(id === '' ? '/workspaces' : `/w/${id}/clients`)
        }}
      >
        {workspace === null && <option value="">Choose a workspace</option>}
        {session.workspaces.map((w) => (
          <option key={w.workspaceId} value={w.workspaceId}>
            {w.name}
          </option>
        ))}
      </select>
      <Link href="/workspaces">All workspaces</Link>
    </div>
    <div class="who">
      <Link href="/account">{session.user.email}</Link>
      <button
        type="button"
        class="secondary small"
        onClick={async () => {
          await api('DELETE', '/session').catch(() => undefined)
          location.assign('/sign-in')
        }}
      >
        Sign out
      </button>
    </div>
  </header>
)
