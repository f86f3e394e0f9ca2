/**
 * Webhooks (admin and developer): the workspace's endpoints (URL, event types, description,
 * enabled or disabled and why); create one (its `whsec_` signing secret shown this once, with a
 * copy button); an endpoint's page: edit it, send a test event, rotate the secret (the new one
 * shown once; the old one signs alongside for 24 h), delete it, and its deliveries (status,
 * response code, latency, attempts, next retry) with redeliver. The deliveries are read again
 * every 5 s while the page is open.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, get, post } from '../api'
import { sentence } from '../format'
import { navigate } from '../router'
import { CheckField, Confirm, DataTable, Empty, ErrorText, Field, Link, PageTitle, ShownOnce, time, When, useAction } from '../ui'
import type { PageProps } from './page'

interface Webhook {
  readonly webhookId: string
  readonly url: string
  readonly events: ReadonlyArray<string> | null
  readonly description: string | null
  readonly enabled: boolean
  readonly disabledReason: string | null
  readonly previousSecretExpiresAt: string | null
  readonly createdAt: string
}

interface Delivery {
  readonly deliveryId: string
  readonly type: string
  readonly status: 'pending' | 'delivered' | 'dead'
  readonly attempts: number
  readonly createdAt: string
  readonly responseStatus: number | null
  readonly latencyMs: number | null
  readonly error: string | null
  readonly nextAttemptAt: string | null
}

interface WebhookList {
  readonly webhooks: Webhook[]
  readonly eventTypes: string[]
  readonly limit: number
  /** The URL rule the engine applies, in words (it depends on webhooks.allowPrivateNetworks). */
  readonly urlRule: string
}

const DELIVERIES_REFRESH_MS = 5000

const stateOf = (w: Webhook) => (w.enabled ? 'enabled' : `disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`)
const eventsOf = (events: ReadonlyArray<string> | null) => (events === null ? 'every type' : events.join(', '))

/** The endpoint's fields, shared by the create and the edit form. */
const WebhookFields = ({
  eventTypes,
  urlRule,
  url,
  setUrl,
  description,
  setDescription,
  events,
  setEvents,
}: {
  eventTypes: ReadonlyArray<string>
  urlRule: string
  url: string
  setUrl: (v: string) => void
  description: string
  setDescription: (v: string) => void
  events: ReadonlyArray<string>
  setEvents: (v: ReadonlyArray<string>) => void
}) => (
  <>
    <Field label="Endpoint URL" type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} hint={`${sentence(urlRule)} The engine POSTs signed events here.`} />
    <Field label="Description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
    <fieldset>
      <legend>Event types</legend>
      <p class="hint">Leave every box empty to receive every type, including types added later.</p>
      <div class="checks">
        {eventTypes.map((type) => (
          <CheckField
            key={type}
            label={type}
            checked={events.includes(type)}
            onChange={(e) => setEvents(e.currentTarget.checked ? [...events, type] : events.filter((t) => t !== type))}
          />
        ))}
      </div>
    </fieldset>
  </>
)

const SecretNotice = ({ secret, label, onDone, rotated }: { secret: string; label: string; onDone: () => void; rotated: boolean }) => (
  <ShownOnce region="The signing secret" label={label} value={secret} copyLabel="Copy signing secret" onDone={onDone}>
    <p>
      <strong>Copy this secret now: you will not see it again.</strong> Receivers verify each message’s <code>webhook-signature</code> with it
      (Standard Webhooks).{' '}
      {rotated ? 'The previous secret keeps signing alongside this one for 24 hours, so receivers can switch over.' : 'Lost it? Rotate the secret to get a new one.'}
    </p>
  </ShownOnce>
)

export const WebhooksPage = (props: PageProps) => (props.rest[0] ? <WebhookDetail {...props} webhookId={props.rest[0]} /> : <WebhookList {...props} />)

