/**
 * Agents: the running ones (stop, interrupt; Say on an agent's own page), dispatching one into a room with a preset and overrides;
 * presets, edited with a form made from their provider's config schema; room default agents.
 * Three views under /agents, /agents/presets and /agents/defaults; conversations under
 * /agents/conversations and an agent's own page, /agents/<agentId> (AgentPage.tsx: live control,
 * tool calls, its conversation).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, get, post } from '../api'
import { useDebounced, useLive } from '../live'
import { exampleOf } from '../format'
import { configFrom, SchemaFields, valuesFrom } from '../schemaForm'
import type { Agent, Preset, Provider, Room } from '../types'
import { DataTable, Empty, ErrorText, Field, KeyValues, Link, PageTitle, SelectField, When, useAction } from '../ui'
import { AgentPage, interruptAgent } from './AgentPage'
import { ConversationList } from './Conversations'
import { can, type PageProps } from './page'

export const AgentsPage = (props: PageProps) => {
  const view = props.rest[0] ?? 'running'
  const base = `/w/${props.workspace.workspaceId}/agents`
  return (
    <>
      <PageTitle workspace={props.workspace.name}>Agents</PageTitle>
      <nav aria-label="Agent views" class="tabs">
        <Link href={base} aria-current={view === 'running' ? 'page' : undefined}>
          Running agents
        </Link>
        <Link href={`${base}/presets`} aria-current={view === 'presets' ? 'page' : undefined}>
          Presets
        </Link>
        <Link href={`${base}/defaults`} aria-current={view === 'defaults' ? 'page' : undefined}>
          Room default agents
        </Link>
        <Link href={`${base}/conversations`} aria-current={view === 'conversations' ? 'page' : undefined}>
          Conversations
        </Link>
      </nav>
      {view === 'presets' ? (
        <Presets {...props} />
      ) : view === 'defaults' ? (
        <RoomDefaults {...props} />
      ) : view === 'conversations' ? (
        <ConversationList {...props} />
      ) : view.startsWith('ag_') ? (
        <AgentPage {...props} agentId={view} />
      ) : (
        <Running {...props} />
      )}
    </>
  )
}

const usePresets = (ws: string) => {
  const [presets, setPresets] = useState<ReadonlyArray<Preset>>([])
  const [providers, setProviders] = useState<ReadonlyArray<Provider>>([])
  const [defaultProvider, setDefaultProvider] = useState<string | null>(null)
  const load = useAction()
  const refresh = () =>
    void load.run(async () => {
      const [p, v] = await Promise.all([
        get<{ presets: Preset[] }>(`/workspaces/${ws}/agent-presets`),
        get<{ providers: Provider[]; defaultProvider: string }>(`/workspaces/${ws}/agent-providers`),
      ])
      setPresets(p.presets)
      setProviders(v.providers)
      setDefaultProvider(v.defaultProvider)
    })
  useEffect(refresh, [ws])
  return { presets, providers, defaultProvider, error: load.error, refresh }
}

/** What overrides of this provider look like: an example from its schema, and the keys it takes. */
const overridesHint = (provider: Provider | undefined) => {
  if (!provider) return { example: '{}', hint: 'Settings to change for this agent only, as a JSON object.' }
  const example = exampleOf(provider.configSchema)
  const keys = Object.keys(provider.configSchema.properties ?? {})
  if (example === null) return { example: '{}', hint: `The ${provider.name} provider has no settings to override.` }
  return { example, hint: `Settings of the ${provider.name} provider to change for this agent only, as a JSON object, e.g. ${example}. Keys: ${keys.join(', ')}.` }
}

const parseOverrides = (text: string, example: string): Record<string, unknown> | null => {
  if (text.trim() === '') return null
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new Error(`Overrides are not JSON: write an object, e.g. ${example}.`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`Overrides must be a JSON object, e.g. ${example}.`)
  return value as Record<string, unknown>
}

