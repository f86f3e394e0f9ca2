/**
 * The AgentProvider contract: an AI agent implementation, registered by name with
 * `defineAgentProvider(name, { settings?, create })` and resolved server-side when a back end
 * dispatches an agent. A provider declares the config a preset or a dispatch may set (an Effect
 * Schema), and starts one session per dispatched agent. The engine's agent runtime does the
 * audio plumbing: it decodes the room's Opus to 16-bit PCM (mixed, or per source when the
 * session asks), hands the session room events, and frames, encodes and paces whatever audio the
 * session emits. Provider keys and endpoints live in server settings and never in a config.
 *
 * A minimal provider:
 *
 *   defineAgentProvider('parrot', () => ({
 *     configSchema: Schema.Struct({}),
 *     start: (ctx) => ({ onAudio: (pcm) => ctx.audio.push(pcm) }),
 *   }))
 */
import type * as Schema from 'effect/Schema'
import type { ClockShape } from './clock.js'
import type { ParticipantInfo, ServerEvent } from './events.js'
import type { Logger } from './log.js'

/** PCM everywhere in this contract: 16-bit signed, mono, 16 kHz. */
export const AGENT_SAMPLE_RATE = 16_000
/** The runtime's frame: 20 ms of PCM (320 samples). */
export const AGENT_FRAME_SAMPLES = 320
export const AGENT_FRAME_MS = 20

export interface AgentProvider<Config = unknown> {
  /** One line for listings. */
  readonly description?: string
  /**
   * What a preset's config and a dispatch's overrides may hold. The merged config is decoded with
   * it (unknown fields are refused) and the result is what `ctx.config` holds. Secrets (keys,
   * endpoints) never belong here: they come from server settings.
   */
  readonly configSchema: Schema.Codec<Config, unknown>
  /**
   * Values that must never appear in a response, a log line or an error (API keys, endpoint
   * URLs and hosts): the runtime scrubs them from failure reasons and from the errors it logs.
   */
  secrets?(): ReadonlyArray<string>
  /**
   * What the provider found on this machine (local engines, models): `hark start` prints the
   * summary; `ready: false` says its agents will refuse to start, and why. Must be cheap (no load).
   */
  hostCheck?(): { readonly ready: boolean; readonly summary: string }
  /**
   * Start one agent session. Throwing or rejecting fails the agent (the reason of an
   * `AgentFailure` is shown to the room; anything else shows as "provider error"). Taking longer
   * than `agents.startTimeoutMs` fails it too. Must not touch the room before it resolves: audio
   * pushed during start is queued and played once the agent has joined.
   */
  start(ctx: AgentContext<Config>): Promise<AgentSession> | AgentSession
}

/** What a running session hears. Every callback is optional; a callback that throws fails the agent. */
export interface AgentSession {
  /**
   * The room's audio mixed into one stream: one 20 ms frame (320 samples) per call, every other
   * member summed, the agent itself excluded. While the room is quiet silence frames continue for
   * `MIXED_SILENCE_TAIL_MS`, then calls pause until someone speaks. The array is the session's to keep.
   */
  onAudio?(pcm: Int16Array): void
  /** One member's audio as it arrives (20 or 60 ms per call), decoded but not mixed. */
  onSourceAudio?(pcm: Int16Array, from: ParticipantInfo): void
  /** Room events: participant.joined/left, speaking.started/stopped, other agents' events. */
  onEvent?(event: ServerEvent): void
  /** Release everything (sockets, timers). Called once when the agent stops or fails. */
  stop?(): Promise<void> | void
  /**
   * Live control of the running agent (`POST /agents/{id}/say`, `…/interrupt`, `PATCH /agents/{id}`):
   * each operation is optional, and one the session lacks is refused with 409 `not_supported`.
   */
  readonly control?: AgentControl
}

/** What a running session may be asked from outside (spec/agents.md, "Live control"). */
export interface AgentControl {
  /**
   * Speak `text` (1–2000 characters, already checked): with `interrupt`, cut the current reply
   * first (as a barge-in would); without, after the current reply. The room hears it as the
   * agent's turn: audio, then `agent.event {kind: "transcript", role: "agent", text}`.
   */
  say?(text: string, options: { readonly interrupt: boolean }): void
  /** Stop what the agent is saying, and drop a reply being prepared and text waiting to be said. */
  interrupt?(): void
  /**
   * `ctx.config` was replaced (already decoded with the provider's schema): `changed` names the
   * fields that differ. Apply them from the next turn on (send them upstream if the model keeps them).
   */
  update?(changed: ReadonlyArray<AgentUpdateField>): void
}

/** The config fields a live update may change (`PATCH /agents/{id}`). */
export type AgentUpdateField = 'instructions' | 'tools'

