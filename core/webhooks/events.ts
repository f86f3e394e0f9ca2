/**
 * The webhook event catalog: every event type a back end can subscribe to, the resource whose
 * order it keeps, the JSON Schema of its `data`, and an example. spec/webhooks.md and the
 * OpenAPI document's `webhooks` section are written from (and tested against) this table.
 *
 * Every delivered body is `{ id, type, timestamp, workspaceId, resource, sequence, data }`: `id`
 * is also the `webhook-id` header (the same on every retry), `sequence` counts the events of
 * `resource` (1, 2, 3 …) in the order they happened.
 */

export const WEBHOOK_EVENT_TYPES = [
  'client.connected',
  'client.disconnected',
  'client.room_changed',
  'room.started',
  'room.finished',
  'agent.started',
  'agent.stopped',
  'agent.failed',
  'agent.tool_called',
  'agent.turn',
  'client.created',
  'client.updated',
  'client.deleted',
  'token.revoked',
  'device_password.reset',
  'webhook.test',
  'recording.started',
  'recording.finished',
  'recording.failed',
] as const

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

const typeSet = new Set<string>(WEBHOOK_EVENT_TYPES)
export const isWebhookEventType = (s: string): s is WebhookEventType => typeSet.has(s)

/** The payload of each type (what goes under `data`). */
export interface WebhookEventData {
  'client.connected': { clientId: string; sessionId: string; transport: string; room: string | null }
  'client.disconnected': {
    clientId: string
    sessionId: string
    transport: string
    room: string | null
    /** Why the session ended: `client_closed`, or the error code it was closed with (token_revoked, session_replaced …). */
    reason: string
    durationMs: number
  }
  'client.room_changed': { clientId: string; sessionId: string; from: string | null; to: string | null }
  'room.started': { room: string; clientId: string }
  'room.finished': { room: string; clientId: string; durationMs: number }
  'agent.started': { agentId: string; room: string; identity: string; provider: string; presetId: string | null }
  'agent.stopped': { agentId: string; room: string; identity: string; provider: string; presetId: string | null; reason: string }
  'agent.failed': { agentId: string; room: string; identity: string; provider: string; presetId: string | null; reason: string }
  'agent.tool_called': {
    agentId: string
    room: string
    identity: string
    provider: string
    presetId: string | null
    /** The tool's full name (`<clientId>/<tool>` for a device tool). */
    tool: string
    source: string
    /** The arguments the model gave, secrets scrubbed. */
    arguments: unknown
    ok: boolean
    /** The result text (cut) or the error's reason. */
    result: string | null
    error: string | null
    latencyMs: number
  }
  'agent.turn': AgentTurnData
  'client.created': ClientData
  'client.updated': ClientData
  'client.deleted': { clientId: string }
  'token.revoked': { clientId: string; jti: string | null; all: boolean }
  'device_password.reset': { clientId: string }
  'webhook.test': { webhookId: string; message: string }
  'recording.started': { recordingId: string; room: string; tracks: string }
  'recording.finished': { recordingId: string; room: string; tracks: string; reason: string; durationMs: number; sizeBytes: number }
  'recording.failed': { recordingId: string; room: string; tracks: string; reason: string; durationMs: number; sizeBytes: number }
}

/** One turn of an agent's conversation (core/storage/transcripts.ts), times as ISO 8601. */
export interface AgentTurnData {
  agentId: string
  room: string
  identity: string
  seq: number
  kind: 'speech' | 'tool_call'
  role: 'user' | 'agent'
  speaker: string
  clientId: string | null
  text: string | null
  startedAt: string
  endedAt: string
  interrupted: boolean
  interruptedBy: string | null
  tool: { name: string; source: string | null; arguments: unknown; result: unknown; error: string | null; latencyMs: number | null } | null
}

export interface ClientData {
  clientId: string
  name: string | null
  kind: string | null
  room: string | null
  ephemeral: boolean
}

/** One event as a producer hands it to the outbox. */
export type WebhookEventInput = {
  [T in WebhookEventType]: { readonly workspaceId: string; readonly type: T; readonly data: WebhookEventData[T]; readonly at: number }
}[WebhookEventType]