const WebhookList = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const [list, setList] = useState<WebhookList | null>(null)
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<ReadonlyArray<string>>([])
  const [created, setCreated] = useState<string | null>(null)
  const load = useAction()
  const create = useAction()
  const refresh = () => void load.run(async () => setList(await get<WebhookList>(`/workspaces/${ws}/webhooks`)))
  useEffect(refresh, [ws])
  return (
    <>
      <PageTitle workspace={workspace.name}>Webhooks</PageTitle>
      <p>The engine POSTs events (clients connecting, rooms starting, agents failing, …) to these endpoints, signed the Standard Webhooks way.</p>
      <ErrorText error={load.error} />
      {list && (
        <form
          aria-label="New webhook"
          onSubmit={(e) => {
            e.preventDefault()
            void create.run(async () => {
              const r = await post<Webhook & { secret: string }>(`/workspaces/${ws}/webhooks`, {
                url: url.trim(),
                events: events.length === 0 ? null : events,
                description: description.trim() || null,
              })
              setCreated(r.secret)
              setUrl('')
              setDescription('')
              setEvents([])
              refresh()
            })
          }}
        >
          <h2>New webhook</h2>
          <WebhookFields eventTypes={list.eventTypes} urlRule={list.urlRule} {...{ url, setUrl, description, setDescription, events, setEvents }} />
          <button type="submit" disabled={create.busy}>
            Create webhook
          </button>
          <ErrorText error={create.error} />
        </form>
      )}
      {created && <SecretNotice secret={created} label="Signing secret" rotated={false} onDone={() => setCreated(null)} />}
      {list && list.webhooks.length > 0 && (
        <DataTable caption={`Webhook endpoints (at most ${list.limit})`} columns={['URL', 'Event types', 'Description', 'State', 'Created']}>
          {list.webhooks.map((w) => (
            <tr key={w.webhookId} data-webhook={w.webhookId} data-enabled={String(w.enabled)}>
              <td>
                <Link href={`/w/${ws}/webhooks/${w.webhookId}`}>{w.url}</Link>
              </td>
              <td>{eventsOf(w.events)}</td>
              <td>{w.description ?? '—'}</td>
              <td>{stateOf(w)}</td>
              <td>
                <When iso={w.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {list && list.webhooks.length === 0 && (
        <Empty>
          <p>
            No webhooks yet. Create one with the form above, or from a shell: <code>hark webhook create URL --workspace {ws}</code>
          </p>
        </Empty>
      )}
    </>
  )
}

const WebhookDetail = ({ workspace, webhookId }: PageProps & { webhookId: string }) => {
  const ws = workspace.workspaceId
  const path = `/workspaces/${ws}/webhooks/${webhookId}`
  const [webhook, setWebhook] = useState<Webhook | null>(null)
  const [eventTypes, setEventTypes] = useState<ReadonlyArray<string>>([])
  const [urlRule, setUrlRule] = useState('')
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<ReadonlyArray<string>>([])
  const [enabled, setEnabled] = useState(true)
  const [deliveries, setDeliveries] = useState<ReadonlyArray<Delivery>>([])
  const [secret, setSecret] = useState<string | null>(null)
  const [confirming, setConfirming] = useState<'rotate' | 'delete' | null>(null)
  const [saved, setSaved] = useState('')
  const load = useAction()
  const change = useAction()
  const show = (w: Webhook) => {
    setWebhook(w)
    setUrl(w.url)
    setDescription(w.description ?? '')
    setEvents(w.events ?? [])
    setEnabled(w.enabled)
  }
  const loadDeliveries = async () => setDeliveries((await get<{ deliveries: Delivery[] }>(`${path}/deliveries?limit=50`)).deliveries)
  useEffect(() => {
    void load.run(async () => {
      const [w, list] = await Promise.all([get<Webhook>(path), get<WebhookList>(`/workspaces/${ws}/webhooks`)])
      show(w)
      setEventTypes(list.eventTypes)
      setUrlRule(list.urlRule)
      await loadDeliveries()
    })
    const timer = setInterval(() => void loadDeliveries().catch(() => undefined), DELIVERIES_REFRESH_MS)
    return () => clearInterval(timer)
  }, [path])
  const act = (f: () => Promise<unknown>, done: string) =>
    void change.run(async () => {
      setSaved('')
      await f()
      await loadDeliveries()
      setSaved(done)
    })
  if (!webhook) {
    return (
      <>
        <PageTitle workspace={workspace.name}>Webhook</PageTitle>
        <ErrorText error={load.error} />
      </>
    )
  }
  return (
    <>
      <PageTitle workspace={workspace.name}>{`Webhook ${webhook.url}`}</PageTitle>
      <p>
        <Link href={`/w/${ws}/webhooks`}>All webhooks</Link> · <span class="mono">{webhook.webhookId}</span> · {stateOf(webhook)}
        {webhook.previousSecretExpiresAt && <> · the previous secret signs too until {time(webhook.previousSecretExpiresAt)}</>}
      </p>
      <ErrorText error={load.error} />
      <div class="row">
        <button type="button" disabled={change.busy} onClick={() => act(() => post(`${path}/test`), 'Test event queued: watch the deliveries below.')}>
          Send test event
        </button>
        <button type="button" class="secondary" onClick={() => setConfirming('rotate')}>
          Rotate secret
        </button>
        <button type="button" class="danger" onClick={() => setConfirming('delete')}>
          Delete webhook
        </button>
      </div>
      <p role="status" class="status">
        {saved}
      </p>
      <ErrorText error={change.error} />
      {secret && <SecretNotice secret={secret} label="New signing secret" rotated onDone={() => setSecret(null)} />}

      <h2>Deliveries</h2>
      <div class="row">
        <button type="button" class="secondary small" onClick={() => void load.run(loadDeliveries)}>
          Refresh deliveries
        </button>
      </div>
      {deliveries.length === 0 ? (
        <Empty>
          <p>No deliveries yet. Events of the chosen types are delivered as they happen; “Send test event” above sends one now.</p>
        </Empty>
      ) : (
        <DataTable caption="Recent deliveries, newest first" columns={['Event', 'Status', 'Response', 'Latency', 'Attempts', 'Next retry', 'Created', 'Actions']}>
          {deliveries.map((d) => (
            <tr key={d.deliveryId} data-delivery={d.deliveryId} data-status={d.status}>
              <td class="mono">{d.type}</td>
              <td>{d.status}</td>
              <td>{d.responseStatus ?? (d.error ? `no answer: ${d.error}` : '—')}</td>
              <td>{d.latencyMs === null ? '—' : `${d.latencyMs} ms`}</td>
              <td>{d.attempts}</td>
              <td>
                <When iso={d.nextAttemptAt} />
              </td>
              <td>
                <When iso={d.createdAt} />
              </td>
              <td>
                {d.status !== 'pending' && (
                  <button
                    type="button"
                    class="secondary small"
                    aria-label={`Redeliver ${d.type} ${d.deliveryId}`}
                    onClick={() => act(() => post(`${path}/deliveries/${d.deliveryId}/redeliver`), 'Redelivery queued.')}
                  >
                    Redeliver
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <form
        aria-label="Edit webhook"
        onSubmit={(e) => {
          e.preventDefault()
          act(async () => {
            show(
              await api<Webhook>('PATCH', path, {
                url: url.trim(),
                description: description.trim() || null,
                events: events.length === 0 ? null : events,
                enabled,
              }),
            )
          }, 'Saved.')
        }}
      >
        <h2>Edit</h2>
        <WebhookFields eventTypes={eventTypes} urlRule={urlRule} {...{ url, setUrl, description, setDescription, events, setEvents }} />
        <CheckField label="Enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <button type="submit" disabled={change.busy}>
          Save webhook
        </button>
      </form>

      <Confirm
        open={confirming === 'rotate'}
        title="Rotate the signing secret?"
        confirmLabel="Yes, rotate the secret"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          setConfirming(null)
          act(async () => {
            const r = await post<Webhook & { secret: string }>(`${path}/rotate-secret`)
            show(r)
            setSecret(r.secret)
          }, 'Secret rotated.')
        }}
      >
        <p>A new secret signs from now on. For 24 hours the old one signs alongside it (each message carries both signatures), so receivers can switch at their own pace.</p>
      </Confirm>
      <Confirm
        open={confirming === 'delete'}
        title={`Delete the webhook to ${webhook.url}?`}
        confirmLabel="Yes, delete the webhook"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          setConfirming(null)
          void change.run(async () => {
            await api('DELETE', path)
            navigate(`/w/${ws}/webhooks`)
          })
        }}
      >
        <p>Its pending deliveries are dropped and no more events are sent to it.</p>
      </Confirm>
    </>
  )
}