/** The agent's voice into the room: PCM or Opus in, paced Opus frames out (one per 20 ms). */
export interface AgentAudioOut {
  /** Queue 16 kHz mono PCM of any length; it is cut into 20 ms frames, encoded and played in real time. */
  push(pcm: Int16Array): void
  /** Queue one ready Opus packet (16 kHz mono) of `durationMs` (20 by default). */
  pushOpus(packet: Uint8Array, durationMs?: number): void
  /** Pad and queue a trailing partial frame now (end of an utterance). */
  flush(): void
  /** Drop everything queued and not yet played (barge-in). */
  clear(): void
  /** True while pushed audio is queued, or sent and still playing out at the listeners. */
  readonly speaking: boolean
  /** Milliseconds of pushed audio the room has not heard yet (queued, plus sent ahead of real time). */
  readonly pendingMs: number
}

export interface AgentContext<Config = unknown> {
  readonly agentId: string
  readonly workspaceId: string
  readonly room: string
  /** The agent's participant id in the room. */
  readonly identity: string
  /**
   * The decoded config: provider defaults < preset < overrides < live updates. A live update
   * (`PATCH /agents/{id}`) replaces it while the session runs, then calls `control.update`: read
   * it at each use rather than keeping a copy.
   */
  readonly config: Config
  /** A child logger tagged with the agent; secret-bearing fields are redacted. */
  readonly log: Logger
  /**
   * The engine's clock: what a session schedules or measures on the control plane (request
   * deadlines, retry windows) goes through it, so a test moving the engine's clock moves the
   * session too. Audio runs in real time: waiting for pushed audio to play out (`audio.pendingMs`)
   * stays on real timers. In a provider worker it is the system clock.
   */
  readonly clock: ClockShape
  /** Aborted when the agent stops or fails: hand it to sockets and timers. */
  readonly signal: AbortSignal
  readonly audio: AgentAudioOut
  /** Tell the room something (an `agent.event`): transcripts, state changes. Keep it small JSON. */
  emit(event: Readonly<Record<string, unknown>>): void
  /**
   * Members of the room other than this agent, as of now: read from the room's roster (its
   * room-agents actor's), so inside `onEvent` it already agrees with a participant event. Empty
   * until the agent has joined.
   */
  participants(): ReadonlyArray<ParticipantInfo>
  /** The session cannot go on: the agent fails, and the room hears `reason` (keep secrets out of it). */
  fail(reason: string): void
  /**
   * Tools the agent may call: today the MCP tools of the devices in its room (spec/agents.md,
   * "Tools"). Discovery starts at the first read of `ctx.tools` — read it in `start` — so a
   * provider that never uses tools costs the devices nothing.
   */
  readonly tools: AgentTools
}

/** One tool an agent may call. */
export interface ToolInfo {
  /**
   * Unique among the agent's tools. A device tool is `<clientId>/<its name on the device>`: a
   * client id never holds `/`, so two devices offering the same tool never collide. An MCP
   * server's tool is `<server>/<its name on the server>` (the server's name in the preset).
   */
  readonly name: string
  /**
   * Where it comes from: `device` (an MCP-capable terminal of the room), `mcp` (an MCP server
   * named in the agent's config), `function` (a back-end function the config declares: its
   * name is the function's own).
   */
  readonly source: 'device' | 'mcp' | 'function'
  /** The tool's own name at its source (`self.light.set_on`). */
  readonly tool: string
  /** The terminal offering it (device tools); '' for other sources. */
  readonly clientId: string
  /** The MCP server offering it (its name in the config's `mcpServers`), for `mcp` tools. */
  readonly server?: string
  readonly description: string
  /** JSON Schema of its arguments, as the source announced it. */
  readonly inputSchema: Readonly<Record<string, unknown>>
}

/** What a call gave: never a rejection — a failing, missing or silent tool is an error result. */
export interface ToolResult {
  readonly isError: boolean
  /** The text parts of the result joined (or the error's message): what a reply template or a model reads. */
  readonly text: string
  /** The result's content as the source sent it (MCP content items), empty for an error of ours. */
  readonly content: ReadonlyArray<Readonly<Record<string, unknown>>>
  /** Why it failed when the tool never answered: `unknown_tool`, `timeout`, `gone` (its device left), `stopped`. */
  readonly error?: 'unknown_tool' | 'timeout' | 'gone' | 'stopped'
}

export interface ToolCallOptions {
  /** Give up after this long (default 5000 ms): the result is `{ isError: true, error: 'timeout' }`. */
  readonly timeoutMs?: number
}

export interface AgentTools {
  /** The tools known now (devices announce theirs when they join and whenever an agent joins). */
  list(): ReadonlyArray<ToolInfo>
  /** Call `name` (from `list()`) with `args`. */
  call(name: string, args: Readonly<Record<string, unknown>>, options?: ToolCallOptions): Promise<ToolResult>
  /** Told whenever `list()` changes; returns the unsubscribe. */
  onChange(listener: () => void): () => void
  /** Secret values the tools use (an MCP server's header values): scrubbed from every tool_call event. */
  secrets?(): ReadonlyArray<string>
}

/** Throw (or pass to `ctx.fail`) to fail an agent with a reason safe to show the room. */
export class AgentFailure extends Error {
  override readonly name = 'AgentFailure'
}

/** How long mixed input keeps delivering silence after the room went quiet. */
export const MIXED_SILENCE_TAIL_MS = 3000
