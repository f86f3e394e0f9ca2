/**
 * The user's workspaces: switch to one, leave one, or create one (its creator becomes its admin).
 * A user with no workspace lands here.
 */
import { useState } from 'preact/hooks'
import { post, type SessionInfo, type WorkspaceSummary } from '../api'
import { navigate } from '../router'
import { ErrorText, Field, Link, PageTitle, useAction } from '../ui'
import { Shell } from './Shell'

export const WorkspacesPage = ({ session, onChanged }: { session: SessionInfo; onChanged: () => Promise<void> }) => {
  const [name, setName] = useState('')
  const create = useAction()
  const leave = useAction()
  return (
    <Shell session={session} workspace={null}>
        <PageTitle>Workspaces</PageTitle>
        {session.workspaces.length === 0 ? (
          <p>You do not belong to a workspace yet. Create one (you become its admin), or ask an admin of one to invite you.</p>
        ) : (
          <ul class="cards">
            {session.workspaces.map((w: WorkspaceSummary) => (
              <li key={w.workspaceId}>
                <Link href={`/w/${w.workspaceId}/clients`}>{w.name}</Link> <span class="muted">({w.role})</span>
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Leave workspace ${w.name}`}
                  onClick={() =>
                    void leave.run(async () => {
                      await post(`/workspaces/${w.workspaceId}/leave`)
                      await onChanged()
                    })
                  }
                >
                  Leave
                </button>
              </li>
            ))}
          </ul>
        )}
        <ErrorText error={leave.error} />
        <h2>New workspace</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault()
            void create.run(async () => {
              const w = await post<WorkspaceSummary>('/workspaces', { name: name.trim() })
              await onChanged()
              navigate(`/w/${w.workspaceId}/clients`)
            })
          }}
        >
          <Field label="Workspace name" required maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} hint="Letters, digits, spaces, “.”, “_” or “-”." />
          <ErrorText error={create.error} />
          <button type="submit" disabled={create.busy}>
            Create workspace
          </button>
        </form>
    </Shell>
  )
}
