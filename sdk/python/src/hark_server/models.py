"""Types of the Hark REST API and its webhook events, generated from spec/openapi.json by
sdk/python/scripts/generate.mjs. Do not edit: run `node sdk/python/scripts/generate.mjs --write`."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

class ErrorDetail(TypedDict):
    message: str
    """Human-readable; names the offending field on validation errors."""
    code: str
    """Stable machine-readable code (see spec/rest.md, Errors)."""


class Error(TypedDict):
    """The error envelope of every failed call."""
    error: ErrorDetail


class Connection(TypedDict):
    """The live session of an online client."""
    transport: str
    """mqtt, websocket or webrtc."""
    connectedAt: str
    room: str | None
    """Room the session is in now (null while unmapped)."""


class Client(TypedDict):
    """A client (device, app or web page) with its room mapping and online state."""
    clientId: str
    name: str | None
    kind: str | None
    room: str | None
    """The stored client-to-room mapping."""
    ephemeral: bool
    expiresAt: str | None
    """When an ephemeral client is removed; null for regular clients."""
    createdAt: str
    updatedAt: str
    status: Literal["online", "offline"]
    online: bool
    """Same as status = online."""
    connection: Connection | None
    """The live session while online, otherwise null."""


class Agent(TypedDict):
    """An agent dispatched into a room (spec/agents.md)."""
    agentId: str
    room: str
    identity: str
    """Participant id in the room: agent@<presetId>, or agent@default."""
    name: str | None
    """Participant name: the preset name, else the provider name."""
    provider: str
    presetId: str | None
    """null for the platform default agent."""
    origin: Literal["api", "default"]
    """Dispatched by POST /agents, or as the room default agent."""
    state: Literal["starting", "running", "stopping", "stopped", "failed"]
    reason: str | None
    """Why it stopped or failed; null while it runs."""
    startedAt: str
    endedAt: str | None


class AgentPresetRecord(TypedDict):
    """Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset."""
    tracks: Literal["mixed", "per-participant", "both"]


class AgentPreset(TypedDict):
    """A saved agent: a provider and the config a dispatch starts from."""
    presetId: str
    name: str | None
    provider: str
    config: dict[str, Any]
    """As stored; the provider schema defaults apply at dispatch."""
    record: AgentPresetRecord | None
    """Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset."""
    createdAt: str
    updatedAt: str


class DefaultAgent(TypedDict):
    """The agent a room starts with its first terminal and stops after its last."""
    presetId: str | None
    """null: the platform default agent."""
    overrides: dict[str, Any] | None
    stopDelaySeconds: int | None
    """null: the engine setting agents.defaultAgentStopDelaySeconds."""


class Participant(TypedDict):
    """A member of a room: a connected terminal or an agent."""
    id: str
    """clientId of a terminal, identity of an agent."""
    kind: Literal["terminal", "agent"]
    name: str | None
    sourceId: int
    """Source id in the downlink audio header of this member’s frames (spec/terminal-protocol.md)."""
    transport: str | None
    """mqtt, websocket or webrtc for a terminal; null for an agent."""
    connectedAt: str | None
    """When the terminal’s session opened; null for an agent."""
    speaking: bool
    """Its talk spurt is on now: the room announced speaking.started for it and not yet speaking.stopped."""


class Room(TypedDict):
    """A room: who is in it now (in the order they joined), its live agents and its settings."""
    room: str
    participants: list[Participant]
    agents: list[Agent]
    """Live (starting or running) agents of the room."""
    defaultAgent: DefaultAgent | None
    """The room default agent setting (PUT /rooms/{room}); null when none."""


class Transcript(TypedDict):
    """An agent run’s conversation, without its turns."""
    agentId: str
    room: str
    identity: str
    """The agent in the room: agent@<presetId>, or agent@default."""
    provider: str
    presetId: str | None
    startedAt: str
    endedAt: str | None
    """null while the agent runs."""
    turns: int
    """Turns recorded so far."""


class TranscriptTurnTool(TypedDict):
    """The call, for kind tool_call."""
    name: str
    source: str | None
    """Where the tool lives (device, mcp, backend), when the provider says."""
    arguments: Any
    """The arguments it was called with."""
    result: Any
    """What it answered; null when it failed."""
    error: str | None
    """Why it failed; null when it answered."""
    latencyMs: int | None


class TranscriptTurn(TypedDict):
    """One turn: speech (a terminal, the room or the agent) or a tool call of the agent."""
    seq: int
    """Its place in the conversation (1, 2, 3 …)."""
    kind: Literal["speech", "tool_call"]
    role: Literal["user", "agent"]
    speaker: str
    """The agent’s identity, a terminal’s client id, or room (mixed input of several terminals)."""
    clientId: str | None
    """The terminal that spoke, when known."""
    text: str | None
    """What was said (a cut reply: what the room heard); null without text (echo, tool calls)."""
    startedAt: str
    endedAt: str
    interrupted: bool
    """An agent reply cut by a barge-in."""
    interruptedBy: str | None
    """The terminal that talked over it, when known."""
    tool: TranscriptTurnTool | None
    """The call, for kind tool_call."""


class RecordingParticipantsItem(TypedDict):
    id: str
    kind: Literal["terminal", "agent", None]


class RecordingFilesItem(TypedDict):
    track: str
    """mixed, or p1, p2 … (one per participant)."""
    participantId: str | None
    """Null for the mixed track."""
    bytes: int
    durationMs: int


class Recording(TypedDict):
    """A room recording: Ogg Opus files (RFC 7845), one per track."""
    recordingId: str
    room: str
    tracks: Literal["mixed", "per-participant", "both"]
    """What it records: the room mix, one track per participant, or both."""
    status: Literal["recording", "finished", "failed"]
    startedAt: str
    endedAt: str | None
    durationMs: int | None
    """Null while it records."""
    sizeBytes: int
    """Bytes of every file (0 while it records)."""
    startedBy: str
    """api (POST …/recordings), room (the room’s recording setting) or agent:<agentId> (an agent whose preset records)."""
    failure: str | None
    """Why a failed recording stopped (the disk floor, a write error)."""
    participants: list[RecordingParticipantsItem]
    """Everyone heard on a per-participant track (a terminal by client id, an agent by identity)."""
    files: list[RecordingFilesItem]


class ListClientsQuery(TypedDict):
    """Query of GET /api/v1/clients."""
    room: NotRequired[str]
    """Only clients mapped to this room."""
    kind: NotRequired[str]
    """Only clients of this kind."""
    status: NotRequired[Literal["online", "offline"]]
    """Only clients online (or offline) now."""
    limit: NotRequired[int]
    cursor: NotRequired[str]
    """nextCursor of the previous page."""


class ListClientsResponse(TypedDict):
    """A page of clients."""
    clients: list[Client]
    nextCursor: str | None


class CreateClientBody(TypedDict):
    clientId: str
    name: NotRequired[str]
    kind: NotRequired[str]
    room: NotRequired[str]


CreateClientResponse = Client


GetClientResponse = Client


class UpdateClientBody(TypedDict):
    name: NotRequired[str | None]
    kind: NotRequired[str | None]
    room: NotRequired[str | None]


UpdateClientResponse = Client


class DeleteClientResponse(TypedDict):
    """Deletion result."""
    clientId: str
    deleted: Literal[True]


class IssueClientTokenBody(TypedDict):
    ttlSeconds: NotRequired[int]
    """Lifetime in seconds; omit for a long-lived token."""


class IssueClientTokenResponse(TypedDict):
    """The token."""
    token: str
    """The client token (HS256 JWT)."""
    clientId: str
    jti: str
    """Token id, for POST /api/v1/tokens/revoke."""
    expiresAt: str | None
    """Expiry as ISO-8601 UTC (whole seconds, equal to the exp claim); null for a long-lived token."""


class CreateEphemeralClientBody(TypedDict):
    room: str
    kind: NotRequired[str]
    ttlSeconds: NotRequired[int]
    """Lifetime of the client and its token."""


class CreateEphemeralClientResponse(TypedDict):
    """The ephemeral client’s token."""
    token: str
    """The client token (HS256 JWT)."""
    clientId: str
    jti: str
    """Token id, for POST /api/v1/tokens/revoke."""
    expiresAt: str
    """When the client and its token expire."""
    room: str


class RevokeTokenBody(TypedDict):
    jti: str


class RevokeTokenResponse(TypedDict):
    """The token is revoked."""
    jti: str
    clientId: str
    revoked: Literal[True]


RevokeAllClientTokensBody = dict[str, Any]


class RevokeAllClientTokensResponse(TypedDict):
    """Tokens issued before tokensNotBefore are revoked."""
    clientId: str
    tokensNotBefore: str


GetUsageQuery = TypedDict("GetUsageQuery", {
    "from": NotRequired[str],
    "to": NotRequired[str],
})
"""Query of GET /api/v1/usage."""


class UsageRecord(TypedDict):
    date: str
    """UTC day."""
    minutes: float
    """Connected terminal minutes that day, two decimals."""
    sessions: int
    """Terminal sessions that started that day."""


class UsageTotals(TypedDict):
    minutes: float
    sessions: int


class GetUsageResponse(TypedDict):
    """Daily records and totals."""
    records: list[UsageRecord]
    totals: UsageTotals


class DispatchAgentBody(TypedDict):
    room: str
    presetId: NotRequired[str | None]
    """A saved agent of the workspace; omitted or null: the platform default."""
    overrides: NotRequired[dict[str, Any] | None]
    """Fields of the provider's config schema (GET /agent-providers); never keys or endpoints."""


