/**
 * Members: who belongs to the workspace with which role (change it, remove them; the last admin
 * stays), and invitations: invite an email with a role — the single-use link is shown to pass on —
 * and revoke pending ones.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, get, post } from '../api'
import { DataTable, ErrorText, Field, PageTitle, SelectField, ShownValue, When, useAction } from '../ui'
import type { PageProps } from './page'

interface Member {
  readonly userId: string
  readonly email: string
  readonly name: string | null
  readonly role: string
  readonly disabled: boolean
  readonly joinedAt: string
}
interface Invitation {
  readonly invitationId: string
  readonly email: string
  readonly role: string
  readonly expiresAt: string
  readonly state: string
}

const ROLES = ['admin', 'developer', 'viewer'] as const

export const MembersPage = ({ workspace, session, onChanged }: PageProps) => {
  const ws = workspace.workspaceId
  const [members, setMembers] = useState<ReadonlyArray<Member>>([])
  const [invitations, setInvitations] = useState<ReadonlyArray<Invitation>>([])
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<string>('developer')
  const [link, setLink] = useState<string | null>(null)
  const load = useAction()
  const change = useAction()
  const invite = useAction()
  const refresh = () =>
    void load.run(async () => {
      const [m, i] = await Promise.all([get<{ members: Member[] }>(`/workspaces/${ws}/members`), get<{ invitations: Invitation[] }>(`/workspaces/${ws}/invitations`)])
      setMembers(m.members)
      setInvitations(i.invitations)
    })
  useEffect(refresh, [ws])
  const afterChange = async (userId: string) => {
    refresh()
    // My own role changed: the pages I may open change with it.
    if (userId === session.user.userId) await onChanged()
  }
  return (
    <>
      <PageTitle workspace={workspace.name}>Members</PageTitle>
      <ErrorText error={load.error} />
      <ErrorText error={change.error} />
      <DataTable caption={`Members of ${workspace.name}`} columns={['Email', 'Name', 'Role', 'Joined', 'Actions']}>
        {members.map((m) => (
          <tr key={m.userId}>
            <td>
              {m.email}
              {m.disabled ? ' (disabled)' : ''}
            </td>
            <td>{m.name ?? '—'}</td>
            <td>
              <select
                aria-label={`Role of ${m.email}`}
                value={m.role}
                onChange={(e) => {
                  const next = e.currentTarget.value
                  void change.run(async () => {
                    try {
                      await api('PATCH', `/workspaces/${ws}/members/${m.userId}`, { role: next })
                    } finally {
                      await afterChange(m.userId)
                    }
                  })
                }}
              >
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </td>
            <td>
              <When iso={m.joinedAt} />
            </td>
            <td>
              <button
                type="button"
                class="danger small"
                aria-label={`Remove ${m.email}`}
                onClick={() =>
                  void change.run(async () => {
                    await api('DELETE', `/workspaces/${ws}/members/${m.userId}`)
                    await afterChange(m.userId)
                  })
                }
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault()
            void invite.run(async () => {
              const r = await post<{ link: string }>(`/workspaces/${ws}/invitations`, { email: email.trim(), role })
              setLink(r.link)
              setEmail('')
              refresh()
            })
          }}
        >
          <Field label="Email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </SelectField>
          <button type="submit" disabled={invite.busy}>
            Invite
          </button>
        </form>
        <ErrorText error={invite.error} />
        {link && (
          <div class="notice">
            <p>Send this link to the person invited. It works once, for 7 days.</p>
            <ShownValue label="Invitation link" value={link} copyLabel="Copy invitation link" />
          </div>
        )}
        {invitations.length > 0 && (
          <>
            <h3>Invitations</h3>
            <DataTable caption="Invitations" columns={['Email', 'Role', 'State', 'Expires', 'Actions']}>
              {invitations.map((i) => (
                <tr key={i.invitationId}>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>{i.state}</td>
                  <td>
                    <When iso={i.expiresAt} />
                  </td>
                  <td>
                    {i.state === 'pending' && (
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Revoke the invitation of ${i.email}`}
                        onClick={() =>
                          void invite.run(async () => {
                            await api('DELETE', `/workspaces/${ws}/invitations/${i.invitationId}`)
                            refresh()
                          })
                        }
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          </>
        )}
      </section>
    </>
  )
}
