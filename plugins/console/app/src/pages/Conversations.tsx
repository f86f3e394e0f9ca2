/**
 * Agents' conversations: the list of recorded ones (/agents/conversations) and one agent's page
 * (/agents/<agentId>) with its turns, live while the agent runs (the live feed's `turn` and `agent`
 * events read it again) and afterwards. A viewer sees who spoke when, not the text (spec/records.md).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, get } from '../api'
import { useDebounced, useLive } from '../live'
import type { Transcript, TranscriptPage, TranscriptTurn } from '../types'
import { Confirm, DataTable, Empty, ErrorText, Link, When, time, useAction } from '../ui'
import { can, type PageProps } from './page'

/** At most this many turns are shown (pages of 500). */
const MAX_PAGES = 10

export const ConversationList = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const [items, setItems] = useState<ReadonlyArray<Transcript> | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const load = useAction()
  const more = (cursor: string | null) =>
    void load.run(async () => {
      const page = await get<{ items: Transcript[]; nextCursor: string | null }>(`/workspaces/${ws}/transcripts${cursor ? `?cursor=${cursor}` : ''}`)
      setItems((before) => (cursor && before ? [...before, ...page.items] : page.items))
      setNext(page.nextCursor)
    })
  useEffect(() => more(null), [ws])
  return (
    <>
      <ErrorText error={load.error} />
      {items === null ? (
        <p>Loading…</p>
      ) : items.length === 0 ? (
        <Empty>
          <p>No conversations are recorded. Every agent’s conversation is kept from its start, for {workspace.name}’s retention period.</p>
        </Empty>
      ) : (
        <DataTable caption="Conversations" columns={['Agent', 'Room', 'Turns', 'Started', 'Ended']}>
          {items.map((t) => (
            <tr key={t.agentId}>
              <td class="mono">
                <Link href={`/w/${ws}/agents/${t.agentId}`} aria-label={`Conversation of ${t.identity} in ${t.room}, started ${time(t.startedAt)}`}>
                  {t.identity}
                </Link>
              </td>
              <td>{t.room}</td>
              <td>{t.turns}</td>
              <td>
                <When iso={t.startedAt} />
              </td>
              <td>
                <When iso={t.endedAt} empty="running" />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {next !== null && (
        <button type="button" class="secondary" disabled={load.busy} onClick={() => more(next)}>
          Show older conversations
        </button>
      )}
    </>
  )
}

export const AgentConversation = ({ workspace, live, agentId }: PageProps & { agentId: string }) => {
  const ws = workspace.workspaceId
  const [page, setPage] = useState<TranscriptPage | null>(null)
  const [missing, setMissing] = useState(false)
  const [confirming, setConfirming] = useState(false)
  const load = useAction()
  const erase = useAction()
  const refresh = () =>
    void load.run(async () => {
      const base = `/workspaces/${ws}/agents/${agentId}/transcript?limit=500`
      try {
        let p = await get<TranscriptPage>(base)
        const items = [...p.items]
        for (let n = 1; p.nextCursor !== null && n < MAX_PAGES; n++) {
          p = await get<TranscriptPage>(`${base}&cursor=${p.nextCursor}`)
          items.push(...p.items)
        }
        setPage({ ...p, items })
        setMissing(false)
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 404)) throw e
        setMissing(true)
      }
    })
  const soon = useDebounced(refresh)
  useEffect(refresh, [ws, agentId])
  useLive(live, (e) => {
    if ((e.type === 'turn' || e.type === 'agent') && e.agentId === agentId) soon()
  })
  return (
    <section aria-labelledby="conversation-heading">
      <h2 id="conversation-heading">{page ? `Conversation of ${page.identity} in ${page.room}` : 'Conversation'}</h2>
      <ErrorText error={load.error} />
      <ErrorText error={erase.error} />
      {missing ? (
        <Empty>
          <p>No conversation is recorded for agent {agentId}: it has not started yet, or it was erased or is past retention.</p>
          <p>
            <Link href={`/w/${ws}/agents/conversations`}>All conversations</Link>
          </p>
        </Empty>
      ) : page === null ? (
        <p>Loading…</p>
      ) : (
        <>
          <dl class="kv">
            <div>
              <dt>Provider</dt>
              <dd>{page.provider}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>{time(page.startedAt)}</dd>
            </div>
            <div>
              <dt>Ended</dt>
              <dd>{page.endedAt === null ? 'running (turns appear as they finish)' : time(page.endedAt)}</dd>
            </div>
            <div>
              <dt>Turns</dt>
              <dd>{page.turns}</dd>
            </div>
          </dl>
          {page.textHidden && <p class="hint">Your role shows who spoke and when; admins and developers also see the text.</p>}
          {page.items.length === 0 ? <p>No turns yet.</p> : <Turns turns={page.items} hidden={page.textHidden} />}
          {can(workspace, 'operate') && (
            <>
              <button type="button" class="danger" onClick={() => setConfirming(true)}>
                Erase this conversation
              </button>
              <Confirm
                open={confirming}
                title="Erase this conversation?"
                confirmLabel="Erase"
                onCancel={() => setConfirming(false)}
                onConfirm={() =>
                  void erase.run(async () => {
                    setConfirming(false)
                    await api('DELETE', `/workspaces/${ws}/agents/${agentId}/transcript`)
                    setPage(null)
                    setMissing(true)
                  })
                }
              >
                <p>Every turn of it is deleted for good; the audit log records that you did.</p>
              </Confirm>
            </>
          )}
        </>
      )}
    </section>
  )
}

const Turns = ({ turns, hidden }: { turns: ReadonlyArray<TranscriptTurn>; hidden: boolean }) => (
  <ol class="turns">
    {turns.map((t) => (
      <li key={t.seq} class={t.role === 'agent' ? 'turn agent' : 'turn user'}>
        <p class="turn-head">
          <span class="mono">{t.speaker}</span> · <When iso={t.startedAt} /> · {Math.max(0, Date.parse(t.endedAt) - Date.parse(t.startedAt))} ms
          {t.interrupted && <strong> · cut off{t.interruptedBy ? ` by ${t.interruptedBy}` : ''}</strong>}
        </p>
        {t.kind === 'tool_call' ? (
          <>
            <p>
              Called a tool{t.tool ? `: ${t.tool.name}${t.tool.latencyMs === null ? '' : ` (${t.tool.latencyMs} ms)`}${t.tool.error ? `, failed: ${t.tool.error}` : ''}` : hidden ? ' (details hidden)' : ''}
            </p>
            {t.tool && (
              <dl class="kv">
                <div>
                  <dt>Arguments</dt>
                  <dd class="mono wrap">{JSON.stringify(t.tool.arguments)}</dd>
                </div>
                {t.tool.error === null && (
                  <div>
                    <dt>Result</dt>
                    <dd class="mono wrap">{typeof t.tool.result === 'string' ? t.tool.result : JSON.stringify(t.tool.result)}</dd>
                  </div>
                )}
              </dl>
            )}
          </>
        ) : (
          <p>{t.text ?? (hidden ? <em>text hidden</em> : <em>no text (the agent’s provider gives none)</em>)}</p>
        )}
      </li>
    ))}
  </ol>
)