DispatchAgentResponse = Agent


class ListAgentsQuery(TypedDict):
    """Query of GET /api/v1/agents."""
    room: NotRequired[str]
    """Only agents of this room."""
    state: NotRequired[Literal["starting", "running", "stopping", "stopped", "failed"]]
    """Only agents in this state."""


class ListAgentsResponse(TypedDict):
    """The agents."""
    agents: list[Agent]


GetAgentResponse = Agent


class StopAgentResponse(TypedDict):
    """The agent is stopped."""
    agentId: str
    stopped: Literal[True]
    state: Literal["stopped", "failed"]
    """failed when it had failed before."""
    reason: str


class UpdateAgentBody(TypedDict):
    instructions: NotRequired[str]
    """New system instructions, from the next turn on."""
    tools: NotRequired[dict[str, list[str]]]
    """New tool permissions (replacing the old ones whole): allow-lists per source with * wildcards, as in a preset config; {} allows no tool. Checked against the provider’s config schema (an unknown source is refused)."""


UpdateAgentResponse = Agent


class AgentProvider(TypedDict):
    name: str
    description: str | None
    configSchema: dict[str, Any]


class ListAgentProvidersResponse(TypedDict):
    """The registered providers."""
    providers: list[AgentProvider]


class AgentSayBody(TypedDict):
    text: str
    """What the agent says, as is."""
    interrupt: NotRequired[bool]
    """Cut the current reply first (true), or speak after it (false)."""