const Running = ({ workspace, live }: PageProps) => {
  const ws = workspace.workspaceId
  const [agents, setAgents] = useState<ReadonlyArray<Agent> | null>(null)
  const { presets, providers, defaultProvider } = usePresets(ws)
  const [room, setRoom] = useState('')
  const [presetId, setPresetId] = useState('')
  const [overrides, setOverrides] = useState('')
  const providerName = presetId === '' ? defaultProvider : presets.find((p) => p.presetId === presetId)?.provider
  const { example, hint } = overridesHint(providers.find((p) => p.name === providerName))
  const load = useAction()
  const dispatch = useAction()
  const stop = useAction()
  const [done, setDone] = useState('')
  const refresh = () => void load.run(async () => setAgents((await get<{ agents: Agent[] }>(`/workspaces/${ws}/agents`)).agents))
  const soon = useDebounced(refresh)
  useEffect(refresh, [ws])
  useLive(live, (e) => {
    if (e.type === 'agent' || e.type === 'room') soon()
  })
  const operate = can(workspace, 'operate')
  return (
    <>
      <ErrorText error={load.error} />
      <ErrorText error={stop.error} />
      <p role="status" class="hint">
        {done}
      </p>
      {agents === null ? (
        <p>Loading…</p>
      ) : agents.length === 0 ? (
        <Empty>
          <p>No agents are running or ended lately.</p>
          {operate ? (
            <p>
              Dispatch one into a room with the form below, or give a room a <Link href={`/w/${ws}/agents/defaults`}>default agent</Link> that joins with its first
              terminal.
            </p>
          ) : (
            <p>An admin or a developer of {workspace.name} dispatches them.</p>
          )}
        </Empty>
      ) : (
        <DataTable caption="Agents" columns={['Agent', 'Room', 'Preset', 'State', 'Started', ...(operate ? ['Actions'] : [])]}>
          {agents.map((a) => (
            <tr key={a.agentId}>
              <td class="mono">
                <Link href={`/w/${ws}/agents/${a.agentId}`} aria-label={`${a.identity} in ${a.room}: its conversation`}>
                  {a.identity}
                </Link>
              </td>
              <td>{a.room}</td>
              <td>{a.presetId ?? 'platform default'}</td>
              <td>
                {a.state}
                {a.reason ? ` (${a.reason})` : ''}
              </td>
              <td>
                <When iso={a.startedAt} />
              </td>
              {operate && (
                <td>
                  <div class="row nowrap">
                    {a.state === 'running' && (
                      <>
                        <Link href={`/w/${ws}/agents/${a.agentId}`} aria-label={`Say something as ${a.identity} in ${a.room}`}>
                          Say…
                        </Link>
                        <button
                          type="button"
                          class="secondary small"
                          aria-label={`Interrupt ${a.identity} in ${a.room}`}
                          onClick={() =>
                            void stop.run(async () => {
                              setDone('')
                              await interruptAgent(ws, a.agentId)
                              setDone(`${a.identity} in ${a.room}: interrupted.`)
                            })
                          }
                        >
                          Interrupt
                        </button>
                      </>
                    )}
                    {(a.state === 'running' || a.state === 'starting') && (
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Stop ${a.identity} in ${a.room}`}
                        onClick={() =>
                          void stop.run(async () => {
                            await api('DELETE', `/workspaces/${ws}/agents/${a.agentId}`)
                            refresh()
                          })
                        }
                      >
                        Stop
                      </button>
                    )}
                  </div>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {operate && (
        <section aria-labelledby="dispatch-heading">
          <h2 id="dispatch-heading">Dispatch an agent</h2>
          <form
            onSubmit={(e) => {
              e.preventDefault()
              void dispatch.run(async () => {
                await post(`/workspaces/${ws}/agents`, { room: room.trim(), presetId: presetId || null, overrides: parseOverrides(overrides, example) })
                refresh()
              })
            }}
          >
            <Field label="Room" required value={room} onInput={(e) => setRoom(e.currentTarget.value)} />
            <SelectField label="Preset" value={presetId} onChange={(e) => setPresetId(e.currentTarget.value)}>
              <option value="">platform default</option>
              {presets.map((p) => (
                <option key={p.presetId} value={p.presetId}>
                  {p.name ?? p.presetId}
                </option>
              ))}
            </SelectField>
            <div class="field">
              <label for="overrides">Overrides (JSON)</label>
              <textarea id="overrides" rows={3} value={overrides} onInput={(e) => setOverrides(e.currentTarget.value)} placeholder={example} aria-describedby="overrides-hint" />
              <p class="hint" id="overrides-hint">
                {hint}
              </p>
            </div>
            <ErrorText error={dispatch.error} />
            <button type="submit" disabled={dispatch.busy}>
              Dispatch agent
            </button>
          </form>
        </section>
      )}
    </>
  )
}

/** A refused tool pattern, named as the form shows it (which text area, which line) before the API's words. */
const toolLineError = (e: unknown, config: Record<string, unknown>): unknown => {
  const m = e instanceof ApiError ? /^config\.tools\.([A-Za-z]+)\.(\d+) (.*)$/s.exec(e.message) : null
  if (!m || !(e instanceof ApiError)) return e
  const [, source, index, why] = m
  const value = (config.tools as Record<string, string[]> | undefined)?.[source!]?.[Number(index)]
  return new ApiError(e.status, e.code, `Allowed ${source} tools, line ${Number(index) + 1}${value === undefined ? '' : ` (“${value}”)`}: ${why} (${e.message.split(' ')[0]})`)
}

const Presets = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const { presets, providers, error, refresh } = usePresets(ws)
  const [editing, setEditing] = useState<Preset | null>(null)
  const [presetId, setPresetId] = useState('')
  const [name, setName] = useState('')
  const [provider, setProvider] = useState('')
  const [values, setValues] = useState<Record<string, string | boolean>>({})
  const save = useAction()
  const remove = useAction()
  const operate = can(workspace, 'operate')
  const chosen = providers.find((p) => p.name === provider) ?? providers[0]
  useEffect(() => {
    if (provider === '' && providers[0]) setProvider(providers[0].name)
  }, [providers])
  const startEdit = (p: Preset) => {
    setEditing(p)
    setPresetId(p.presetId)
    setName(p.name ?? '')
    setProvider(p.provider)
    setValues(valuesFrom(providers.find((v) => v.name === p.provider)?.configSchema ?? {}, p.config))
  }
  const reset = () => {
    setEditing(null)
    setPresetId('')
    setName('')
    setValues({})
  }
  return (
    <>
      <ErrorText error={error} />
      <ErrorText error={remove.error} />
      {presets.length === 0 ? (
        <Empty>
          <p>No presets yet. A preset saves a provider and its settings under a name, for dispatching and room default agents.</p>
          {operate ? (
            <p>
              Save one with the form below, or from a shell: <code>hark preset create PRESET-ID --workspace {ws} --provider {chosen?.name ?? 'echo'}</code>
            </p>
          ) : (
            <p>An admin or a developer of {workspace.name} saves them.</p>
          )}
        </Empty>
      ) : (
        <DataTable caption="Presets" columns={['Preset', 'Name', 'Provider', 'Settings', ...(operate ? ['Actions'] : [])]}>
          {presets.map((p) => (
            <tr key={p.presetId}>
              <td class="mono">{p.presetId}</td>
              <td>{p.name ?? '—'}</td>
              <td>{p.provider}</td>
              <td>
                <KeyValues value={p.config} />
              </td>
              {operate && (
                <td>
                  <div class="row nowrap">
                    <button type="button" class="secondary small" aria-label={`Edit preset ${p.presetId}`} onClick={() => startEdit(p)}>
                      Edit
                    </button>
                    <button
                      type="button"
                      class="danger small"
                      aria-label={`Delete preset ${p.presetId}`}
                      onClick={() =>
                        void remove.run(async () => {
                          await api('DELETE', `/workspaces/${ws}/agent-presets/${encodeURIComponent(p.presetId)}`)
                          refresh()
                        })
                      }
                    >
                      Delete
                    </button>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {operate && chosen && (
        <section aria-labelledby="preset-heading">
          <h2 id="preset-heading">{editing ? `Edit preset ${editing.presetId}` : 'New preset'}</h2>
          <form
            onSubmit={(e) => {
              e.preventDefault()
              void save.run(async () => {
                const config = configFrom(chosen.configSchema, values)
                try {
                  if (editing) await api('PATCH', `/workspaces/${ws}/agent-presets/${encodeURIComponent(editing.presetId)}`, { name: name.trim() || null, provider: chosen.name, config })
                  else await post(`/workspaces/${ws}/agent-presets`, { presetId: presetId.trim(), name: name.trim() || null, provider: chosen.name, config })
                } catch (e) {
                  throw toolLineError(e, config)
                }
                reset()
                refresh()
              })
            }}
          >
            {!editing && <Field label="Preset ID" required value={presetId} onInput={(e) => setPresetId(e.currentTarget.value)} hint="Letters, digits, “.”, “_” or “-”; agents of it are agent@<preset ID>." />}
            <Field label="Preset name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
            <SelectField
              label="Provider"
              value={chosen.name}
              onChange={(e) => {
                setProvider(e.currentTarget.value)
                setValues({})
              }}
            >
              {providers.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                </option>
              ))}
            </SelectField>
            {chosen.description && <p class="hint">{chosen.description}</p>}
            <SchemaFields schema={chosen.configSchema} values={values} onChange={setValues} />
            <ErrorText error={save.error} />
            <div class="row">
              <button type="submit" disabled={save.busy}>
                Save preset
              </button>
              {editing && (
                <button type="button" class="secondary" onClick={reset}>
                  Cancel editing
                </button>
              )}
            </div>
          </form>
        </section>
      )}
    </>
  )
}

const RoomDefaults = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const { presets } = usePresets(ws)
  const [roomName, setRoomName] = useState('')
  const [room, setRoom] = useState<Room | null>(null)
  const [presetId, setPresetId] = useState('')
  const [delay, setDelay] = useState('')
  const look = useAction()
  const save = useAction()
  const operate = can(workspace, 'operate')
  const path = (r: string) => `/workspaces/${ws}/rooms/${encodeURIComponent(r)}`
  return (
    <>
      <p>A room’s default agent joins with the first terminal and leaves after the last one.</p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault()
          void look.run(async () => {
            const r = await get<Room>(path(roomName.trim()))
            setRoom(r)
            setPresetId(r.defaultAgent === null ? 'none' : (r.defaultAgent.presetId ?? ''))
            setDelay(r.defaultAgent?.stopDelaySeconds === null || r.defaultAgent === null ? '' : String(r.defaultAgent.stopDelaySeconds))
          })
        }}
      >
        <Field label="Room name" required value={roomName} onInput={(e) => setRoomName(e.currentTarget.value)} />
        <button type="submit" class="secondary">
          Show default agent
        </button>
      </form>
      <ErrorText error={look.error} />
      {room && (
        <section aria-labelledby="default-heading">
          <h2 id="default-heading">Default agent of {room.room}</h2>
          <p>{room.defaultAgent ? `Now: ${room.defaultAgent.presetId ?? 'platform default'}.` : 'Now: none.'}</p>
          {operate && (
            <form
              onSubmit={(e) => {
                e.preventDefault()
                void save.run(async () => {
                  const body = presetId === 'none' ? { defaultAgent: null } : { defaultAgent: { presetId: presetId || null, stopDelaySeconds: delay.trim() === '' ? null : Number(delay) } }
                  setRoom(await api<Room>('PUT', path(room.room), body))
                })
              }}
            >
              <SelectField label="Default agent" value={presetId} onChange={(e) => setPresetId(e.currentTarget.value)}>
                <option value="none">none</option>
                <option value="">platform default</option>
                {presets.map((p) => (
                  <option key={p.presetId} value={p.presetId}>
                    {p.name ?? p.presetId}
                  </option>
                ))}
              </SelectField>
              <Field label="Stop delay (seconds)" type="number" min={0} max={86400} value={delay} onInput={(e) => setDelay(e.currentTarget.value)} hint="How long it stays after the last terminal left; empty: the engine’s default." />
              <ErrorText error={save.error} />
              <button type="submit" disabled={save.busy}>
                Save default agent
              </button>
            </form>
          )}
        </section>
      )}
    </>
  )
}