/** The resource whose events are numbered and delivered in order: a client, a room, an agent, an endpoint. */
export const resourceOf = (e: WebhookEventInput): string => {
  switch (e.type) {
    case 'room.started':
    case 'room.finished':
      return `room:${e.data.room}`
    case 'agent.started':
    case 'agent.stopped':
    case 'agent.failed':
    case 'agent.tool_called':
    case 'agent.turn':
      return `agent:${e.data.agentId}`
    case 'webhook.test':
      return `webhook:${e.data.webhookId}`
    case 'recording.started':
    case 'recording.finished':
    case 'recording.failed':
      return `recording:${e.data.recordingId}`
    default:
      return `client:${e.data.clientId}`
  }
}

/** The body every attempt of this event sends. */
export const eventBody = (e: WebhookEventInput, meta: { id: string; resource: string; sequence: number }): string =>
  JSON.stringify({
    id: meta.id,
    type: e.type,
    timestamp: new Date(e.at).toISOString(),
    workspaceId: e.workspaceId,
    resource: meta.resource,
    sequence: meta.sequence,
    data: e.data,
  })

const str = { type: 'string' } as const
const strOrNull = { type: ['string', 'null'] } as const
const ms = { type: 'integer', minimum: 0 } as const
const obj = (properties: Record<string, object>, descriptions: Record<string, string> = {}) => ({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(properties).map(([k, v]) => [k, descriptions[k] ? { ...v, description: descriptions[k] } : v]),
  ),
  required: Object.keys(properties),
  additionalProperties: false,
})
const agentData = (extra: Record<string, object> = {}) =>
  obj(
    { agentId: str, room: str, identity: str, provider: str, presetId: strOrNull, ...extra },
    { identity: 'agent@<presetId>, or agent@default.', presetId: 'null for the platform default agent.' },
  )
const recordingData = (extra: Record<string, object> = {}, descriptions: Record<string, string> = {}) =>
  obj({ recordingId: str, room: str, tracks: str, ...extra }, { tracks: 'mixed, per-participant or both.', ...descriptions })
const clientData = obj(
  { clientId: str, name: strOrNull, kind: strOrNull, room: strOrNull, ephemeral: { type: 'boolean' } },
  { room: 'The stored client-to-room mapping.' },
)

/** JSON Schema of a recorded tool call (REST transcript turns and agent.turn). */
export const TOOL_CALL_SCHEMA = {
  type: 'object',
  properties: {
    name: str,
    source: { ...strOrNull, description: 'Where the tool lives (device, mcp, backend), when the provider says.' },
    arguments: { description: 'The arguments it was called with.' },
    result: { description: 'What it answered; null when it failed.' },
    error: { ...strOrNull, description: 'Why it failed; null when it answered.' },
    latencyMs: { type: ['integer', 'null'], minimum: 0 },
  },
  required: ['name', 'source', 'arguments', 'result', 'error', 'latencyMs'],
  additionalProperties: false,
} as const

export interface WebhookEventSpec {
  readonly summary: string
  /** JSON Schema of `data`. */
  readonly data: object
  readonly example: unknown
}