class AgentSayResponse(TypedDict):
    """Accepted: the agent says it now or after its current reply."""
    agentId: str
    accepted: Literal[True]


InterruptAgentResponse = Agent


class ListAgentPresetsQuery(TypedDict):
    """Query of GET /api/v1/agent-presets."""
    limit: NotRequired[int]
    cursor: NotRequired[str]
    """nextCursor of the previous page."""


class ListAgentPresetsResponse(TypedDict):
    """A page of presets."""
    presets: list[AgentPreset]
    nextCursor: str | None


class CreateAgentPresetBody(TypedDict):
    presetId: str
    """Chosen by the caller; "default" is reserved."""
    name: NotRequired[str | None]
    provider: str
    config: NotRequired[dict[str, Any] | None]
    """Fields of the provider's config schema (GET /agent-providers); never keys or endpoints."""
    record: NotRequired[AgentPresetRecord | None]
    """Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset."""


CreateAgentPresetResponse = AgentPreset


GetAgentPresetResponse = AgentPreset


class UpdateAgentPresetBody(TypedDict):
    name: NotRequired[str | None]
    provider: NotRequired[str]
    config: NotRequired[dict[str, Any]]
    """Fields of the provider's config schema (GET /agent-providers); never keys or endpoints."""
    record: NotRequired[AgentPresetRecord | None]
    """Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset."""


UpdateAgentPresetResponse = AgentPreset


