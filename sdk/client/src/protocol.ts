/**
 * Terminal protocol v1 as a client sees it (spec/terminal-protocol.md): the JSON events the server
 * sends, the control messages a terminal sends, and the binary audio frame layouts. The types are
 * the engine's own (core/events.ts), written again here because this package imports nothing from
 * the engine; test/protocol.test.ts checks both against each other and against the spec.
 */

export const PROTOCOL_VERSION = 1

export type AudioMode = 'forward' | 'mixed'

/** A member of a room: a terminal session (`id` = its clientId) or an AI agent (its identity). */
export interface Participant {
  readonly id: string
  readonly kind: 'terminal' | 'agent'
  /** Tags this participant's audio frames; unique in the room while it is there. */
  readonly sourceId: number
  readonly name: string | null
}

export interface AudioParameters {
  readonly codec: 'opus'
  readonly sampleRate: 16000
  readonly channels: 1
  readonly frameMs: ReadonlyArray<number>
  readonly maxOpusBytes: number
}

/** What an agent tells its room (`agent.event`): a provider's JSON object with a `kind`. */
export interface AgentEventPayload {
  readonly kind: string
  readonly [field: string]: unknown
}

/** The kinds the built-in providers emit (spec/agents.md); providers may add others. */
export interface AgentEventKinds {
  readonly transcript: { readonly role: 'user' | 'agent'; readonly text: string; readonly final?: boolean; readonly truncated?: boolean }
  readonly state: { readonly state: 'listening' | 'thinking' | 'speaking' | (string & {}) }
  readonly interrupted: object
  readonly reply: { readonly status: string; readonly reason?: string | null }
  readonly emotion: { readonly emotion: string; readonly text?: string }
  /** A JSON-RPC 2.0 message for a device's MCP tools (a tool call), for device `to` or every device of the room. */
  readonly mcp: { readonly to?: string; readonly payload: Readonly<Record<string, unknown>> }
  readonly error: { readonly message?: string }
}

/** Narrow an agent event to one of the known kinds: `if (isAgentEvent(e.event, 'transcript')) e.event.text`. */
export const isAgentEvent = <K extends keyof AgentEventKinds>(event: AgentEventPayload, kind: K): event is AgentEventPayload & { readonly kind: K } & AgentEventKinds[K] =>
  event.kind === kind

/** Every event the server sends; told apart by `type`. Unknown types are passed on as `unknown` events. */
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
      readonly participants: ReadonlyArray<Participant>
      readonly serverTime: number
    }
  | { readonly type: 'participant.joined'; readonly room: string; readonly participant: Participant }
  | { readonly type: 'participant.left'; readonly room: string; readonly participant: Participant }
  | {
      readonly type: 'room.changed'
      readonly from: string | null
      readonly to: string | null
      readonly sourceId: number | null
      readonly participants: ReadonlyArray<Participant>
    }
  | { readonly type: 'speaking.started'; readonly room: string; readonly participantId: string; readonly sourceId: number }
  | { readonly type: 'speaking.stopped'; readonly room: string; readonly participantId: string; readonly sourceId: number }
  | { readonly type: 'agent.started'; readonly room: string; readonly agentId: string; readonly identity: string }
  | { readonly type: 'agent.stopped'; readonly room: string; readonly agentId: string; readonly identity: string; readonly reason: string }
  | { readonly type: 'agent.event'; readonly room: string; readonly agentId: string; readonly event: AgentEventPayload }
  | {
      readonly type: 'participant.will'
      readonly room: string
      readonly participantId: string
      readonly topic: string
      readonly payload: string
      readonly encoding: 'utf8' | 'base64'
    }
  | { readonly type: 'participant.event'; readonly room: string; readonly participantId: string; readonly event: Readonly<Record<string, unknown>> }
  | {
      readonly type: 'room.recording'
      readonly room: string
      readonly recording: boolean
      readonly recordingId: string
      readonly tracks: 'mixed' | 'per-participant' | 'both'
    }
  | {
      readonly type: 'room.degraded'
      readonly room: string
      readonly degraded: boolean
      readonly reason: 'server_overload'
      readonly shedPercent: number
    }
  | { readonly type: 'audio.mode'; readonly audioMode: AudioMode }
  | { readonly type: 'pong'; readonly id: string | number | null; readonly serverTime: number }
  | { readonly type: 'error'; readonly code: string; readonly message: string; readonly id?: string | number | null }
  | { readonly type: 'session.closing'; readonly code: string; readonly message: string }