/** Every type with its description, `data` schema and an example `data`. */
export const webhookEventSpecs: { readonly [T in WebhookEventType]: WebhookEventSpec & { readonly example: WebhookEventData[T] } } = {
  'client.connected': {
    summary: 'A terminal connected (any transport) and was placed by its room mapping.',
    data: obj({ clientId: str, sessionId: str, transport: str, room: strOrNull }, {
      transport: 'websocket, mqtt or webrtc.', room: 'The room it entered; null when the client is mapped to none.',
    }),
    example: { clientId: 'dev-1', sessionId: 'ses_3vT9cQkR2mXw8LpA', transport: 'mqtt', room: 'lobby' },
  },
  'client.disconnected': {
    summary: 'A terminal session ended.',
    data: obj({ clientId: str, sessionId: str, transport: str, room: strOrNull, reason: str, durationMs: ms }, {
      room: 'The room it was in last (a replaced session: the room it left for its successor); null for none.',
      reason: 'client_closed when the terminal went away; otherwise the error code it was closed with (token_revoked, session_replaced, client_deleted, device_password_reset, token_expired, server_shutting_down, protocol_error, keepalive_timeout …).',
      durationMs: 'How long the session lasted.',
    }),
    example: { clientId: 'dev-1', sessionId: 'ses_3vT9cQkR2mXw8LpA', transport: 'mqtt', room: 'lobby', reason: 'client_closed', durationMs: 93_412 },
  },
  'client.room_changed': {
    summary: 'A connected terminal moved to another room (its mapping changed), or out of every room.',
    data: obj({ clientId: str, sessionId: str, from: strOrNull, to: strOrNull }),
    example: { clientId: 'dev-1', sessionId: 'ses_3vT9cQkR2mXw8LpA', from: 'lobby', to: 'kitchen' },
  },
  'room.started': {
    summary: 'The first terminal entered a room that had none.',
    data: obj({ room: str, clientId: str }, { clientId: 'The first participant.' }),
    example: { room: 'lobby', clientId: 'dev-1' },
  },
  'room.finished': {
    summary: 'The last terminal left a room (agents do not keep a room open). A lone terminal replaced by a newer session of its client finishes the room and starts it again.',
    data: obj({ room: str, clientId: str, durationMs: ms }, {
      clientId: 'The last participant to leave.', durationMs: 'Time since room.started.',
    }),
    example: { room: 'lobby', clientId: 'dev-2', durationMs: 1_204_330 },
  },
  'agent.started': {
    summary: 'A dispatched agent (or a room default agent) is running in its room.',
    data: agentData(),
    example: { agentId: 'ag_8fK2LmQ9xRt4Vb1Z', room: 'lobby', identity: 'agent@concierge', provider: 'openai-realtime', presetId: 'concierge' },
  },
  'agent.stopped': {
    summary: 'An agent left its room: stopped by request, by its room default going away, or at shutdown.',
    data: agentData({ reason: str }),
    example: { agentId: 'ag_8fK2LmQ9xRt4Vb1Z', room: 'lobby', identity: 'agent@concierge', provider: 'openai-realtime', presetId: 'concierge', reason: 'stopped by request' },
  },
  'agent.failed': {
    summary: 'An agent failed: its provider could not start it, timed out, or failed while running.',
    data: agentData({ reason: str }),
    example: { agentId: 'ag_2Hq7WcN5pYd0Ke3S', room: 'lobby', identity: 'agent@default', provider: 'pipeline', presetId: null, reason: 'provider failed to start: speech-to-text answered 401' },
  },
  'agent.tool_called': {
    summary: 'An agent called a tool (or was refused one): arguments, result or error and latency, secrets scrubbed (spec/agents.md, Tools).',
    data: agentData({ tool: str, source: str, arguments: {}, ok: { type: 'boolean' }, result: strOrNull, error: strOrNull, latencyMs: ms }),
    example: {
      agentId: 'ag_8fK2LmQ9xRt4Vb1Z', room: 'kitchen', identity: 'agent@concierge', provider: 'pipeline', presetId: 'concierge',
      tool: 'speaker-1/self.light.set_on', source: 'device', arguments: { on: true }, ok: true, result: 'true', error: null, latencyMs: 42,
    },
  },
  'agent.turn': {
    summary:
      'One turn of an agent’s conversation, once finished: what a terminal (or the room) said, what the agent said (for a reply cut by a barge-in, what the room heard), or a tool call. In order after agent.started, before agent.stopped; the same turn as GET /api/v1/agents/{agentId}/transcript.',
    data: obj(
      {
        agentId: str, room: str, identity: str, seq: { type: 'integer', minimum: 1 }, kind: { type: 'string', enum: ['speech', 'tool_call'] },
        role: { type: 'string', enum: ['user', 'agent'] }, speaker: str, clientId: strOrNull, text: strOrNull,
        startedAt: { type: 'string', format: 'date-time' }, endedAt: { type: 'string', format: 'date-time' },
        interrupted: { type: 'boolean' }, interruptedBy: strOrNull, tool: { ...TOOL_CALL_SCHEMA, type: ['object', 'null'] },
      },
      {
        seq: 'The turn’s number in its conversation (1, 2, 3 …).',
        speaker: 'The agent’s identity, a terminal’s client id, or room for the room’s mixed input.',
        clientId: 'The terminal that spoke, when known (the provider said, or it alone spoke).',
        text: 'What was said; null when the provider has no text (echo) or a tool call.',
        interrupted: 'An agent reply cut by a barge-in.',
        interruptedBy: 'The terminal that talked over it, when known.',
      },
    ),
    example: {
      agentId: 'ag_8fK2LmQ9xRt4Vb1Z', room: 'lobby', identity: 'agent@concierge', seq: 2, kind: 'speech', role: 'agent',
      speaker: 'agent@concierge', clientId: null, text: 'The kitchen light is on.', startedAt: '2026-03-01T10:00:03.120Z',
      endedAt: '2026-03-01T10:00:04.480Z', interrupted: false, interruptedBy: null, tool: null,
    },
  },
  'client.created': {
    summary: 'A client was created (REST, CLI, or an ephemeral client).',
    data: clientData,
    example: { clientId: 'dev-1', name: 'Kitchen speaker', kind: 'device', room: 'lobby', ephemeral: false },
  },
  'client.updated': {
    summary: 'A client’s name, kind or room mapping changed; data is the client after the change.',
    data: clientData,
    example: { clientId: 'dev-1', name: 'Kitchen speaker', kind: 'device', room: 'kitchen', ephemeral: false },
  },
  'client.deleted': {
    summary: 'A client was deleted (or an ephemeral client expired and was removed).',
    data: obj({ clientId: str }),
    example: { clientId: 'dev-1' },
  },
  'token.revoked': {
    summary: 'One client token (jti) or every token of a client (all: true, jti null) was revoked.',
    data: obj({ clientId: str, jti: strOrNull, all: { type: 'boolean' } }),
    example: { clientId: 'dev-1', jti: '01JD3M5Q8T7V2XW4YZ6A9BCDEF', all: false },
  },
  'device_password.reset': {
    summary: 'A client’s MQTT device password was reset; sessions using the old one were closed.',
    data: obj({ clientId: str }),
    example: { clientId: 'dev-1' },
  },
  'webhook.test': {
    summary: 'Sent by POST /api/v1/webhooks/{id}/test to that endpoint only.',
    data: obj({ webhookId: str, message: str }),
    example: { webhookId: 'wh_5cJ8nT2qLr7Xv0Mb', message: 'test event from Hark' },
  },
  'recording.started': {
    summary: 'A room recording started (POST /rooms/{room}/recordings, or the room’s setting when its first terminal came).',
    data: recordingData(),
    example: { recordingId: 'rec_01JD3M5Q8T7V2XW4YZ6A9BCDEF', room: 'lobby', tracks: 'both' },
  },
  'recording.finished': {
    summary: 'A room recording ended and its files are complete.',
    data: recordingData({ reason: str, durationMs: ms, sizeBytes: ms }, {
      reason: 'stopped (DELETE /rooms/{room}/recordings), room_closed (its last member left), shutdown, or recovered (finished at start after a crash).',
    }),
    example: { recordingId: 'rec_01JD3M5Q8T7V2XW4YZ6A9BCDEF', room: 'lobby', tracks: 'both', reason: 'room_closed', durationMs: 184_220, sizeBytes: 1_203_455 },
  },
  'recording.failed': {
    summary: 'A room recording stopped early: the disk went below recordings.minFreeMb or a write failed. What was written stays readable; the room goes on.',
    data: recordingData({ reason: str, durationMs: ms, sizeBytes: ms }),
    example: { recordingId: 'rec_01JD3M5Q8T7V2XW4YZ6A9BCDEF', room: 'lobby', tracks: 'mixed', reason: 'disk space below the floor: 52428800 bytes free, 536870912 required', durationMs: 61_040, sizeBytes: 402_113 },
  },
}
