/**
 * A workspace's frame (Shell): the navigation to the pages its role may open, the live feed for
 * the pages, and the page itself. A page the role may not open says so (the server would
 * refuse its calls with 403 anyway).
 */
import { useEffect, useMemo } from 'preact/hooks'
import { get, type SessionInfo, type WorkspaceSummary } from '../api'
import { LiveBus } from '../live'
import { Link, PageTitle } from '../ui'
import { can, PAGES } from './registry'
import { Shell } from './Shell'

export const WorkspaceLayout = ({
  session,
  workspace,
  rest,
  onChanged,
}: {
  session: SessionInfo
  workspace: WorkspaceSummary
  rest: ReadonlyArray<string>
  onChanged: () => Promise<void>
}) => {
  // When the stream ends (signed out elsewhere, removed from the workspace) ask the server why.
  const live = useMemo(() => new LiveBus(workspace.workspaceId, () => void get('/session').then(onChanged, () => undefined)), [workspace.workspaceId])
  useEffect(() => {
    live.open()
    return () => live.close()
  }, [live])
  const [slug = 'clients', ...sub] = rest
  const page = PAGES.find((p) => p.slug === slug)
  const visible = PAGES.filter((p) => can(workspace, p.permission))
  const base = `/w/${workspace.workspaceId}`
  const nav = (
    <>
      <p class="muted">
        {workspace.name} · {workspace.role}
      </p>
      <ul>
        {visible.map((p) => (
          <li key={p.slug}>
            <Link href={`${base}/${p.slug}`} aria-current={p.slug === slug ? 'page' : undefined}>
              {p.label}
            </Link>
          </li>
        ))}
      </ul>
    </>
  )
  return (
    <Shell session={session} workspace={workspace} nav={nav}>
          {!page ? (
            <PageTitle>Not found</PageTitle>
          ) : !can(workspace, page.permission) ? (
            <>
              <PageTitle workspace={workspace.name}>{page.label}</PageTitle>
              <p role="alert">Your role ({workspace.role}) does not allow this page in {workspace.name}.</p>
            </>
          ) : (
            <page.component key={`${workspace.workspaceId}/${slug}`} session={session} workspace={workspace} rest={sub} live={live} onChanged={onChanged} />
          )}
    </Shell>
  )
}
