/**
 * The messages between the engine and a provider worker. One worker hosts one agent session at a
 * time; `n` numbers the sessions a worker has hosted, so a late answer is never taken for a newer
 * session's. Audio travels as bare Int16Array messages (20 ms of 16 kHz PCM, its buffer
 * transferred, not copied): a message that is an Int16Array is audio, anything else is control.
 *
 * What the worker's `ctx.audio.pendingMs` reads lives in shared memory the engine writes (see
 * PlayoutMirror): it must answer synchronously, as it does in the engine's thread.
 */
import type { AgentSession } from '../../agentProvider.js'
import type { ParticipantInfo, ServerEvent } from '../../events.js'

/** An error as it crosses the thread boundary: an AgentFailure's public reason, or anything else. */
export interface WireError {
  /** True for an AgentFailure: `message` is a reason the room may hear (after scrubbing). */
  readonly failure: boolean
  readonly message: string
  readonly stack?: string
}

export interface WorkerBoot {
  /** The engine's settings (a provider's section is read from them). */
  readonly settings: unknown
  /** The isolated providers, built while the worker boots (so a dispatch does not wait for their imports). */
  readonly preload: ReadonlyArray<{ readonly name: string; readonly module: string }>
}

export interface StartMessage {
  readonly t: 'start'
  readonly n: number
  readonly provider: { readonly name: string; readonly module: string }
  readonly agent: {
    readonly agentId: string
    readonly workspaceId: string
    readonly room: string
    readonly identity: string
    readonly config: unknown
  }
  readonly logLevel: string
  /** Float64Array over it: PlayoutMirror fields. */
  readonly playout: SharedArrayBuffer
}

export type ToWorker =
  | StartMessage
  | { readonly t: 'source'; readonly pcm: Int16Array; readonly from: string }
  | { readonly t: 'event'; readonly event: ServerEvent }
  | { readonly t: 'participants'; readonly list: ReadonlyArray<ParticipantInfo> }
  | { readonly t: 'stop'; readonly n: number }
  | { readonly t: 'ping'; readonly seq: number }
  /** End the thread now, between two event-loop turns (never inside a native call). */
  | { readonly t: 'exit' }

export type FromWorker =
  | { readonly t: 'ready' }
  | { readonly t: 'started'; readonly n: number; readonly onAudio: boolean; readonly onSourceAudio: boolean }
  | { readonly t: 'startFailed'; readonly n: number; readonly error: WireError }
  | { readonly t: 'opus'; readonly packet: Uint8Array; readonly ms: number | undefined }
  | { readonly t: 'flush' }
  | { readonly t: 'clear' }
  | { readonly t: 'emit'; readonly event: Readonly<Record<string, unknown>> }
  | { readonly t: 'fail'; readonly error: WireError; readonly where: string }
  | { readonly t: 'log'; readonly line: string }
  | { readonly t: 'stopped'; readonly n: number }
  | { readonly t: 'pong'; readonly seq: number }

/**
 * Shared playout state, written by the engine, read by the worker (Float64Array indices).
 * Times are absolute (performance.timeOrigin + performance.now()): each thread has its own origin.
 */
export const MIRROR = {
  /** Milliseconds of audio the engine has taken in from the session's pushes (PCM and Opus). */
  received: 0,
  /** Queued in the engine's playout and not yet sent, the partial frame included. */
  queued: 1,
  /** When the audio already sent will have played out at the listeners (0: nothing ahead). */
  endsAt: 2,
  /** clear() calls the engine has carried out. */
  clears: 3,
  size: 4,
} as const

export const toWire = (e: unknown, isFailure: (e: unknown) => boolean): WireError =>
  e instanceof Error
    ? { failure: isFailure(e), message: e.message, ...(e.stack ? { stack: e.stack } : {}) }
    : { failure: false, message: String(e) }

/** Now, comparable between threads. */
export const absoluteNow = (): number => performance.timeOrigin + performance.now()

/** The isolated session's hook for the agent runtime: the room took the agent in, with these members. */
export const ROOM_JOINED = Symbol('roomJoined')

export interface IsolatedSession extends AgentSession {
  [ROOM_JOINED](participants: ReadonlyArray<ParticipantInfo>): void
}