export type ServerEventType = ServerEvent['type']
export type ServerEventOf<T extends ServerEventType> = Extract<ServerEvent, { type: T }>

/** The event types of spec/terminal-protocol.md, "Server events", in its order. */
export const SERVER_EVENT_TYPES = [
  'session',
  'participant.joined',
  'participant.left',
  'room.changed',
  'speaking.started',
  'speaking.stopped',
  'agent.started',
  'agent.stopped',
  'agent.event',
  'participant.will',
  'participant.event',
  'room.recording',
  'room.degraded',
  'audio.mode',
  'pong',
  'error',
  'session.closing',
] as const satisfies ReadonlyArray<ServerEventType>

/** Control messages a terminal sends. */
export type ClientMessage =
  | { readonly type: 'ping'; readonly id: string | number | null }
  | { readonly type: 'audio.mode'; readonly audioMode: AudioMode; readonly id: string | number | null }
  /** The terminal offers MCP tools to the agents of its room. */
  | { readonly type: 'mcp.ready'; readonly id: string | number | null }
  /** A JSON-RPC 2.0 message of the terminal's MCP server for the agents of its room. */
  | { readonly type: 'mcp'; readonly payload: Readonly<Record<string, unknown>>; readonly id: string | number | null }

export const CLIENT_MESSAGE_TYPES = ['ping', 'audio.mode', 'mcp.ready', 'mcp'] as const satisfies ReadonlyArray<ClientMessage['type']>

/** Largest control message (UTF-8 bytes) and the control rate the server allows before closing. */
export const MAX_CONTROL_MESSAGE_BYTES = 4096
export const CONTROL_MESSAGES_PER_SECOND = 20
export const CONTROL_MESSAGE_BURST = 40

// Audio frames (spec/terminal-protocol.md, "Audio frames").
export const DOWNLINK_KIND_OPUS = 0x01
export const DOWNLINK_HEADER_BYTES = 6
export const MAX_OPUS_BYTES = 1500
/** The V|level byte of a terminal that cannot measure its level: voiced, -30 dBov. */
export const LEVEL_UNKNOWN = 0x9e
export const LEVEL_SILENT = 0x7f
/** PCM the Node helpers take and give: 16-bit mono at 16 kHz; 20 ms = 320 samples. */
export const SAMPLE_RATE = 16_000

/** Whether a V|level byte says "voice". */
export const isVoiced = (levelByte: number): boolean => (levelByte & 0x80) !== 0

/** The V|level byte of 16-bit PCM: level in -dBov from the RMS, V when louder than -50 dBov (the reference rule). */
export const levelByteFromPcm = (pcm: Int16Array): number => {
  let sum = 0
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!
  return levelByteFromRms(Math.sqrt(sum / Math.max(1, pcm.length)) / 32768)
}

/** The V|level byte of float PCM (-1 … 1, Web Audio's samples). */
export const levelByteFromFloat = (pcm: Float32Array): number => {
  let sum = 0
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!
  return levelByteFromRms(Math.sqrt(sum / Math.max(1, pcm.length)))
}

const levelByteFromRms = (rms: number): number => {
  const dbov = rms > 0 ? Math.min(127, Math.max(0, Math.round(-20 * Math.log10(rms)))) : 127
  return (dbov <= 50 ? 0x80 : 0) | dbov
}

/** An uplink frame: the V|level byte, then the Opus packet. */
export const uplinkFrame = (opus: Uint8Array, levelByte: number): Uint8Array<ArrayBuffer> => {
  const frame = new Uint8Array(opus.length + 1)
  frame[0] = levelByte
  frame.set(opus, 1)
  return frame
}
