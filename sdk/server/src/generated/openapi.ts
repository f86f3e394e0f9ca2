/**
 * Types of the Hark REST API and its webhook events, generated from spec/openapi.json by
 * openapi-typescript. Do not edit: run `npm run generate -w @hark/server`.
 */
export interface paths {
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI 3.1 document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /** This OpenAPI 3.1 document (headers only) */
        head: operations["getOpenApiDocumentHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/clients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List clients
         * @description Clients of the workspace in ascending clientId order. Filters combine with AND. Pass nextCursor back as cursor for the next page; it is null on the last page.
         */
        get: operations["listClients"];
        put?: never;
        /**
         * Create a client
         * @description Creates a client. Tokens can be issued for it right away; none issued before it existed work.
         */
        post: operations["createClient"];
        delete?: never;
        options?: never;
        /**
         * List clients (headers only)
         * @description Clients of the workspace in ascending clientId order. Filters combine with AND. Pass nextCursor back as cursor for the next page; it is null on the last page.
         */
        head: operations["listClientsHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/clients/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Client detail with online state */
        get: operations["getClient"];
        put?: never;
        post?: never;
        /**
         * Delete a client
         * @description Removes the client; its live session ends and its tokens and device password stop working.
         */
        delete: operations["deleteClient"];
        options?: never;
        /** Client detail with online state (headers only) */
        head: operations["getClientHead"];
        /**
         * Update a client
         * @description Sets name, kind and/or room; null clears a field. A room change moves a connected client to the new room at once (or out of every room when cleared).
         */
        patch: operations["updateClient"];
        trace?: never;
    };
    "/api/v1/clients/{id}/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a client token
         * @description A token for the client named in the path, usable on MQTT, WSS and WebRTC. Without ttlSeconds it is long-lived (no exp). The body may be omitted. For an ephemeral client the token never outlives the client.
         */
        post: operations["issueClientToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/clients/ephemeral": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an ephemeral client and its token
         * @description Creates a temporary client (clientId eph_…) bound to the room and returns its token. The client is removed, and a connected terminal disconnected, once expiresAt has passed.
         */
        post: operations["createEphemeralClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke one token by its jti
         * @description The token stops working at once and live sessions that connected with it are closed. Revoking a revoked token again succeeds. A jti that is not one of this workspace’s tokens is 404.
         */
        post: operations["revokeToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/clients/{id}/token/revoke-all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke every token of a client
         * @description Every token issued for the client up to and including this instant stops working and its live token session is closed; tokens issued afterwards work. The device password is not affected.
         */
        post: operations["revokeAllClientTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read daily usage
         * @description One record per UTC day for the last 90 days (today included), or for from..to inside them, and totals that are the sum of the records. Minutes are connected terminal time, two decimals; a session is counted on the day it started, its time split across the days it spans; live sessions are included up to now. AI agents never count. See spec/usage.md.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Read daily usage (headers only)
         * @description One record per UTC day for the last 90 days (today included), or for from..to inside them, and totals that are the sum of the records. Minutes are connected terminal time, two decimals; a session is counted on the day it started, its time split across the days it spans; live sessions are included up to now. AI agents never count. See spec/usage.md.
         */
        head: operations["getUsageHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agents
         * @description Agents of the workspace, newest first: running ones, and ended ones for 10 minutes (at most 200). Filters combine with AND. In a cluster, the agents of every node; 503 cluster_unavailable when a node does not answer.
         */
        get: operations["listAgents"];
        put?: never;
        /**
         * Dispatch an agent into a room
         * @description Starts an agent from a preset (or, without presetId, the platform default) with overrides merged over its config and checked against the provider's schema, and answers once it has joined the room. A provider that fails to start answers 502 with the reason; the failed agent stays readable.
         */
        post: operations["dispatchAgent"];
        delete?: never;
        options?: never;
        /**
         * List agents (headers only)
         * @description Agents of the workspace, newest first: running ones, and ended ones for 10 minutes (at most 200). Filters combine with AND. In a cluster, the agents of every node; 503 cluster_unavailable when a node does not answer.
         */
        head: operations["listAgentsHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Agent detail with state */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        /**
         * Stop an agent
         * @description Stops the agent and answers once it has left its room (members got participant.left and agent.stopped). Stopping an agent that already ended answers the same.
         */
        delete: operations["stopAgent"];
        options?: never;
        /** Agent detail with state (headers only) */
        head: operations["getAgentHead"];
        /**
         * Change a running agent’s instructions and tool permissions
         * @description Merges `instructions` and `tools` over the running agent’s config and checks the result against its provider’s schema (400 as for dispatch overrides); the turns that follow use them. The preset is not changed. At least one field. 409 not_supported: the agent’s provider cannot do this (the message says which operation); conflict: the agent is not running; agent_elsewhere: in a cluster, the agent is not on this node and a node where it may run cannot be reached (the message names it); otherwise control is forwarded to the node that runs the agent.
         */
        patch: operations["updateAgent"];
        trace?: never;
    };
    "/api/v1/agent-providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Agent providers and their config schemas
         * @description What a preset config and dispatch overrides may hold, per provider (JSON Schema draft 2020-12).
         */
        get: operations["listAgentProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Agent providers and their config schemas (headers only)
         * @description What a preset config and dispatch overrides may hold, per provider (JSON Schema draft 2020-12).
         */
        head: operations["listAgentProvidersHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/say": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a running agent say something
         * @description The agent speaks `text` as its own turn: members hear its audio, then `agent.event {kind: "transcript", role: "agent", text}`. With `interrupt: true` the current reply is cut first, as a barge-in; otherwise the text waits for the current reply to end. Answers once the request is accepted, before the audio plays. 409 not_supported: the agent’s provider cannot do this (the message says which operation); conflict: the agent is not running; agent_elsewhere: in a cluster, the agent is not on this node and a node where it may run cannot be reached (the message names it); otherwise control is forwarded to the node that runs the agent.
         */
        post: operations["agentSay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/interrupt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop what a running agent is saying
         * @description Cuts the reply being spoken (members get `agent.event {kind: "interrupted"}` and the transcript of what they heard, `truncated: true`), drops a reply being prepared and text waiting to be said. An agent saying nothing is left as it is. 409 not_supported: the agent’s provider cannot do this (the message says which operation); conflict: the agent is not running; agent_elsewhere: in a cluster, the agent is not on this node and a node where it may run cannot be reached (the message names it); otherwise control is forwarded to the node that runs the agent.
         */
        post: operations["interruptAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent-presets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agent presets
         * @description Presets in ascending presetId order. Pass nextCursor back as cursor for the next page; null on the last.
         */
        get: operations["listAgentPresets"];
        put?: never;
        /**
         * Create an agent preset
         * @description Saves an agent: a provider and a config checked against the provider's schema.
         */
        post: operations["createAgentPreset"];
        delete?: never;
        options?: never;
        /**
         * List agent presets (headers only)
         * @description Presets in ascending presetId order. Pass nextCursor back as cursor for the next page; null on the last.
         */
        head: operations["listAgentPresetsHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent-presets/{presetId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Agent preset detail */
        get: operations["getAgentPreset"];
        put?: never;
        post?: never;
        /**
         * Delete an agent preset
         * @description Running agents started from it carry on; a room default agent naming it is skipped from then on.
         */
        delete: operations["deleteAgentPreset"];
        options?: never;
        /** Agent preset detail (headers only) */
        head: operations["getAgentPresetHead"];
        /**
         * Update an agent preset
         * @description Sets the fields present; config replaces the whole config, record: null stops recording. A new provider or config is checked again.
         */
        patch: operations["updateAgentPreset"];
        trace?: never;
    };
    "/api/v1/rooms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List rooms with live members
         * @description Rooms of the workspace that have at least one member now (a connected terminal or an agent), in ascending name order, each with its participants. Pass nextCursor back as cursor for the next page.
         */
        get: operations["listRooms"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * List rooms with live members (headers only)
         * @description Rooms of the workspace that have at least one member now (a connected terminal or an agent), in ascending name order, each with its participants. Pass nextCursor back as cursor for the next page.
         */
        head: operations["listRoomsHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{room}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A room and its live members
         * @description Who is in the room now. Rooms are not stored: a valid room name nobody is in answers 200 with no participants.
         */
        get: operations["getRoom"];
        /**
         * Set room settings
         * @description Sets the room default agent (null clears it): dispatched when the first terminal joins, stopped stopDelaySeconds after the last one leaves. The preset and overrides are checked like a dispatch. Applies at once to an occupied room (starts, swaps or stops its default agent).
         */
        put: operations["putRoom"];
        post?: never;
        delete?: never;
        options?: never;
        /**
         * A room and its live members (headers only)
         * @description Who is in the room now. Rooms are not stored: a valid room name nobody is in answers 200 with no participants.
         */
        head: operations["getRoomHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/transcript": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An agent’s conversation, turn by turn
         * @description The turns in order, written as the conversation goes (the turn in progress is not there yet); readable while the agent runs and after it ended, until erased or past agents.transcriptRetentionDays. Pass nextCursor back as cursor for the next page; it is null on the last page (of the turns so far).
         */
        get: operations["getAgentTranscript"];
        put?: never;
        post?: never;
        /**
         * Erase an agent’s conversation
         * @description Deletes the conversation and every turn of it, and writes an audit entry (transcript.deleted, by this API key). A running agent’s later turns start a conversation again. Webhooks already delivered are not recalled.
         */
        delete: operations["deleteAgentTranscript"];
        options?: never;
        /**
         * An agent’s conversation, turn by turn (headers only)
         * @description The turns in order, written as the conversation goes (the turn in progress is not there yet); readable while the agent runs and after it ended, until erased or past agents.transcriptRetentionDays. Pass nextCursor back as cursor for the next page; it is null on the last page (of the turns so far).
         */
        head: operations["getAgentTranscriptHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/transcripts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find conversations
         * @description Conversations of the workspace, newest first. Filters combine with AND: room; clientId (a terminal that spoke in it, as its turns name it); from/to (it started at or after from, before to; ISO 8601 with a time zone).
         */
        get: operations["listTranscripts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Find conversations (headers only)
         * @description Conversations of the workspace, newest first. Filters combine with AND: room; clientId (a terminal that spoke in it, as its turns name it); from/to (it started at or after from, before to; ISO 8601 with a time zone).
         */
        head: operations["listTranscriptsHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{room}/recordings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start recording a room
         * @description Records the room (open on this node: someone is in it) into Ogg Opus files until DELETE, until its last member leaves, or until the disk goes below recordings.minFreeMb. Every member hears room.recording. A room recorded only for agents whose preset records: that recording is kept until DELETE or the room closes (200).
         */
        post: operations["startRecording"];
        /**
         * Stop recording a room
         * @description Ends the room’s running recording: its files are finished (end of stream) and written before the answer.
         */
        delete: operations["stopRecording"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{room}/recording-setting": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A room’s recording setting */
        get: operations["getRoomRecordingSetting"];
        /**
         * Record every session of a room
         * @description tracks: every session of the room (from its first terminal to its last leaving) is recorded with these tracks, from the next session on; null: not by itself.
         */
        put: operations["putRoomRecordingSetting"];
        post?: never;
        delete?: never;
        options?: never;
        /** A room’s recording setting (headers only) */
        head: operations["getRoomRecordingSettingHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List recordings
         * @description Newest first. Filters: room, status, started from/to (date-time), agentId (started by that agent). Pass nextCursor back as cursor.
         */
        get: operations["listRecordings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * List recordings (headers only)
         * @description Newest first. Filters: room, status, started from/to (date-time), agentId (started by that agent). Pass nextCursor back as cursor.
         */
        head: operations["listRecordingsHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A recording */
        get: operations["getRecording"];
        put?: never;
        post?: never;
        /**
         * Delete a recording and its files
         * @description A running recording is stopped first. Audited (recording.deleted).
         */
        delete: operations["deleteRecording"];
        options?: never;
        /** A recording (headers only) */
        head: operations["getRecordingHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}/tracks/{track}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a track (Ogg Opus)
         * @description The track’s file, audio/ogg. Range requests (bytes=…) answer 206 with Content-Range, so a broken download resumes; a track of a running recording can be read up to its last written second. Audited (recording.downloaded).
         */
        get: operations["downloadRecordingTrack"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Download a track (Ogg Opus) (headers only)
         * @description The track’s file, audio/ogg. Range requests (bytes=…) answer 206 with Content-Range, so a broken download resumes; a track of a running recording can be read up to its last written second. Audited (recording.downloaded).
         */
        head: operations["downloadRecordingTrackHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description Every endpoint of the workspace (at most 10), oldest first.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Events of the chosen types are POSTed to the URL, signed the Standard Webhooks way with the returned secret. The URL must be https and its host must resolve to public addresses only (unless webhooks.allowPrivateNetworks). A workspace has at most 10 endpoints (400 limit_exceeded beyond).
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        /**
         * List webhook endpoints (headers only)
         * @description Every endpoint of the workspace (at most 10), oldest first.
         */
        head: operations["listWebhooksHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook endpoint */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Its pending deliveries are dropped.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        /** A webhook endpoint (headers only) */
        head: operations["getWebhookHead"];
        /**
         * Update a webhook endpoint
         * @description Sets the URL (checked like on create), the event types (null = every type), the description, or enabled. Enabling an endpoint the engine disabled resumes its pending deliveries.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/api/v1/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description A new secret signs from now on; for 24 h every message also carries a signature by the previous one (webhook-signature holds both), so a receiver can switch at its own pace.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Queues a webhook.test event for this endpoint alone; follow it in the deliveries.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Recent deliveries of an endpoint
         * @description Newest first: status, attempts, the last attempt’s response status, latency and error, and the next retry. Completed deliveries are kept 7 days. Pass nextCursor back as cursor for older ones.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Recent deliveries of an endpoint (headers only)
         * @description Newest first: status, attempts, the last attempt’s response status, latency and error, and the next retry. Completed deliveries are kept 7 days. Pass nextCursor back as cursor for older ones.
         */
        head: operations["listWebhookDeliveriesHead"];
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeliver an event
         * @description Sends a delivered or dead-lettered delivery’s event again, as a new delivery (same webhook-id) with a fresh 24 h retry budget, in its place by sequence number. 409 while the delivery is still pending.
         */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "client.connected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A terminal connected (any transport) and was placed by its room mapping. */
        post: operations["webhook_client_connected"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "client.disconnected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A terminal session ended. */
        post: operations["webhook_client_disconnected"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "client.room_changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A connected terminal moved to another room (its mapping changed), or out of every room. */
        post: operations["webhook_client_room_changed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "room.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The first terminal entered a room that had none. */
        post: operations["webhook_room_started"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "room.finished": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The last terminal left a room (agents do not keep a room open). A lone terminal replaced by a newer session of its client finishes the room and starts it again. */
        post: operations["webhook_room_finished"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A dispatched agent (or a room default agent) is running in its room. */
        post: operations["webhook_agent_started"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.stopped": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** An agent left its room: stopped by request, by its room default going away, or at shutdown. */
        post: operations["webhook_agent_stopped"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** An agent failed: its provider could not start it, timed out, or failed while running. */
        post: operations["webhook_agent_failed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.tool_called": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** An agent called a tool (or was refused one): arguments, result or error and latency, secrets scrubbed (spec/agents.md, Tools). */
        post: operations["webhook_agent_tool_called"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.turn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One turn of an agent’s conversation, once finished: what a terminal (or the room) said, what the agent said (for a reply cut by a barge-in, what the room heard), or a tool call. In order after agent.started, before agent.stopped; the same turn as GET /api/v1/agents/{agentId}/transcript. */
        post: operations["webhook_agent_turn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "client.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A client was created (REST, CLI, or an ephemeral client). */
        post: operations["webhook_client_created"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "client.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A client’s name, kind or room mapping changed; data is the client after the change. */
        post: operations["webhook_client_updated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "client.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A client was deleted (or an ephemeral client expired and was removed). */
        post: operations["webhook_client_deleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "token.revoked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One client token (jti) or every token of a client (all: true, jti null) was revoked. */
        post: operations["webhook_token_revoked"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "device_password.reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A client’s MQTT device password was reset; sessions using the old one were closed. */
        post: operations["webhook_device_password_reset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sent by POST /api/v1/webhooks/{id}/test to that endpoint only. */
        post: operations["webhook_webhook_test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "recording.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A room recording started (POST /rooms/{room}/recordings, or the room’s setting when its first terminal came). */
        post: operations["webhook_recording_started"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "recording.finished": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A room recording ended and its files are complete. */
        post: operations["webhook_recording_finished"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "recording.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A room recording stopped early: the disk went below recordings.minFreeMb or a write failed. What was written stays readable; the room goes on. */
        post: operations["webhook_recording_failed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description The error envelope of every failed call. */
        Error: {
            error: {
                /** @description Human-readable; names the offending field on validation errors. */
                message: string;
                /** @description Stable machine-readable code (see spec/rest.md, Errors). */
                code: string;
            };
        };
        /** @description The live session of an online client. */
        Connection: {
            /** @description mqtt, websocket or webrtc. */
            transport: string;
            /** Format: date-time */
            connectedAt: string;
            /** @description Room the session is in now (null while unmapped). */
            room: string | null;
        };
        /** @description A client (device, app or web page) with its room mapping and online state. */
        Client: {
            clientId: string;
            name: string | null;
            kind: string | null;
            /** @description The stored client-to-room mapping. */
            room: string | null;
            ephemeral: boolean;
            /**
             * Format: date-time
             * @description When an ephemeral client is removed; null for regular clients.
             */
            expiresAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @enum {string} */
            status: "online" | "offline";
            /** @description Same as status = online. */
            online: boolean;
            /** @description The live session while online, otherwise null. */
            connection: components["schemas"]["Connection"] | null;
        };
        /** @description An agent dispatched into a room (spec/agents.md). */
        Agent: {
            agentId: string;
            room: string;
            /** @description Participant id in the room: agent@<presetId>, or agent@default. */
            identity: string;
            /** @description Participant name: the preset name, else the provider name. */
            name: string | null;
            provider: string;
            /** @description null for the platform default agent. */
            presetId: string | null;
            /**
             * @description Dispatched by POST /agents, or as the room default agent.
             * @enum {string}
             */
            origin: "api" | "default";
            /** @enum {string} */
            state: "starting" | "running" | "stopping" | "stopped" | "failed";
            /** @description Why it stopped or failed; null while it runs. */
            reason: string | null;
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            endedAt: string | null;
        };
        /** @description A saved agent: a provider and the config a dispatch starts from. */
        AgentPreset: {
            presetId: string;
            name: string | null;
            provider: string;
            /** @description As stored; the provider schema defaults apply at dispatch. */
            config: {
                [key: string]: unknown;
            };
            /** @description Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset. */
            record: {
                /** @enum {string} */
                tracks: "mixed" | "per-participant" | "both";
            } | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /** @description The agent a room starts with its first terminal and stops after its last. */
        DefaultAgent: {
            /** @description null: the platform default agent. */
            presetId: string | null;
            overrides: {
                [key: string]: unknown;
            } | null;
            /** @description null: the engine setting agents.defaultAgentStopDelaySeconds. */
            stopDelaySeconds: number | null;
        };
        /** @description A member of a room: a connected terminal or an agent. */
        Participant: {
            /** @description clientId of a terminal, identity of an agent. */
            id: string;
            /** @enum {string} */
            kind: "terminal" | "agent";
            name: string | null;
            /** @description Source id in the downlink audio header of this member’s frames (spec/terminal-protocol.md). */
            sourceId: number;
            /** @description mqtt, websocket or webrtc for a terminal; null for an agent. */
            transport: string | null;
            /**
             * Format: date-time
             * @description When the terminal’s session opened; null for an agent.
             */
            connectedAt: string | null;
            /** @description Its talk spurt is on now: the room announced speaking.started for it and not yet speaking.stopped. */
            speaking: boolean;
        };
        /** @description A room: who is in it now (in the order they joined), its live agents and its settings. */
        Room: {
            room: string;
            participants: components["schemas"]["Participant"][];
            /** @description Live (starting or running) agents of the room. */
            agents: components["schemas"]["Agent"][];
            /** @description The room default agent setting (PUT /rooms/{room}); null when none. */
            defaultAgent: components["schemas"]["DefaultAgent"] | null;
        };
        /** @description An agent run’s conversation, without its turns. */
        Transcript: {
            agentId: string;
            room: string;
            /** @description The agent in the room: agent@<presetId>, or agent@default. */
            identity: string;
            provider: string;
            presetId: string | null;
            /** Format: date-time */
            startedAt: string;
            /**
             * Format: date-time
             * @description null while the agent runs.
             */
            endedAt: string | null;
            /** @description Turns recorded so far. */
            turns: number;
        };
        /** @description One turn: speech (a terminal, the room or the agent) or a tool call of the agent. */
        TranscriptTurn: {
            /** @description Its place in the conversation (1, 2, 3 …). */
            seq: number;
            /** @enum {string} */
            kind: "speech" | "tool_call";
            /** @enum {string} */
            role: "user" | "agent";
            /** @description The agent’s identity, a terminal’s client id, or room (mixed input of several terminals). */
            speaker: string;
            /** @description The terminal that spoke, when known. */
            clientId: string | null;
            /** @description What was said (a cut reply: what the room heard); null without text (echo, tool calls). */
            text: string | null;
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            endedAt: string;
            /** @description An agent reply cut by a barge-in. */
            interrupted: boolean;
            /** @description The terminal that talked over it, when known. */
            interruptedBy: string | null;
            /** @description The call, for kind tool_call. */
            tool: {
                name: string;
                /** @description Where the tool lives (device, mcp, backend), when the provider says. */
                source: string | null;
                /** @description The arguments it was called with. */
                arguments: unknown;
                /** @description What it answered; null when it failed. */
                result: unknown;
                /** @description Why it failed; null when it answered. */
                error: string | null;
                latencyMs: number | null;
            } | null;
        };
        /** @description A room recording: Ogg Opus files (RFC 7845), one per track. */
        Recording: {
            recordingId: string;
            room: string;
            /**
             * @description What it records: the room mix, one track per participant, or both.
             * @enum {string}
             */
            tracks: "mixed" | "per-participant" | "both";
            /** @enum {string} */
            status: "recording" | "finished" | "failed";
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            endedAt: string | null;
            /** @description Null while it records. */
            durationMs: number | null;
            /** @description Bytes of every file (0 while it records). */
            sizeBytes: number;
            /** @description api (POST …/recordings), room (the room’s recording setting) or agent:<agentId> (an agent whose preset records). */
            startedBy: string;
            /** @description Why a failed recording stopped (the disk floor, a write error). */
            failure: string | null;
            /** @description Everyone heard on a per-participant track (a terminal by client id, an agent by identity). */
            participants: {
                id: string;
                /** @enum {string|null} */
                kind: "terminal" | "agent" | null;
            }[];
            files: {
                /** @description mixed, or p1, p2 … (one per participant). */
                track: string;
                /** @description Null for the mixed track. */
                participantId: string | null;
                bytes: number;
                durationMs: number;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenApiDocumentHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listClients: {
        parameters: {
            query?: {
                /** @description Only clients mapped to this room. */
                room?: string;
                /** @description Only clients of this kind. */
                kind?: string;
                /** @description Only clients online (or offline) now. */
                status?: "online" | "offline";
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of clients. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        clients: components["schemas"]["Client"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createClient: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    clientId: string;
                    name?: string;
                    kind?: string;
                    room?: string;
                };
            };
        };
        responses: {
            /** @description The created client. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Client"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listClientsHead: {
        parameters: {
            query?: {
                /** @description Only clients mapped to this room. */
                room?: string;
                /** @description Only clients of this kind. */
                kind?: string;
                /** @description Only clients online (or offline) now. */
                status?: "online" | "offline";
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of clients. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        clients: components["schemas"]["Client"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Client"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deletion result. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        clientId: string;
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getClientHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Client"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string | null;
                    kind?: string | null;
                    room?: string | null;
                };
            };
        };
        responses: {
            /** @description The updated client. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Client"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    issueClientToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Lifetime in seconds; omit for a long-lived token. */
                    ttlSeconds?: number;
                };
            };
        };
        responses: {
            /** @description The token. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The client token (HS256 JWT). */
                        token: string;
                        clientId: string;
                        /** @description Token id, for POST /api/v1/tokens/revoke. */
                        jti: string;
                        /**
                         * Format: date-time
                         * @description Expiry as ISO-8601 UTC (whole seconds, equal to the exp claim); null for a long-lived token.
                         */
                        expiresAt: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createEphemeralClient: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    room: string;
                    kind?: string;
                    /**
                     * @description Lifetime of the client and its token.
                     * @default 3600
                     */
                    ttlSeconds?: number;
                };
            };
        };
        responses: {
            /** @description The ephemeral client’s token. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The client token (HS256 JWT). */
                        token: string;
                        clientId: string;
                        /** @description Token id, for POST /api/v1/tokens/revoke. */
                        jti: string;
                        /**
                         * Format: date-time
                         * @description When the client and its token expire.
                         */
                        expiresAt: string;
                        room: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    jti: string;
                };
            };
        };
        responses: {
            /** @description The token is revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        jti: string;
                        clientId: string;
                        /** @constant */
                        revoked: true;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeAllClientTokens: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description No fields; may be omitted. */
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Tokens issued before tokensNotBefore are revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        clientId: string;
                        /** Format: date-time */
                        tokensNotBefore: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /** @description First UTC day (YYYY-MM-DD), within the last 90 days; default the oldest. */
                from?: string;
                /** @description Last UTC day (YYYY-MM-DD), not after today; default today. */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Daily records and totals. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        records: {
                            /**
                             * Format: date
                             * @description UTC day.
                             */
                            date: string;
                            /** @description Connected terminal minutes that day, two decimals. */
                            minutes: number;
                            /** @description Terminal sessions that started that day. */
                            sessions: number;
                        }[];
                        totals: {
                            minutes: number;
                            sessions: number;
                        };
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUsageHead: {
        parameters: {
            query?: {
                /** @description First UTC day (YYYY-MM-DD), within the last 90 days; default the oldest. */
                from?: string;
                /** @description Last UTC day (YYYY-MM-DD), not after today; default today. */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Daily records and totals. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        records: {
                            /**
                             * Format: date
                             * @description UTC day.
                             */
                            date: string;
                            /** @description Connected terminal minutes that day, two decimals. */
                            minutes: number;
                            /** @description Terminal sessions that started that day. */
                            sessions: number;
                        }[];
                        totals: {
                            minutes: number;
                            sessions: number;
                        };
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgents: {
        parameters: {
            query?: {
                /** @description Only agents of this room. */
                room?: string;
                /** @description Only agents in this state. */
                state?: "starting" | "running" | "stopping" | "stopped" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agents. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agents: components["schemas"]["Agent"][];
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dispatchAgent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    room: string;
                    /** @description A saved agent of the workspace; omitted or null: the platform default. */
                    presetId?: string | null;
                    /** @description Fields of the provider's config schema (GET /agent-providers); never keys or endpoints. */
                    overrides?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The agent, running in the room. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The agent provider failed to start the agent (the reason is in the message; no secrets). */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentsHead: {
        parameters: {
            query?: {
                /** @description Only agents of this room. */
                room?: string;
                /** @description Only agents in this state. */
                state?: "starting" | "running" | "stopping" | "stopped" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agents. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agents: components["schemas"]["Agent"][];
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    stopAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent is stopped. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentId: string;
                        /** @constant */
                        stopped: true;
                        /**
                         * @description failed when it had failed before.
                         * @enum {string}
                         */
                        state: "stopped" | "failed";
                        reason: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description New system instructions, from the next turn on. */
                    instructions?: string;
                    /** @description New tool permissions (replacing the old ones whole): allow-lists per source with * wildcards, as in a preset config; {} allows no tool. Checked against the provider’s config schema (an unknown source is refused). */
                    tools?: {
                        [key: string]: string[];
                    };
                };
            };
        };
        responses: {
            /** @description The agent, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The registered providers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        providers: {
                            name: string;
                            description: string | null;
                            configSchema: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentProvidersHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The registered providers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        providers: {
                            name: string;
                            description: string | null;
                            configSchema: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    agentSay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description What the agent says, as is. */
                    text: string;
                    /**
                     * @description Cut the current reply first (true), or speak after it (false).
                     * @default false
                     */
                    interrupt?: boolean;
                };
            };
        };
        responses: {
            /** @description Accepted: the agent says it now or after its current reply. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentId: string;
                        /** @constant */
                        accepted: true;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    interruptAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping. storage_unavailable: the database primary cannot be reached; nothing was written. cluster_unavailable: the node that owns the room could not be reached, or is gone and its room not yet taken over (within cluster.leaseTtlMs). Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentPresets: {
        parameters: {
            query?: {
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of presets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        presets: components["schemas"]["AgentPreset"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createAgentPreset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Chosen by the caller; "default" is reserved. */
                    presetId: string;
                    name?: string | null;
                    provider: string;
                    /** @description Fields of the provider's config schema (GET /agent-providers); never keys or endpoints. */
                    config?: {
                        [key: string]: unknown;
                    } | null;
                    /** @description Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset. */
                    record?: {
                        /** @enum {string} */
                        tracks: "mixed" | "per-participant" | "both";
                    } | null;
                };
            };
        };
        responses: {
            /** @description The created preset. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPreset"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentPresetsHead: {
        parameters: {
            query?: {
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of presets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        presets: components["schemas"]["AgentPreset"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentPreset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                presetId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The preset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPreset"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteAgentPreset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                presetId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deletion result. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        presetId: string;
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentPresetHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                presetId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The preset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPreset"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAgentPreset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                presetId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string | null;
                    provider?: string;
                    /** @description Fields of the provider's config schema (GET /agent-providers); never keys or endpoints. */
                    config?: {
                        [key: string]: unknown;
                    };
                    /** @description Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset. */
                    record?: {
                        /** @enum {string} */
                        tracks: "mixed" | "per-participant" | "both";
                    } | null;
                };
            };
        };
        responses: {
            /** @description The updated preset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPreset"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRooms: {
        parameters: {
            query?: {
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of occupied rooms. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        rooms: components["schemas"]["Room"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRoomsHead: {
        parameters: {
            query?: {
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of occupied rooms. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        rooms: components["schemas"]["Room"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRoom: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                room: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The room. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Room"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putRoom: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                room: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    defaultAgent: {
                        presetId?: string | null;
                        /** @description Fields of the provider's config schema (GET /agent-providers); never keys or endpoints. */
                        overrides?: {
                            [key: string]: unknown;
                        } | null;
                        stopDelaySeconds?: number | null;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The room. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Room"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRoomHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                room: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The room. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Room"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentTranscript: {
        parameters: {
            query?: {
                /** @description nextCursor of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The conversation and a page of its turns. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentId: string;
                        room: string;
                        /** @description The agent in the room: agent@<presetId>, or agent@default. */
                        identity: string;
                        provider: string;
                        presetId: string | null;
                        /** Format: date-time */
                        startedAt: string;
                        /**
                         * Format: date-time
                         * @description null while the agent runs.
                         */
                        endedAt: string | null;
                        /** @description Turns recorded so far. */
                        turns: number;
                        /** @description Always false here (a console viewer gets true: text and tool calls withheld). */
                        textHidden: boolean;
                        items: components["schemas"]["TranscriptTurn"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteAgentTranscript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Erased. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentId: string;
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentTranscriptHead: {
        parameters: {
            query?: {
                /** @description nextCursor of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The conversation and a page of its turns. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agentId: string;
                        room: string;
                        /** @description The agent in the room: agent@<presetId>, or agent@default. */
                        identity: string;
                        provider: string;
                        presetId: string | null;
                        /** Format: date-time */
                        startedAt: string;
                        /**
                         * Format: date-time
                         * @description null while the agent runs.
                         */
                        endedAt: string | null;
                        /** @description Turns recorded so far. */
                        turns: number;
                        /** @description Always false here (a console viewer gets true: text and tool calls withheld). */
                        textHidden: boolean;
                        items: components["schemas"]["TranscriptTurn"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTranscripts: {
        parameters: {
            query?: {
                /** @description Only conversations in this room. */
                room?: string;
                /** @description Only conversations where this terminal spoke. */
                clientId?: string;
                /** @description Started at or after (ISO 8601 date-time). */
                from?: string;
                /** @description Started before (ISO 8601 date-time). */
                to?: string;
                /** @description nextCursor of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of conversations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Transcript"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTranscriptsHead: {
        parameters: {
            query?: {
                /** @description Only conversations in this room. */
                room?: string;
                /** @description Only conversations where this terminal spoke. */
                clientId?: string;
                /** @description Started at or after (ISO 8601 date-time). */
                from?: string;
                /** @description Started before (ISO 8601 date-time). */
                to?: string;
                /** @description nextCursor of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of conversations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Transcript"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                room: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    tracks: "mixed" | "per-participant" | "both";
                };
            };
        };
        responses: {
            /** @description The recording agents had started, kept from now on (its tracks as they are). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recording"];
                };
            };
            /** @description The recording, started. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recording"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    stopRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                room: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recording, finished. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recording"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRoomRecordingSetting: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                room: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The room’s recording setting. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        room: string;
                        /** @enum {string|null} */
                        tracks: "mixed" | "per-participant" | "both" | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putRoomRecordingSetting: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                room: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string|null} */
                    tracks: "mixed" | "per-participant" | "both" | null;
                };
            };
        };
        responses: {
            /** @description The room’s recording setting. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        room: string;
                        /** @enum {string|null} */
                        tracks: "mixed" | "per-participant" | "both" | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRoomRecordingSettingHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                room: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The room’s recording setting. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        room: string;
                        /** @enum {string|null} */
                        tracks: "mixed" | "per-participant" | "both" | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRecordings: {
        parameters: {
            query?: {
                room?: string;
                /** @description Recordings that agent started (its preset records): startedBy agent:<agentId>. */
                agentId?: string;
                status?: "recording" | "finished" | "failed";
                /** @description Started at or after. */
                from?: string;
                /** @description Started before. */
                to?: string;
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of recordings. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        recordings: components["schemas"]["Recording"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRecordingsHead: {
        parameters: {
            query?: {
                room?: string;
                /** @description Recordings that agent started (its preset records): startedBy agent:<agentId>. */
                agentId?: string;
                status?: "recording" | "finished" | "failed";
                /** @description Started at or after. */
                from?: string;
                /** @description Started before. */
                to?: string;
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of recordings. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        recordings: components["schemas"]["Recording"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recording. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recording"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        recordingId: string;
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRecordingHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recording. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recording"];
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadRecordingTrack: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                /** @description mixed, or p1, p2 … (one per participant). */
                track: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole file. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "audio/ogg": string;
                };
            };
            /** @description The range asked for. */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "audio/ogg": string;
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description range_not_satisfiable: the range starts past the end of the file. */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadRecordingTrackHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                /** @description mixed, or p1, p2 … (one per participant). */
                track: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole file. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "audio/ogg": string;
                };
            };
            /** @description The range asked for. */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "audio/ogg": string;
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description range_not_satisfiable: the range starts past the end of the file. */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoints. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhooks: {
                            webhookId: string;
                            url: string;
                            /** @description null = every type. */
                            events: string[] | null;
                            description: string | null;
                            /** @description false after 3 days of failed attempts, or when disabled by request. */
                            enabled: boolean;
                            disabledReason: string | null;
                            /**
                             * Format: date-time
                             * @description Until then the secret before the last rotation signs too.
                             */
                            previousSecretExpiresAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description https URL (http only with webhooks.allowPrivateNetworks). */
                    url: string;
                    /** @description Event types delivered to this endpoint; omitted or null = every type. */
                    events?: ("client.connected" | "client.disconnected" | "client.room_changed" | "room.started" | "room.finished" | "agent.started" | "agent.stopped" | "agent.failed" | "agent.tool_called" | "agent.turn" | "client.created" | "client.updated" | "client.deleted" | "token.revoked" | "device_password.reset" | "webhook.test" | "recording.started" | "recording.finished" | "recording.failed")[] | null;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The endpoint, with its signing secret (shown only here and on rotation). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhookId: string;
                        url: string;
                        /** @description null = every type. */
                        events: string[] | null;
                        description: string | null;
                        /** @description false after 3 days of failed attempts, or when disabled by request. */
                        enabled: boolean;
                        disabledReason: string | null;
                        /**
                         * Format: date-time
                         * @description Until then the secret before the last rotation signs too.
                         */
                        previousSecretExpiresAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        /** @description The signing secret (Standard Webhooks, whsec_ + base64); shown only here. */
                        secret: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhooksHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoints. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhooks: {
                            webhookId: string;
                            url: string;
                            /** @description null = every type. */
                            events: string[] | null;
                            description: string | null;
                            /** @description false after 3 days of failed attempts, or when disabled by request. */
                            enabled: boolean;
                            disabledReason: string | null;
                            /**
                             * Format: date-time
                             * @description Until then the secret before the last rotation signs too.
                             */
                            previousSecretExpiresAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhookId: string;
                        url: string;
                        /** @description null = every type. */
                        events: string[] | null;
                        description: string | null;
                        /** @description false after 3 days of failed attempts, or when disabled by request. */
                        enabled: boolean;
                        disabledReason: string | null;
                        /**
                         * Format: date-time
                         * @description Until then the secret before the last rotation signs too.
                         */
                        previousSecretExpiresAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deletion result. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhookId: string;
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhookHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhookId: string;
                        url: string;
                        /** @description null = every type. */
                        events: string[] | null;
                        description: string | null;
                        /** @description false after 3 days of failed attempts, or when disabled by request. */
                        enabled: boolean;
                        disabledReason: string | null;
                        /**
                         * Format: date-time
                         * @description Until then the secret before the last rotation signs too.
                         */
                        previousSecretExpiresAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description https URL (http only with webhooks.allowPrivateNetworks). */
                    url?: string;
                    /** @description Event types delivered to this endpoint; omitted or null = every type. */
                    events?: ("client.connected" | "client.disconnected" | "client.room_changed" | "room.started" | "room.finished" | "agent.started" | "agent.stopped" | "agent.failed" | "agent.tool_called" | "agent.turn" | "client.created" | "client.updated" | "client.deleted" | "token.revoked" | "device_password.reset" | "webhook.test" | "recording.started" | "recording.finished" | "recording.failed")[] | null;
                    description?: string | null;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description The updated endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhookId: string;
                        url: string;
                        /** @description null = every type. */
                        events: string[] | null;
                        description: string | null;
                        /** @description false after 3 days of failed attempts, or when disabled by request. */
                        enabled: boolean;
                        disabledReason: string | null;
                        /**
                         * Format: date-time
                         * @description Until then the secret before the last rotation signs too.
                         */
                        previousSecretExpiresAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description No fields; may be omitted. */
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The endpoint with its new secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhookId: string;
                        url: string;
                        /** @description null = every type. */
                        events: string[] | null;
                        description: string | null;
                        /** @description false after 3 days of failed attempts, or when disabled by request. */
                        enabled: boolean;
                        disabledReason: string | null;
                        /**
                         * Format: date-time
                         * @description Until then the secret before the last rotation signs too.
                         */
                        previousSecretExpiresAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        /** @description The signing secret (Standard Webhooks, whsec_ + base64); shown only here. */
                        secret: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description No fields; may be omitted. */
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        eventId: string;
                        deliveryId: string;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: {
                            deliveryId: string;
                            /** @description The webhook-id header; the same on every attempt and redelivery. */
                            eventId: string;
                            type: string;
                            resource: string;
                            sequence: number;
                            /** @enum {string} */
                            status: "pending" | "delivered" | "dead";
                            attempts: number;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            lastAttemptAt: string | null;
                            /** @description HTTP status of the last attempt; null without an answer. */
                            responseStatus: number | null;
                            latencyMs: number | null;
                            /** @description Why the last attempt failed. */
                            error: string | null;
                            /**
                             * Format: date-time
                             * @description When a pending delivery is tried next.
                             */
                            nextAttemptAt: string | null;
                            /** Format: date-time */
                            completedAt: string | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveriesHead: {
        parameters: {
            query?: {
                limit?: number;
                /** @description nextCursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: {
                            deliveryId: string;
                            /** @description The webhook-id header; the same on every attempt and redelivery. */
                            eventId: string;
                            type: string;
                            resource: string;
                            sequence: number;
                            /** @enum {string} */
                            status: "pending" | "delivered" | "dead";
                            attempts: number;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            lastAttemptAt: string | null;
                            /** @description HTTP status of the last attempt; null without an answer. */
                            responseStatus: number | null;
                            latencyMs: number | null;
                            /** @description Why the last attempt failed. */
                            error: string | null;
                            /**
                             * Format: date-time
                             * @description When a pending delivery is tried next.
                             */
                            nextAttemptAt: string | null;
                            /** Format: date-time */
                            completedAt: string | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        /** @description No fields; may be omitted. */
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The new delivery. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveryId: string;
                        /** @description The webhook-id header; the same on every attempt and redelivery. */
                        eventId: string;
                        type: string;
                        resource: string;
                        sequence: number;
                        /** @enum {string} */
                        status: "pending" | "delivered" | "dead";
                        attempts: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        lastAttemptAt: string | null;
                        /** @description HTTP status of the last attempt; null without an answer. */
                        responseStatus: number | null;
                        latencyMs: number | null;
                        /** @description Why the last attempt failed. */
                        error: string | null;
                        /**
                         * Format: date-time
                         * @description When a pending delivery is tried next.
                         */
                        nextAttemptAt: string | null;
                        /** Format: date-time */
                        completedAt: string | null;
                    };
                };
            };
            /** @description Invalid input: malformed JSON, a wrong type, an unknown field, or a value out of bounds. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, unknown or revoked API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource in this workspace (another workspace’s resource looks exactly the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request head did not arrive within rest.headersTimeoutMs, or the whole request within rest.requestTimeoutMs; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the current state (for example a duplicate clientId). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body larger than rest.bodyLimitBytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A non-empty request body that is not application/json in UTF-8 (an empty body, whatever its Content-Type, is no body). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit of the workspace (or, without a valid key, of the caller’s IP) exceeded. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: number;
                    /** @description Requests allowed per window (sent on every response). */
                    "ratelimit-limit"?: number;
                    /** @description Requests left in the window (sent on every response). */
                    "ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets (sent on every response). */
                    "ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request line and headers larger than 16 KiB (a URL that long, say); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error (no details are revealed). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description server_shutting_down: the engine is stopping (requests in flight finish, new ones are refused; the connection is closed). storage_unavailable: the database is on a libSQL server whose primary this node cannot reach; a request that writes is refused (nothing was changed, unless the primary failed during the write), reads go on from the node’s replica. Retry with backoff. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    webhook_client_connected: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "client.connected",
                 *       "data": {
                 *         "clientId": "dev-1",
                 *         "sessionId": "ses_3vT9cQkR2mXw8LpA",
                 *         "transport": "mqtt",
                 *         "room": "lobby"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "client.connected";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        clientId: string;
                        sessionId: string;
                        /** @description websocket, mqtt or webrtc. */
                        transport: string;
                        /** @description The room it entered; null when the client is mapped to none. */
                        room: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_client_disconnected: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "client.disconnected",
                 *       "data": {
                 *         "clientId": "dev-1",
                 *         "sessionId": "ses_3vT9cQkR2mXw8LpA",
                 *         "transport": "mqtt",
                 *         "room": "lobby",
                 *         "reason": "client_closed",
                 *         "durationMs": 93412
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "client.disconnected";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        clientId: string;
                        sessionId: string;
                        transport: string;
                        /** @description The room it was in last (a replaced session: the room it left for its successor); null for none. */
                        room: string | null;
                        /** @description client_closed when the terminal went away; otherwise the error code it was closed with (token_revoked, session_replaced, client_deleted, device_password_reset, token_expired, server_shutting_down, protocol_error, keepalive_timeout …). */
                        reason: string;
                        /** @description How long the session lasted. */
                        durationMs: number;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_client_room_changed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "client.room_changed",
                 *       "data": {
                 *         "clientId": "dev-1",
                 *         "sessionId": "ses_3vT9cQkR2mXw8LpA",
                 *         "from": "lobby",
                 *         "to": "kitchen"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "client.room_changed";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        clientId: string;
                        sessionId: string;
                        from: string | null;
                        to: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_room_started: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "room.started",
                 *       "data": {
                 *         "room": "lobby",
                 *         "clientId": "dev-1"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "room.started";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        room: string;
                        /** @description The first participant. */
                        clientId: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_room_finished: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "room.finished",
                 *       "data": {
                 *         "room": "lobby",
                 *         "clientId": "dev-2",
                 *         "durationMs": 1204330
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "room.finished";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        room: string;
                        /** @description The last participant to leave. */
                        clientId: string;
                        /** @description Time since room.started. */
                        durationMs: number;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_agent_started: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "agent.started",
                 *       "data": {
                 *         "agentId": "ag_8fK2LmQ9xRt4Vb1Z",
                 *         "room": "lobby",
                 *         "identity": "agent@concierge",
                 *         "provider": "openai-realtime",
                 *         "presetId": "concierge"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "agent.started";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        agentId: string;
                        room: string;
                        /** @description agent@<presetId>, or agent@default. */
                        identity: string;
                        provider: string;
                        /** @description null for the platform default agent. */
                        presetId: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_agent_stopped: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "agent.stopped",
                 *       "data": {
                 *         "agentId": "ag_8fK2LmQ9xRt4Vb1Z",
                 *         "room": "lobby",
                 *         "identity": "agent@concierge",
                 *         "provider": "openai-realtime",
                 *         "presetId": "concierge",
                 *         "reason": "stopped by request"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "agent.stopped";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        agentId: string;
                        room: string;
                        /** @description agent@<presetId>, or agent@default. */
                        identity: string;
                        provider: string;
                        /** @description null for the platform default agent. */
                        presetId: string | null;
                        reason: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_agent_failed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "agent.failed",
                 *       "data": {
                 *         "agentId": "ag_2Hq7WcN5pYd0Ke3S",
                 *         "room": "lobby",
                 *         "identity": "agent@default",
                 *         "provider": "pipeline",
                 *         "presetId": null,
                 *         "reason": "provider failed to start: speech-to-text answered 401"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "agent.failed";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        agentId: string;
                        room: string;
                        /** @description agent@<presetId>, or agent@default. */
                        identity: string;
                        provider: string;
                        /** @description null for the platform default agent. */
                        presetId: string | null;
                        reason: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_agent_tool_called: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "agent.tool_called",
                 *       "data": {
                 *         "agentId": "ag_8fK2LmQ9xRt4Vb1Z",
                 *         "room": "kitchen",
                 *         "identity": "agent@concierge",
                 *         "provider": "pipeline",
                 *         "presetId": "concierge",
                 *         "tool": "speaker-1/self.light.set_on",
                 *         "source": "device",
                 *         "arguments": {
                 *           "on": true
                 *         },
                 *         "ok": true,
                 *         "result": "true",
                 *         "error": null,
                 *         "latencyMs": 42
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "agent.tool_called";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        agentId: string;
                        room: string;
                        /** @description agent@<presetId>, or agent@default. */
                        identity: string;
                        provider: string;
                        /** @description null for the platform default agent. */
                        presetId: string | null;
                        tool: string;
                        source: string;
                        arguments: unknown;
                        ok: boolean;
                        result: string | null;
                        error: string | null;
                        latencyMs: number;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_agent_turn: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "agent.turn",
                 *       "data": {
                 *         "agentId": "ag_8fK2LmQ9xRt4Vb1Z",
                 *         "room": "lobby",
                 *         "identity": "agent@concierge",
                 *         "seq": 2,
                 *         "kind": "speech",
                 *         "role": "agent",
                 *         "speaker": "agent@concierge",
                 *         "clientId": null,
                 *         "text": "The kitchen light is on.",
                 *         "startedAt": "2026-03-01T10:00:03.120Z",
                 *         "endedAt": "2026-03-01T10:00:04.480Z",
                 *         "interrupted": false,
                 *         "interruptedBy": null,
                 *         "tool": null
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "agent.turn";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        agentId: string;
                        room: string;
                        identity: string;
                        /** @description The turn’s number in its conversation (1, 2, 3 …). */
                        seq: number;
                        /** @enum {string} */
                        kind: "speech" | "tool_call";
                        /** @enum {string} */
                        role: "user" | "agent";
                        /** @description The agent’s identity, a terminal’s client id, or room for the room’s mixed input. */
                        speaker: string;
                        /** @description The terminal that spoke, when known (the provider said, or it alone spoke). */
                        clientId: string | null;
                        /** @description What was said; null when the provider has no text (echo) or a tool call. */
                        text: string | null;
                        /** Format: date-time */
                        startedAt: string;
                        /** Format: date-time */
                        endedAt: string;
                        /** @description An agent reply cut by a barge-in. */
                        interrupted: boolean;
                        /** @description The terminal that talked over it, when known. */
                        interruptedBy: string | null;
                        tool: {
                            name: string;
                            /** @description Where the tool lives (device, mcp, backend), when the provider says. */
                            source: string | null;
                            /** @description The arguments it was called with. */
                            arguments: unknown;
                            /** @description What it answered; null when it failed. */
                            result: unknown;
                            /** @description Why it failed; null when it answered. */
                            error: string | null;
                            latencyMs: number | null;
                        } | null;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_client_created: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "client.created",
                 *       "data": {
                 *         "clientId": "dev-1",
                 *         "name": "Kitchen speaker",
                 *         "kind": "device",
                 *         "room": "lobby",
                 *         "ephemeral": false
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "client.created";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        clientId: string;
                        name: string | null;
                        kind: string | null;
                        /** @description The stored client-to-room mapping. */
                        room: string | null;
                        ephemeral: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_client_updated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "client.updated",
                 *       "data": {
                 *         "clientId": "dev-1",
                 *         "name": "Kitchen speaker",
                 *         "kind": "device",
                 *         "room": "kitchen",
                 *         "ephemeral": false
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "client.updated";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        clientId: string;
                        name: string | null;
                        kind: string | null;
                        /** @description The stored client-to-room mapping. */
                        room: string | null;
                        ephemeral: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_client_deleted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "client.deleted",
                 *       "data": {
                 *         "clientId": "dev-1"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "client.deleted";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        clientId: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_token_revoked: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "token.revoked",
                 *       "data": {
                 *         "clientId": "dev-1",
                 *         "jti": "01JD3M5Q8T7V2XW4YZ6A9BCDEF",
                 *         "all": false
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "token.revoked";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        clientId: string;
                        jti: string | null;
                        all: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_device_password_reset: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "device_password.reset",
                 *       "data": {
                 *         "clientId": "dev-1"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "device_password.reset";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        clientId: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_webhook_test: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "webhook.test",
                 *       "data": {
                 *         "webhookId": "wh_5cJ8nT2qLr7Xv0Mb",
                 *         "message": "test event from Hark"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "webhook.test";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        webhookId: string;
                        message: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_recording_started: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "recording.started",
                 *       "data": {
                 *         "recordingId": "rec_01JD3M5Q8T7V2XW4YZ6A9BCDEF",
                 *         "room": "lobby",
                 *         "tracks": "both"
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "recording.started";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        recordingId: string;
                        room: string;
                        /** @description mixed, per-participant or both. */
                        tracks: string;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_recording_finished: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "recording.finished",
                 *       "data": {
                 *         "recordingId": "rec_01JD3M5Q8T7V2XW4YZ6A9BCDEF",
                 *         "room": "lobby",
                 *         "tracks": "both",
                 *         "reason": "room_closed",
                 *         "durationMs": 184220,
                 *         "sizeBytes": 1203455
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "recording.finished";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        recordingId: string;
                        room: string;
                        /** @description mixed, per-participant or both. */
                        tracks: string;
                        /** @description stopped (DELETE /rooms/{room}/recordings), room_closed (its last member left), shutdown, or recovered (finished at start after a crash). */
                        reason: string;
                        durationMs: number;
                        sizeBytes: number;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_recording_failed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body’s id); the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; signed. */
                "webhook-timestamp": string;
                /** @description Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "recording.failed",
                 *       "data": {
                 *         "recordingId": "rec_01JD3M5Q8T7V2XW4YZ6A9BCDEF",
                 *         "room": "lobby",
                 *         "tracks": "mixed",
                 *         "reason": "disk space below the floor: 52428800 bytes free, 536870912 required",
                 *         "durationMs": 61040,
                 *         "sizeBytes": 402113
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @constant */
                    type: "recording.failed";
                    /**
                     * Format: date-time
                     * @description When it happened.
                     */
                    timestamp: string;
                    workspaceId: string;
                    /** @description client:<id>, room:<name>, agent:<id> or webhook:<id>. */
                    resource: string;
                    /** @description Counts the events of the resource, in the order they happened. */
                    sequence: number;
                    data: {
                        recordingId: string;
                        room: string;
                        /** @description mixed, per-participant or both. */
                        tracks: string;
                        reason: string;
                        durationMs: number;
                        sizeBytes: number;
                    };
                };
            };
        };
        responses: {
            /** @description Delivered. Anything else (or no answer within 10 s) is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
