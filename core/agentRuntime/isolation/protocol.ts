/**
 * The messages between the engine and a provider worker. A worker hosts several agent sessions at
 * once; each start of a session gets a number `n` of its own (unique in the engine), and every
 * message about a session carries it, so a late answer is never taken for a newer session's.
 *
 * One message per worker per callback each way: what the engine has for a worker while it runs one
 * callback (every agent's frame a mixer tick or a packet produced, room events, starts and stops)
 * leaves as one `Batch` when that callback is done (a microtask), and so does what the worker's
 * sessions push while it handles one batch. Not at the end of the event-loop turn (setImmediate):
 * that waited behind the turn's other I/O, and the isolated p50 of bench agent-latency doubled
 * (0.89 → 1.81 ms in one quick run on a loaded machine). Messages that queue up while a worker
 * runs are drained in one wake-up anyway. A batch's
 * PCM is one Int16Array (its buffer transferred, not copied) holding every frame of the batch back
 * to back; `ops` says, in order, what to do: three numbers `n, offset, length` are a frame of PCM
 * for session `n` (a view of `pcm`), an object is anything else. No JSON on the way.
 *
 * What the worker's `ctx.audio.pendingMs` reads lives in shared memory the engine writes (see
 * PlayoutMirror): it must answer synchronously, as it does in the engine's thread. Which session's
 * provider code the worker runs is in shared memory too (RUNNING), for blame when a worker dies.
 */
import type { AgentSession, AgentUpdateField } from '../../agentProvider.js'
import type { ParticipantInfo, ServerEvent } from '../../events.js'
import type { ToolSourcesSpec } from '../agentToolbox.js'

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
  /** Int32Array over it: [RUNNING] is the `n` of the session whose provider code the worker runs now (0: none). */
  readonly running: SharedArrayBuffer
}

/** Index of the running session's `n` in WorkerBoot.running. */
export const RUNNING = 0

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
    /** The engine's ToolSourcesSpec for `ctx.tools` (structured clone: a Map of plain objects). */
    readonly toolSources?: ToolSourcesSpec
  }
  readonly logLevel: string
  /** Float64Array over it: PlayoutMirror fields. */
  readonly playout: SharedArrayBuffer
}

/** A batch's control entries, engine → worker. */
export type ToWorkerOp =
  | StartMessage
  | { readonly t: 'source'; readonly n: number; readonly offset: number; readonly length: number; readonly from: string }
  | { readonly t: 'event'; readonly n: number; readonly event: ServerEvent }
  | { readonly t: 'participants'; readonly n: number; readonly list: ReadonlyArray<ParticipantInfo> }
  | { readonly t: 'stop'; readonly n: number }
  | { readonly t: 'control'; readonly n: number; readonly control: ControlOp }

/** Live control of a session (AgentControl), with the new config for an update. */
export type ControlOp =
  | { readonly op: 'say'; readonly text: string; readonly interrupt: boolean }
  | { readonly op: 'interrupt' }
  | { readonly op: 'update'; readonly config: unknown; readonly changed: ReadonlyArray<AgentUpdateField> }

/** The AgentControl operations a session has. */
export type ControlName = ControlOp['op']

/** A batch's control entries, worker → engine. */
export type FromWorkerOp =
  | { readonly t: 'started'; readonly n: number; readonly onAudio: boolean; readonly onSourceAudio: boolean; readonly control: ReadonlyArray<ControlName> }
  | { readonly t: 'startFailed'; readonly n: number; readonly error: WireError }
  | { readonly t: 'opus'; readonly n: number; readonly packet: Uint8Array; readonly ms: number | undefined }
  | { readonly t: 'flush'; readonly n: number }
  | { readonly t: 'clear'; readonly n: number }
  | { readonly t: 'emit'; readonly n: number; readonly event: Readonly<Record<string, unknown>> }
  | { readonly t: 'fail'; readonly n: number; readonly error: WireError; readonly where: string }
  | { readonly t: 'log'; readonly n: number; readonly line: string }
  | { readonly t: 'stopped'; readonly n: number }

/** One turn's worth for the other side: frames packed in `pcm`, `ops` in order (see the top). */
export interface Batch<Op> {
  readonly t: 'batch'
  readonly pcm: Int16Array | null
  readonly ops: Array<number | Op>
}

export type ToWorker =
  | Batch<ToWorkerOp>
  | { readonly t: 'ping'; readonly seq: number }
  /** End the thread now, between two event-loop turns (never inside a native call). */
  | { readonly t: 'exit' }

export type FromWorker = Batch<FromWorkerOp> | { readonly t: 'ready' } | { readonly t: 'pong'; readonly seq: number }

/**
 * Builds the batch of one turn: frames are copied into one growing staging array (a frame is
 * copied once, as it was when each went in a message of its own), `flush` sends what the turn
 * gathered as one message and starts over. `send` gets the batch and the buffer to transfer.
 */
export class Batcher<Op> {
  private staging = new Int16Array(16 * 320)
  private used = 0
  private ops: Array<number | Op> = []
  private scheduled = false
  /** Bound once: scheduling a flush allocates nothing. */
  private readonly flushLater = () => this.flush()

  constructor(private readonly send: (batch: Batch<Op>, transfer: ArrayBuffer[]) => void) {}

  /** A frame of PCM for session `n`. */
  pcm(n: number, pcm: Int16Array): void {
    const offset = this.copy(pcm)
    this.ops.push(n, offset, pcm.length)
    this.schedule()
  }

  /** Copy `pcm` into the batch; returns its offset (for an op that refers to it). */
  copy(pcm: Int16Array): number {
    const offset = this.used
    if (offset + pcm.length > this.staging.length) {
      const bigger = new Int16Array(Math.max(this.staging.length * 2, offset + pcm.length))
      bigger.set(this.staging.subarray(0, offset))
      this.staging = bigger
    }
    this.staging.set(pcm, offset)
    this.used += pcm.length
    return offset
  }

  op(op: Op): void {
    this.ops.push(op)
    this.schedule()
  }

  /** Send what this turn gathered (also called by the scheduled flush). */
  flush(): void {
    this.scheduled = false
    if (this.ops.length === 0) return
    const pcm = this.used > 0 ? this.staging.slice(0, this.used) : null
    const batch: Batch<Op> = { t: 'batch', pcm, ops: this.ops }
    this.ops = []
    this.used = 0
    this.send(batch, pcm ? [pcm.buffer as ArrayBuffer] : [])
  }

  /** Drop what was gathered (the other side is gone). */
  drop(): void {
    this.ops = []
    this.used = 0
  }

  /** At the end of the callback that gathered it. */
  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    queueMicrotask(this.flushLater)
  }
}

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
