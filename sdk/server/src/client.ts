/**
 * HarkServer: the REST API of one workspace, typed from spec/openapi.json. Each method returns
 * the answer's data or throws a HarkError (errors.ts); list methods with pages walk every page
 * as an async iterator, and `…Page` fetches one. `api` is the underlying openapi-fetch client for
 * anything else.
 */
import createClient, { type Client as FetchClient } from 'openapi-fetch'
import { apiError } from './errors.js'
import type { paths } from './generated/openapi.js'
import { paginate } from './pagination.js'
import { createTransport, type TransportOptions } from './transport.js'
import type * as T from './types.js'

export interface HarkServerOptions extends TransportOptions {
  /** Where the engine's REST port answers, e.g. `http://127.0.0.1:8080` (a trailing `/api/v1` is accepted). */
  readonly baseUrl: string
}

/** The answer's data, or the typed error of a failed answer. */
const ok = async <D>(pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> => {
  const { data, error, response } = await pending
  if (!response.ok) throw apiError(response, error)
  return data as D
}

export class HarkServer {
  /** The openapi-fetch client, with the key, retries and timeouts of this one (its errors are not thrown). */
  readonly api: FetchClient<paths>

  constructor(options: HarkServerOptions) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '')
    this.api = createClient<paths>({ baseUrl, fetch: createTransport(options) })
  }

  readonly clients = {
    /** Every client matching the filters, in clientId order (`limit` is the page size). */
    list: (query: Omit<T.ClientListQuery, 'cursor'> = {}) =>
      paginate((cursor) => this.clients.listPage({ ...query, ...(cursor ? { cursor } : {}) }), (p) => p.clients),
    listPage: (query: T.ClientListQuery = {}): Promise<T.ClientList> => ok(this.api.GET('/api/v1/clients', { params: { query } })),
    create: (body: T.CreateClient): Promise<T.Client> => ok(this.api.POST('/api/v1/clients', { body })),
    get: (id: string): Promise<T.Client> => ok(this.api.GET('/api/v1/clients/{id}', { params: { path: { id } } })),
    update: (id: string, body: T.UpdateClient): Promise<T.Client> =>
      ok(this.api.PATCH('/api/v1/clients/{id}', { params: { path: { id } }, body })),
    delete: (id: string): Promise<T.DeletedClient> => ok(this.api.DELETE('/api/v1/clients/{id}', { params: { path: { id } } })),
    /** A client `eph_…` in `room` and a token for it, both gone at `expiresAt`. */
    createEphemeral: (body: T.CreateEphemeralClient): Promise<T.EphemeralClient> =>
      ok(this.api.POST('/api/v1/clients/ephemeral', { body })),
  }

  readonly tokens = {
    /** A client token; without `ttlSeconds` it never expires (`expiresAt` null). */
    issue: (clientId: string, body: T.IssueToken = {}): Promise<T.IssuedToken> =>
      ok(this.api.POST('/api/v1/clients/{id}/token', { params: { path: { id: clientId } }, body })),
    /** Revokes one token by its jti; a session that connected with it is closed. */
    revoke: (jti: string): Promise<T.RevokedToken> => ok(this.api.POST('/api/v1/tokens/revoke', { body: { jti } })),
    /** Revokes every token of the client minted up to now. */
    revokeAll: (clientId: string): Promise<T.RevokedAllTokens> =>
      ok(this.api.POST('/api/v1/clients/{id}/token/revoke-all', { params: { path: { id: clientId } } })),
  }

  readonly rooms = {
    /** Every occupied room, in name order. */
    list: (query: Omit<T.RoomListQuery, 'cursor'> = {}) =>
      paginate((cursor) => this.rooms.listPage({ ...query, ...(cursor ? { cursor } : {}) }), (p) => p.rooms),
    listPage: (query: T.RoomListQuery = {}): Promise<T.RoomList> => ok(this.api.GET('/api/v1/rooms', { params: { query } })),
    get: (room: string): Promise<T.Room> => ok(this.api.GET('/api/v1/rooms/{room}', { params: { path: { room } } })),
    /** Stores the room's settings (its default agent, or null for none). */
    put: (room: string, body: T.PutRoom): Promise<T.Room> => ok(this.api.PUT('/api/v1/rooms/{room}', { params: { path: { room } }, body })),
  }

  readonly usage = {
    get: (query: T.UsageQuery = {}): Promise<T.Usage> => ok(this.api.GET('/api/v1/usage', { params: { query } })),
  }

  readonly agents = {
    /** Answers once the agent runs in the room. */
    dispatch: (body: T.DispatchAgent): Promise<T.Agent> => ok(this.api.POST('/api/v1/agents', { body })),
    list: (query: T.AgentListQuery = {}): Promise<T.AgentList> => ok(this.api.GET('/api/v1/agents', { params: { query } })),
    get: (agentId: string): Promise<T.Agent> => ok(this.api.GET('/api/v1/agents/{agentId}', { params: { path: { agentId } } })),
    /** Answers once the agent has left its room. */
    stop: (agentId: string): Promise<T.StoppedAgent> =>
      ok(this.api.DELETE('/api/v1/agents/{agentId}', { params: { path: { agentId } } })),
    providers: (): Promise<T.AgentProviders> => ok(this.api.GET('/api/v1/agent-providers')),
    /** Every turn of the agent's conversation so far, in order (also after it ended). */
    transcript: (agentId: string, query: Omit<T.AgentTranscriptQuery, 'cursor'> = {}) =>
      paginate((cursor) => this.agents.transcriptPage(agentId, { ...query, ...(cursor ? { cursor } : {}) }), (p) => p.items),
    transcriptPage: (agentId: string, query: T.AgentTranscriptQuery = {}): Promise<T.AgentTranscript> =>
      ok(this.api.GET('/api/v1/agents/{agentId}/transcript', { params: { path: { agentId }, query } })),
    /** Erases the conversation (every turn); audited. */
    deleteTranscript: (agentId: string): Promise<T.DeletedTranscript> =>
      ok(this.api.DELETE('/api/v1/agents/{agentId}/transcript', { params: { path: { agentId } } })),
  }

  readonly transcripts = {
    /** Every conversation matching the filters, newest first. */
    list: (query: Omit<T.TranscriptListQuery, 'cursor'> = {}) =>
      paginate((cursor) => this.transcripts.listPage({ ...query, ...(cursor ? { cursor } : {}) }), (p) => p.items),
    listPage: (query: T.TranscriptListQuery = {}): Promise<T.TranscriptList> => ok(this.api.GET('/api/v1/transcripts', { params: { query } })),
  }

  readonly agentPresets = {
    list: (query: Omit<T.AgentPresetListQuery, 'cursor'> = {}) =>
      paginate((cursor) => this.agentPresets.listPage({ ...query, ...(cursor ? { cursor } : {}) }), (p) => p.presets),
    listPage: (query: T.AgentPresetListQuery = {}): Promise<T.AgentPresetList> =>
      ok(this.api.GET('/api/v1/agent-presets', { params: { query } })),
    create: (body: T.CreateAgentPreset): Promise<T.AgentPreset> => ok(this.api.POST('/api/v1/agent-presets', { body })),
    get: (presetId: string): Promise<T.AgentPreset> =>
      ok(this.api.GET('/api/v1/agent-presets/{presetId}', { params: { path: { presetId } } })),
    update: (presetId: string, body: T.UpdateAgentPreset): Promise<T.AgentPreset> =>
      ok(this.api.PATCH('/api/v1/agent-presets/{presetId}', { params: { path: { presetId } }, body })),
    delete: (presetId: string): Promise<T.DeletedAgentPreset> =>
      ok(this.api.DELETE('/api/v1/agent-presets/{presetId}', { params: { path: { presetId } } })),
  }

  readonly webhooks = {
    /** The answer carries the endpoint's `secret` (`whsec_…`), shown only here and on rotation. */
    create: (body: T.CreateWebhook): Promise<T.CreatedWebhook> => ok(this.api.POST('/api/v1/webhooks', { body })),
    list: (): Promise<T.WebhookList> => ok(this.api.GET('/api/v1/webhooks')),
    get: (id: string): Promise<T.Webhook> => ok(this.api.GET('/api/v1/webhooks/{id}', { params: { path: { id } } })),
    update: (id: string, body: T.UpdateWebhook): Promise<T.Webhook> =>
      ok(this.api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body })),
    delete: (id: string): Promise<T.DeletedWebhook> => ok(this.api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } })),
    rotateSecret: (id: string): Promise<T.RotatedWebhook> =>
      ok(this.api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id } } })),
    /** Sends a `webhook.test` event to this endpoint alone. */
    test: (id: string): Promise<T.WebhookTest> => ok(this.api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })),
    /** Every delivery of the endpoint, newest first. */
    deliveries: (id: string, query: Omit<T.WebhookDeliveryListQuery, 'cursor'> = {}) =>
      paginate((cursor) => this.webhooks.deliveriesPage(id, { ...query, ...(cursor ? { cursor } : {}) }), (p) => p.deliveries),
    deliveriesPage: (id: string, query: T.WebhookDeliveryListQuery = {}): Promise<T.WebhookDeliveryList> =>
      ok(this.api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id }, query } })),
    redeliver: (id: string, deliveryId: string): Promise<T.Redelivery> =>
      ok(this.api.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id, deliveryId } } })),
  }
}
