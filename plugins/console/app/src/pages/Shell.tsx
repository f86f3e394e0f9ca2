/**
 * The frame of every signed-in page: the top bar (the workspace switcher, the account, signing
 * out), a workspace's page navigation when there is one, and the page. On a narrow screen
 * (styles.css) the switcher, the account and the navigation fold behind one "Menu" button (a
 * disclosure: aria-expanded; Escape folds it and gives the button the focus back); opening a page
 * folds it again. On a wide screen the button is not shown and nothing folds.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, type SessionInfo, type WorkspaceSummary } from '../api'
import { navigate, useLocation } from '../router'
import { Link } from '../ui'

export const Shell = ({
  session,
  workspace,
  nav,
  children,
}: {
  session: SessionInfo
  workspace: WorkspaceSummary | null
  /** The workspace's page links (WorkspaceLayout); none on the account and workspaces pages. */
  nav?: ComponentChildren
  children: ComponentChildren
}) => {
  const [open, setOpen] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const { path } = useLocation()
  useEffect(() => setOpen(false), [path])
  const fold = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !open) return
    setOpen(false)
    button.current?.focus()
  }
  return (
    <div class={open ? 'shell menu-open' : 'shell'} onKeyDown={fold}>
      <header class="topbar">
        <Link href="/" class="brand">
          Hark console
        </Link>
        <button
          ref={button}
          type="button"
          class="secondary menu-button"
          aria-expanded={open}
          aria-controls={nav ? 'menu-account menu-pages' : 'menu-account'}
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
        <div class="menu-account" id="menu-account">
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
        </div>
      </header>
      {nav ? (
        <div class="layout">
          <nav aria-label="Workspace pages" class="sidenav" id="menu-pages">
            {nav}
          </nav>
          <main>{children}</main>
        </div>
      ) : (
        <main class="narrow">{children}</main>
      )}
    </div>
  )
}