class DeleteAgentPresetResponse(TypedDict):
    """Deletion result."""
    presetId: str
    deleted: Literal[True]


class ListRoomsQuery(TypedDict):
    """Query of GET /api/v1/rooms."""
    limit: NotRequired[int]
    cursor: NotRequired[str]
    """nextCursor of the previous page."""


class ListRoomsResponse(TypedDict):
    """A page of occupied rooms."""
    rooms: list[Room]
    nextCursor: str | None


GetRoomResponse = Room


class PutRoomBodyDefaultAgent(TypedDict):
    presetId: NotRequired[str | None]
    overrides: NotRequired[dict[str, Any] | None]
    """Fields of the provider's config schema (GET /agent-providers); never keys or endpoints."""
    stopDelaySeconds: NotRequired[int | None]


class PutRoomBody(TypedDict):
    defaultAgent: PutRoomBodyDefaultAgent | None


PutRoomResponse = Room


class GetAgentTranscriptQuery(TypedDict):
    """Query of GET /api/v1/agents/{agentId}/transcript."""
    cursor: NotRequired[str]
    """nextCursor of the previous page."""
    limit: NotRequired[int]


class GetAgentTranscriptResponse(TypedDict):
    """The conversation and a page of its turns."""
    agentId: str
    room: str
    identity: str
    """The agent in the room: agent@<presetId>, or agent@default."""
    provider: str
    presetId: str | None
    startedAt: str
    endedAt: str | None
    """null while the agent runs."""
    turns: int
    """Turns recorded so far."""
    textHidden: bool
    """Always false here (a console viewer gets true: text and tool calls withheld)."""
    items: list[TranscriptTurn]
    nextCursor: str | None


class DeleteAgentTranscriptResponse(TypedDict):
    """Erased."""
    agentId: str
    deleted: Literal[True]


ListTranscriptsQuery = TypedDict("ListTranscriptsQuery", {
    "room": NotRequired[str],
    "clientId": NotRequired[str],
    "from": NotRequired[str],
    "to": NotRequired[str],
    "cursor": NotRequired[str],
    "limit": NotRequired[int],
})
"""Query of GET /api/v1/transcripts."""


class ListTranscriptsResponse(TypedDict):
    """A page of conversations."""
    items: list[Transcript]
    nextCursor: str | None


class StartRecordingBody(TypedDict):
    tracks: Literal["mixed", "per-participant", "both"]


StartRecordingResponse = Recording


StopRecordingResponse = Recording


class GetRoomRecordingSettingResponse(TypedDict):
    """The room’s recording setting."""
    room: str
    tracks: Literal["mixed", "per-participant", "both", None]


class PutRoomRecordingSettingBody(TypedDict):
    tracks: Literal["mixed", "per-participant", "both", None]


PutRoomRecordingSettingResponse = GetRoomRecordingSettingResponse


ListRecordingsQuery = TypedDict("ListRecordingsQuery", {
    "room": NotRequired[str],
    "agentId": NotRequired[str],
    "status": NotRequired[Literal["recording", "finished", "failed"]],
    "from": NotRequired[str],
    "to": NotRequired[str],
    "limit": NotRequired[int],
    "cursor": NotRequired[str],
})
"""Query of GET /api/v1/recordings."""


class ListRecordingsResponse(TypedDict):
    """A page of recordings."""
    recordings: list[Recording]
    nextCursor: str | None


GetRecordingResponse = Recording


class DeleteRecordingResponse(TypedDict):
    """Deleted."""
    recordingId: str
    deleted: Literal[True]


class WebhookEndpoint(TypedDict):
    """An endpoint."""
    webhookId: str
    url: str
    events: list[str] | None
    """null = every type."""
    description: str | None
    enabled: bool
    """false after 3 days of failed attempts, or when disabled by request."""
    disabledReason: str | None
    previousSecretExpiresAt: str | None
    """Until then the secret before the last rotation signs too."""
    createdAt: str
    updatedAt: str


class ListWebhooksResponse(TypedDict):
    """The endpoints."""
    webhooks: list[WebhookEndpoint]


