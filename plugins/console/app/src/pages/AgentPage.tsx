/**
 * One agent's page (/agents/<agentId>): while it runs, live control — Say (text, and whether to
 * cut what it is saying first) and Interrupt, through the console's control routes (audited) —
 * and its tool calls as they happen (the live feed's `tool_call` events: name, arguments, result
 * or error, latency); then its conversation (Conversations.tsx). A refusal says why in words:
 * the provider cannot do it, the agent is not running, or its node cannot be reached.
 */
import { useEffect, useId, useState } from 'preact/hooks'
import { ApiError, get, post } from '../api'
import { useDebounced, useLive, type ToolCallEvent } from '../live'
import type { Agent } from '../types'
import { CheckField, ErrorText, useAction } from '../ui'
import { AgentConversation } from './Conversations'
import { can, type PageProps } from './page'

/** Longest text an agent says on request (core/agentRuntime/agentControl.ts, MAX_SAY_CHARS). */
const MAX_SAY_CHARS = 2000
/** Tool calls kept on the page, newest first. */
const MAX_CALLS = 50

/** A control refusal, in words that say what to do about it; the server's message follows. */
export const controlError = (e: unknown): unknown => {
  if (!(e instanceof ApiError)) return e
  const lead: Record<string, string> = {
    not_supported: 'This agent’s provider cannot do that',
    agent_elsewhere: 'The agent runs on another node that cannot be reached now',
    conflict: 'The agent is not running',
    not_found: 'There is no such agent (it ended a while ago, or never was)',
  }
  const first = lead[e.code]
  return first ? new ApiError(e.status, e.code, `${first}: ${e.message}`) : e
}

/** POST …/interrupt for one agent; the caller shows the refusal. */
export const interruptAgent = (ws: string, agentId: string) => post<Agent>(`/workspaces/${ws}/agents/${agentId}/interrupt`).catch((e: unknown) => Promise.reject(controlError(e)))

export const AgentPage = (props: PageProps & { agentId: string }) => {
  const { workspace, live, agentId } = props
  const ws = workspace.workspaceId
  const [agent, setAgent] = useState<Agent | null>(null)
  const load = useAction()
  const refresh = () => void load.run(async () => setAgent((await get<{ agents: Agent[] }>(`/workspaces/${ws}/agents`)).agents.find((a) => a.agentId === agentId) ?? null))
  const soon = useDebounced(refresh)
  useEffect(refresh, [ws, agentId])
  useLive(live, (e) => {
    if (e.type === 'agent' && e.agentId === agentId) soon()
  })
  return (
    <>
      <ErrorText error={load.error} />
      {agent && (
        <p>
          <span class="mono">{agent.identity}</span> in room {agent.room} ({agent.provider}): {agent.state}
          {agent.reason ? ` (${agent.reason})` : ''}
        </p>
      )}
      {agent?.state === 'running' && can(workspace, 'operate') && <AgentControls ws={ws} agent={agent} />}
      <ToolCalls {...props} />
      <AgentConversation {...props} />
    </>
  )
}

const AgentControls = ({ ws, agent }: { ws: string; agent: Agent }) => {
  const id = useId()
  const [text, setText] = useState('')
  const [interrupt, setInterrupt] = useState(false)
  const [status, setStatus] = useState('')
  const say = useAction()
  const stop = useAction()
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Live control</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          setStatus('')
          void say.run(async () => {
            try {
              await post(`/workspaces/${ws}/agents/${agent.agentId}/say`, { text, interrupt })
            } catch (err) {
              throw controlError(err)
            }
            setStatus(interrupt ? 'Said at once, cutting what it was saying.' : 'Will be said after its current reply.')
            setText('')
          })
        }}
      >
        <div class="field">
          <label for={`${id}-text`}>Text to say</label>
          <textarea
            id={`${id}-text`}
            rows={2}
            required
            maxLength={MAX_SAY_CHARS}
            value={text}
            aria-describedby={`${id}-hint`}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <p class="hint" id={`${id}-hint`}>
            The agent speaks it as its own turn, word for word (at most {MAX_SAY_CHARS} characters).
          </p>
        </div>
        <CheckField label="Interrupt what it is saying first" checked={interrupt} onChange={(e) => setInterrupt(e.currentTarget.checked)} />
        <ErrorText error={say.error} />
        <ErrorText error={stop.error} />
        <div class="row">
          <button type="submit" disabled={say.busy}>
            Say
          </button>
          <button
            type="button"
            class="secondary"
            disabled={stop.busy}
            onClick={() => {
              setStatus('')
              void stop.run(async () => {
                await interruptAgent(ws, agent.agentId)
                setStatus('Interrupted: what it was saying is cut.')
              })
            }}
          >
            Interrupt
          </button>
        </div>
        <p role="status" class="hint">
          {status}
        </p>
      </form>
    </section>
  )
}

type Call = ToolCallEvent & { readonly n: number; readonly at: string }

const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 1))

/** Tool calls as the agent makes them, while the page is open (the conversation keeps them too). */
const ToolCalls = ({ live, agentId }: PageProps & { agentId: string }) => {
  const id = useId()
  const [calls, setCalls] = useState<ReadonlyArray<Call>>([])
  useLive(live, (e) => {
    if (e.type !== 'tool_call' || e.agentId !== agentId) return
    setCalls((before) => [{ ...e, n: (before[0]?.n ?? 0) + 1, at: new Date().toLocaleTimeString() }, ...before].slice(0, MAX_CALLS))
  })
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Tool calls</h2>
      <div aria-live="polite">
        {calls.length === 0 ? (
          <p class="hint">None since this page opened. Calls appear here as the agent makes them; its conversation below keeps them.</p>
        ) : (
          <ol class="turns" reversed>
            {calls.map((c) => (
              <li key={c.n} class="turn agent" data-tool-call={c.detail?.name ?? c.source}>
                <p class="turn-head">
                  <span class="mono">{c.detail?.name ?? `a ${c.source} tool`}</span> · {c.at} · {c.latencyMs} ms · <strong>{c.ok ? 'ok' : 'failed'}</strong>
                </p>
                {c.detail ? (
                  <dl class="kv">
                    <div>
                      <dt>Arguments</dt>
                      <dd class="mono wrap">{json(c.detail.arguments)}</dd>
                    </div>
                    <div>
                      <dt>{c.ok ? 'Result' : 'Error'}</dt>
                      <dd class="mono wrap">{c.ok ? (c.detail.result ?? '(none)') : (c.detail.error ?? 'error')}</dd>
                    </div>
                  </dl>
                ) : (
                  <p class="hint">Your role shows that a call happened; admins and developers also see what was called.</p>
                )}
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  )
}
