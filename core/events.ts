/**
 * Terminal protocol v1, control plane: the JSON events the server sends to terminals (WebSocket
 * text frames, MQTT event topics, WebRTC data channel) and the messages terminals send. One set
 * of types for every transport; spec/terminal-protocol.md documents them.
 */

export const PROTOCOL_VERSION = 1

export type AudioMode = 'forward' | 'mixed'

export interface ParticipantInfo {
  /** clientId for a terminal, the agent's identity for an agent. */
  readonly id: string
  readonly kind: 'terminal' | 'agent'
  /** Source id carried in the downlink audio header of this participant's frames. */
  readonly sourceId: number
  readonly name: string | null
}

export interface AudioParameters {
  readonly codec: 'opus'
  readonly sampleRate: 16000
  readonly channels: 1
  readonly frameMs: ReadonlyArray<number>
  /** Largest Opus packet accepted in one uplink frame (after its 1-byte level header). */
  readonly maxOpusBytes: number
}

export type ServerEvent =
  | {
      readonly type: 'session'
      readonly protocol: typeof PROTOCOL_VERSION
      readonly sessionId: string
      readonly clientId: string
      readonly room: string | null
      readonly sourceId: number | null
      readonly audioMode: AudioMode
      readonly audio: AudioParameters
      readonly participants: ReadonlyArray<ParticipantInfo>
      readonly serverTime: number
    }
  | { readonly type: 'participant.joined'; readonly room: string; readonly participant: ParticipantInfo }
  | { readonly type: 'participant.left'; readonly room: string; readonly participant: ParticipantInfo }
  | {
      readonly type: 'room.changed'
      readonly from: string | null
      readonly to: string | null
      readonly sourceId: number | null
      readonly participants: ReadonlyArray<ParticipantInfo>
    }
  | { readonly type: 'speaking.started'; readonly room: string; readonly participantId: string; readonly sourceId: number }
  | { readonly type: 'speaking.stopped'; readonly room: string; readonly participantId: string; readonly sourceId: number }
  | { readonly type: 'agent.started'; readonly room: string; readonly agentId: string; readonly identity: string }
  | {
      readonly type: 'agent.stopped'
      readonly room: string
      readonly agentId: string
      readonly identity: string
      readonly reason: string
    }
  | { readonly type: 'agent.event'; readonly room: string; readonly agentId: string; readonly event: Readonly<Record<string, unknown>> }
  | {
      /** A terminal's last will (MQTT), told to its room when the terminal dropped without saying goodbye. */
      readonly type: 'participant.will'
      readonly room: string
      readonly participantId: string
      readonly topic: string
      /** The will payload: UTF-8 text as is, anything else base64-encoded. */
      readonly payload: string
      readonly encoding: 'utf8' | 'base64'
    }
  | {
      /**
       * Something a terminal's transport tells its room on the terminal's behalf: the end of its
       * turn, a barge-in, a device tool's answer. `event.kind` names it (spec/terminal-protocol.md).
       */
      readonly type: 'participant.event'
      readonly room: string
      readonly participantId: string
      readonly event: Readonly<Record<string, unknown>>
    }
  | {
      /** The room is being recorded (`recording: true`, also told to each member joining while it is) or no longer is. */
      readonly type: 'room.recording'
      readonly room: string
      readonly recording: boolean
      readonly recordingId: string
      readonly tracks: 'mixed' | 'per-participant' | 'both'
    }
  | {
      /**
       * The engine is behind and sheds a share of every talker's uplink audio so that what it
       * delivers stays fresh (`degraded: true`, with the share shed when it said so), or it keeps
       * up again (`degraded: false`). Sent to the rooms whose talkers it shed from (core/dataplane/overload.ts).
       */
      readonly type: 'room.degraded'
      readonly room: string
      readonly degraded: boolean
      readonly reason: 'server_overload'
      readonly shedPercent: number
    }
  | { readonly type: 'audio.mode'; readonly audioMode: AudioMode }
  | { readonly type: 'pong'; readonly id: string | number | null; readonly serverTime: number }
  | {
      readonly type: 'error'
      readonly code: string
      readonly message: string
      /** The `id` of the client message this answers, when it had one. */
      readonly id?: string | number | null
    }
  | { readonly type: 'session.closing'; readonly code: string; readonly message: string }

export type ServerEventType = ServerEvent['type']

/** Largest control message a terminal may send (UTF-8 bytes of one JSON text). */
export const MAX_CONTROL_MESSAGE_BYTES = 4096

/** Uplink audio per session: sustained frames per second and burst; frames beyond are dropped. */
export const AUDIO_FRAMES_PER_SECOND = 100
export const AUDIO_FRAME_BURST = 50
/** Control messages per session: sustained per second and burst; beyond closes the session (rate_limited). */
export const CONTROL_MESSAGES_PER_SECOND = 20
export const CONTROL_MESSAGE_BURST = 40

/** Control messages a terminal sends (WebSocket text frames, MQTT control topic, data channel). */
export type ClientMessage =
  | { readonly type: 'ping'; readonly id: string | number | null }
  | { readonly type: 'audio.mode'; readonly audioMode: AudioMode; readonly id: string | number | null }
  /** The terminal offers MCP tools to the agents of its room (spec/terminal-protocol.md, MCP). */
  | { readonly type: 'mcp.ready'; readonly id: string | number | null }
  /** A JSON-RPC 2.0 message of the terminal's MCP server (an answer to an agent's request) for the agents of its room. */
  | { readonly type: 'mcp'; readonly payload: Readonly<Record<string, unknown>>; readonly id: string | number | null }

export type ClientMessageType = ClientMessage['type']