class CreateWebhookBody(TypedDict):
    url: str
    """https URL (http only with webhooks.allowPrivateNetworks)."""
    events: NotRequired[list[Literal["client.connected", "client.disconnected", "client.room_changed", "room.started", "room.finished", "agent.started", "agent.stopped", "agent.failed", "agent.tool_called", "agent.turn", "client.created", "client.updated", "client.deleted", "token.revoked", "device_password.reset", "webhook.test", "recording.started", "recording.finished", "recording.failed"]] | None]
    """Event types delivered to this endpoint; omitted or null = every type."""
    description: NotRequired[str | None]


class WebhookEndpointWithSecret(TypedDict):
    """The endpoint, with its signing secret (shown only here and on rotation)."""
    webhookId: str
    url: str
    events: list[str] | None
    """null = every type."""
    description: str | None
    enabled: bool
    """false after 3 days of failed attempts, or when disabled by request."""
    disabledReason: str | None
    previousSecretExpiresAt: str | None
    """Until then the secret before the last rotation signs too."""
    createdAt: str
    updatedAt: str
    secret: str
    """The signing secret (Standard Webhooks, whsec_ + base64); shown only here."""


CreateWebhookResponse = WebhookEndpointWithSecret


GetWebhookResponse = WebhookEndpoint


class UpdateWebhookBody(TypedDict):
    url: NotRequired[str]
    """https URL (http only with webhooks.allowPrivateNetworks)."""
    events: NotRequired[list[Literal["client.connected", "client.disconnected", "client.room_changed", "room.started", "room.finished", "agent.started", "agent.stopped", "agent.failed", "agent.tool_called", "agent.turn", "client.created", "client.updated", "client.deleted", "token.revoked", "device_password.reset", "webhook.test", "recording.started", "recording.finished", "recording.failed"]] | None]
    """Event types delivered to this endpoint; omitted or null = every type."""
    description: NotRequired[str | None]
    enabled: NotRequired[bool]


UpdateWebhookResponse = WebhookEndpoint


class DeleteWebhookResponse(TypedDict):
    """Deletion result."""
    webhookId: str
    deleted: Literal[True]


RotateWebhookSecretBody = dict[str, Any]


RotateWebhookSecretResponse = WebhookEndpointWithSecret


TestWebhookBody = dict[str, Any]


class TestWebhookResponse(TypedDict):
    """Queued."""
    eventId: str
    deliveryId: str


class ListWebhookDeliveriesQuery(TypedDict):
    """Query of GET /api/v1/webhooks/{id}/deliveries."""
    limit: NotRequired[int]
    cursor: NotRequired[str]
    """nextCursor of the previous page."""


class WebhookDelivery(TypedDict):
    deliveryId: str
    eventId: str
    """The webhook-id header; the same on every attempt and redelivery."""
    type: str
    resource: str
    sequence: int
    status: Literal["pending", "delivered", "dead"]
    attempts: int
    createdAt: str
    lastAttemptAt: str | None
    responseStatus: int | None
    """HTTP status of the last attempt; null without an answer."""
    latencyMs: int | None
    error: str | None
    """Why the last attempt failed."""
    nextAttemptAt: str | None
    """When a pending delivery is tried next."""
    completedAt: str | None


class ListWebhookDeliveriesResponse(TypedDict):
    """A page of deliveries."""
    deliveries: list[WebhookDelivery]
    nextCursor: str | None


RedeliverWebhookDeliveryBody = dict[str, Any]


RedeliverWebhookDeliveryResponse = WebhookDelivery


class ClientConnectedEventData(TypedDict):
    clientId: str
    sessionId: str
    transport: str
    """websocket, mqtt or webrtc."""
    room: str | None
    """The room it entered; null when the client is mapped to none."""


class ClientConnectedEvent(TypedDict):
    """A terminal connected (any transport) and was placed by its room mapping."""
    id: str
    type: Literal["client.connected"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: ClientConnectedEventData


class ClientDisconnectedEventData(TypedDict):
    clientId: str
    sessionId: str
    transport: str
    room: str | None
    """The room it was in last (a replaced session: the room it left for its successor); null for none."""
    reason: str
    """client_closed when the terminal went away; otherwise the error code it was closed with (token_revoked, session_replaced, client_deleted, device_password_reset, token_expired, server_shutting_down, protocol_error, keepalive_timeout …)."""
    durationMs: int
    """How long the session lasted."""


class ClientDisconnectedEvent(TypedDict):
    """A terminal session ended."""
    id: str
    type: Literal["client.disconnected"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: ClientDisconnectedEventData


ClientRoomChangedEventData = TypedDict("ClientRoomChangedEventData", {
    "clientId": str,
    "sessionId": str,
    "from": str | None,
    "to": str | None,
})


class ClientRoomChangedEvent(TypedDict):
    """A connected terminal moved to another room (its mapping changed), or out of every room."""
    id: str
    type: Literal["client.room_changed"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: ClientRoomChangedEventData


class RoomStartedEventData(TypedDict):
    room: str
    clientId: str
    """The first participant."""


class RoomStartedEvent(TypedDict):
    """The first terminal entered a room that had none."""
    id: str
    type: Literal["room.started"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: RoomStartedEventData


class RoomFinishedEventData(TypedDict):
    room: str
    clientId: str
    """The last participant to leave."""
    durationMs: int
    """Time since room.started."""


class RoomFinishedEvent(TypedDict):
    """The last terminal left a room (agents do not keep a room open). A lone terminal replaced by a newer session of its client finishes the room and starts it again."""
    id: str
    type: Literal["room.finished"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: RoomFinishedEventData


class AgentStartedEventData(TypedDict):
    agentId: str
    room: str
    identity: str
    """agent@<presetId>, or agent@default."""
    provider: str
    presetId: str | None
    """null for the platform default agent."""


class AgentStartedEvent(TypedDict):
    """A dispatched agent (or a room default agent) is running in its room."""
    id: str
    type: Literal["agent.started"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: AgentStartedEventData


class AgentStoppedEventData(TypedDict):
    agentId: str
    room: str
    identity: str
    """agent@<presetId>, or agent@default."""
    provider: str
    presetId: str | None
    """null for the platform default agent."""
    reason: str


class AgentStoppedEvent(TypedDict):
    """An agent left its room: stopped by request, by its room default going away, or at shutdown."""
    id: str
    type: Literal["agent.stopped"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: AgentStoppedEventData


class AgentFailedEvent(TypedDict):
    """An agent failed: its provider could not start it, timed out, or failed while running."""
    id: str
    type: Literal["agent.failed"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: AgentStoppedEventData


class AgentToolCalledEventData(TypedDict):
    agentId: str
    room: str
    identity: str
    """agent@<presetId>, or agent@default."""
    provider: str
    presetId: str | None
    """null for the platform default agent."""
    tool: str
    source: str
    arguments: Any
    ok: bool
    result: str | None
    error: str | None
    latencyMs: int


class AgentToolCalledEvent(TypedDict):
    """An agent called a tool (or was refused one): arguments, result or error and latency, secrets scrubbed (spec/agents.md, Tools)."""
    id: str
    type: Literal["agent.tool_called"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: AgentToolCalledEventData


class AgentTurnEventData(TypedDict):
    agentId: str
    room: str
    identity: str
    seq: int
    """The turn’s number in its conversation (1, 2, 3 …)."""
    kind: Literal["speech", "tool_call"]
    role: Literal["user", "agent"]
    speaker: str
    """The agent’s identity, a terminal’s client id, or room for the room’s mixed input."""
    clientId: str | None
    """The terminal that spoke, when known (the provider said, or it alone spoke)."""
    text: str | None
    """What was said; null when the provider has no text (echo) or a tool call."""
    startedAt: str
    endedAt: str
    interrupted: bool
    """An agent reply cut by a barge-in."""
    interruptedBy: str | None
    """The terminal that talked over it, when known."""
    tool: TranscriptTurnTool | None


class AgentTurnEvent(TypedDict):
    """One turn of an agent’s conversation, once finished: what a terminal (or the room) said, what the agent said (for a reply cut by a barge-in, what the room heard), or a tool call. In order after agent.started, before agent.stopped; the same turn as GET /api/v1/agents/{agentId}/transcript."""
    id: str
    type: Literal["agent.turn"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: AgentTurnEventData


class ClientCreatedEventData(TypedDict):
    clientId: str
    name: str | None
    kind: str | None
    room: str | None
    """The stored client-to-room mapping."""
    ephemeral: bool


class ClientCreatedEvent(TypedDict):
    """A client was created (REST, CLI, or an ephemeral client)."""
    id: str
    type: Literal["client.created"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: ClientCreatedEventData


class ClientUpdatedEvent(TypedDict):
    """A client’s name, kind or room mapping changed; data is the client after the change."""
    id: str
    type: Literal["client.updated"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: ClientCreatedEventData


class ClientDeletedEventData(TypedDict):
    clientId: str


class ClientDeletedEvent(TypedDict):
    """A client was deleted (or an ephemeral client expired and was removed)."""
    id: str
    type: Literal["client.deleted"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: ClientDeletedEventData


class TokenRevokedEventData(TypedDict):
    clientId: str
    jti: str | None
    all: bool


class TokenRevokedEvent(TypedDict):
    """One client token (jti) or every token of a client (all: true, jti null) was revoked."""
    id: str
    type: Literal["token.revoked"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: TokenRevokedEventData


class DevicePasswordResetEvent(TypedDict):
    """A client’s MQTT device password was reset; sessions using the old one were closed."""
    id: str
    type: Literal["device_password.reset"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: ClientDeletedEventData


class WebhookTestEventData(TypedDict):
    webhookId: str
    message: str


class WebhookTestEvent(TypedDict):
    """Sent by POST /api/v1/webhooks/{id}/test to that endpoint only."""
    id: str
    type: Literal["webhook.test"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: WebhookTestEventData


class RecordingStartedEventData(TypedDict):
    recordingId: str
    room: str
    tracks: str
    """mixed, per-participant or both."""


class RecordingStartedEvent(TypedDict):
    """A room recording started (POST /rooms/{room}/recordings, or the room’s setting when its first terminal came)."""
    id: str
    type: Literal["recording.started"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: RecordingStartedEventData


class RecordingFinishedEventData(TypedDict):
    recordingId: str
    room: str
    tracks: str
    """mixed, per-participant or both."""
    reason: str
    """stopped (DELETE /rooms/{room}/recordings), room_closed (its last member left), shutdown, or recovered (finished at start after a crash)."""
    durationMs: int
    sizeBytes: int


class RecordingFinishedEvent(TypedDict):
    """A room recording ended and its files are complete."""
    id: str
    type: Literal["recording.finished"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: RecordingFinishedEventData


class RecordingFailedEventData(TypedDict):
    recordingId: str
    room: str
    tracks: str
    """mixed, per-participant or both."""
    reason: str
    durationMs: int
    sizeBytes: int


class RecordingFailedEvent(TypedDict):
    """A room recording stopped early: the disk went below recordings.minFreeMb or a write failed. What was written stays readable; the room goes on."""
    id: str
    type: Literal["recording.failed"]
    timestamp: str
    """When it happened."""
    workspaceId: str
    resource: str
    """client:<id>, room:<name>, agent:<id> or webhook:<id>."""
    sequence: int
    """Counts the events of the resource, in the order they happened."""
    data: RecordingFailedEventData


WebhookEvent = ClientConnectedEvent | ClientDisconnectedEvent | ClientRoomChangedEvent | RoomStartedEvent | RoomFinishedEvent | AgentStartedEvent | AgentStoppedEvent | AgentFailedEvent | AgentToolCalledEvent | AgentTurnEvent | ClientCreatedEvent | ClientUpdatedEvent | ClientDeletedEvent | TokenRevokedEvent | DevicePasswordResetEvent | WebhookTestEvent | RecordingStartedEvent | RecordingFinishedEvent | RecordingFailedEvent
"""Every event a webhook endpoint receives, told apart by its "type"."""


WEBHOOK_EVENT_TYPES: tuple[str, ...] = (
    "client.connected",
    "client.disconnected",
    "client.room_changed",
    "room.started",
    "room.finished",
    "agent.started",
    "agent.stopped",
    "agent.failed",
    "agent.tool_called",
    "agent.turn",
    "client.created",
    "client.updated",
    "client.deleted",
    "token.revoked",
    "device_password.reset",
    "webhook.test",
    "recording.started",
    "recording.finished",
    "recording.failed",
)
