/**
 * An isolated agent provider, as the engine sees it: the same name, config schema, description
 * and secrets as the provider itself (built in the engine's container, never started there), and
 * a `start` that leases a provider worker (pool.ts) and runs the session in it. The session the
 * agent runtime gets back is a proxy: mixed and per-source PCM go to the worker as transferred
 * buffers, room events as messages; what the worker's session pushes, emits, logs or fails with
 * comes back and is carried out on the agent's real context. The worker dying — stalled, out of
 * memory, crashed — fails this agent only, with a reason saying which.
 */
import { AgentFailure, type AgentContext, type AgentProvider, type AgentSession } from '../../agentProvider.js'
import type { ParticipantInfo } from '../../events.js'
import type { Logger } from '../../log.js'
import { AgentPlayout } from '../playout.js'
import { scrubbedError } from '../redact.js'
import type { ProviderWorker, ProviderWorkerPool, WorkerTenant } from './pool.js'
import { MIRROR, ROOM_JOINED, type FromWorker, type IsolatedSession, type WireError } from './protocol.js'

const LOG_LEVELS: Readonly<Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'>> = {
  10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal',
}

/** An error from the worker as the agent runtime expects it: an AgentFailure keeps its public reason. */
const fromWire = (e: WireError): Error => {
  if (e.failure) return new AgentFailure(e.message)
  const error = new Error(e.message)
  if (e.stack) error.stack = e.stack
  return error
}

export const isolatedProvider = (name: string, module: string, provider: AgentProvider, pool: ProviderWorkerPool): AgentProvider => ({
  ...(provider.description !== undefined ? { description: provider.description } : {}),
  configSchema: provider.configSchema,
  ...(provider.secrets ? { secrets: () => provider.secrets!() } : {}),
  start: (ctx) => new WorkerSession(name, module, provider, pool, ctx).start(),
})

let sessions = 0

/** One agent's session in a worker. */
class WorkerSession implements WorkerTenant {
  private worker: ProviderWorker | null = null
  private readonly n = ++sessions
  private readonly mirror = new Float64Array(new SharedArrayBuffer(MIRROR.size * Float64Array.BYTES_PER_ELEMENT))
  private readonly playout: AgentPlayout | null
  private started: { resolve: (s: AgentSession) => void; reject: (e: Error) => void } | null = null
  private stopped: (() => void) | null = null
  private stopping: Promise<void> | null = null
  private ended: string | null = null
  private receivedMs = 0
  private clears = 0
  private readonly secrets: ReadonlyArray<string>
  private readonly log: Logger

  constructor(
    private readonly name: string,
    private readonly module: string,
    provider: AgentProvider,
    private readonly pool: ProviderWorkerPool,
    private readonly ctx: AgentContext,
  ) {
    this.playout = ctx.audio instanceof AgentPlayout ? ctx.audio : null
    this.log = ctx.log
    let secrets: ReadonlyArray<string> = []
    try {
      secrets = (provider.secrets?.() ?? []).filter((s): s is string => typeof s === 'string' && s.length > 0)
    } catch {
      // a provider whose secrets() throws lists none (as in the engine)
    }
    this.secrets = secrets
  }

  async start(): Promise<AgentSession> {
    const worker = this.pool.acquire(this)
    if (!worker) throw new AgentFailure(`no provider worker free (agents.workers = ${this.pool.size})`)
    this.worker = worker
    // Stopped or timed out while starting: the provider may hang in its start, so its worker goes.
    this.ctx.signal.addEventListener('abort', () => {
      if (this.started) this.end('start abandoned', false)
    })
    if (this.playout) this.playout.observer = () => this.mirrorPlayout()
    const result = new Promise<AgentSession>((resolve, reject) => (this.started = { resolve, reject }))
    // Abandoned at the start timeout, nobody awaits it any more: its late rejection is no fault.
    result.catch(() => {})
    try {
      await worker.ready
    } catch (e) {
      this.end((e as Error).message, false)
      return result
    }
    try {
      worker.send({
        t: 'start',
        n: this.n,
        provider: { name: this.name, module: this.module },
        agent: {
          agentId: this.ctx.agentId,
          workspaceId: this.ctx.workspaceId,
          room: this.ctx.room,
          identity: this.ctx.identity,
          config: this.ctx.config,
        },
        logLevel: this.ctx.log.level,
        playout: this.mirror.buffer as SharedArrayBuffer,
      })
    } catch (e) {
      // The config holds something that cannot cross to a thread (a function, a class instance's methods).
      this.end(`the provider's config cannot be sent to its worker (${(e as Error).name})`, true)
    }
    return result
  }

  message(m: FromWorker | Int16Array): void {
    if (this.ended !== null) return
    if (m instanceof Int16Array) {
      this.receivedMs += m.length / 16
      this.ctx.audio.push(m)
      return this.mirrorPlayout()
    }
    switch (m.t) {
      case 'started':
        if (m.n === this.n && this.started) {
          this.started.resolve(this.session(m.onAudio, m.onSourceAudio))
          this.started = null
        }
        return
      case 'startFailed':
        if (m.n === this.n && this.started) {
          this.started.reject(fromWire(m.error))
          this.started = null
          // The session never ran: the worker is fine, and released once told to forget it.
          this.stop()
        }
        return
      case 'opus':
        this.receivedMs += Math.max(10, m.ms ?? 20)
        this.ctx.audio.pushOpus(m.packet, m.ms)
        return this.mirrorPlayout()
      case 'flush':
        this.ctx.audio.flush()
        return this.mirrorPlayout()
      case 'clear':
        this.ctx.audio.clear()
        this.clears++
        return this.mirrorPlayout()
      case 'emit':
        this.ctx.emit(m.event)
        return
      case 'fail': {
        const error = fromWire(m.error)
        if (error instanceof AgentFailure) return this.ctx.fail(error.message)
        this.log.error({ error: scrubbedError(error, this.secrets) }, m.where)
        this.ctx.fail(m.where)
        return
      }
      case 'log':
        this.relayLog(m.line)
        return
      case 'stopped':
        if (m.n === this.n) this.stopped?.()
        return
    }
  }

  died(reason: string): void {
    this.worker = null
    this.end(reason, false)
  }

  /** The agent is over for this session, for `reason`: fail it (unless it is stopping anyway), release the worker. */
  private end(reason: string, reusable: boolean): void {
    if (this.ended !== null) return
    this.ended = reason
    if (this.playout) this.playout.observer = null
    const worker = this.worker
    this.worker = null
    if (worker) this.pool.release(worker, reusable)
    if (this.started) {
      this.started.reject(new AgentFailure(reason))
      this.started = null
    } else if (this.stopping === null) {
      this.ctx.fail(reason)
    }
    this.stopped?.()
  }

  private session(onAudio: boolean, onSourceAudio: boolean): IsolatedSession {
    const send = (pcm: Int16Array, from?: ParticipantInfo) => {
      const worker = this.worker
      if (!worker) return
      // A copy of just this frame: the runtime's array may view a larger decoded packet.
      const copy = pcm.slice()
      if (from) worker.send({ t: 'source', pcm: copy, from: from.id }, [copy.buffer])
      else worker.send(copy, [copy.buffer])
    }
    return {
      ...(onAudio ? { onAudio: (pcm: Int16Array) => send(pcm) } : {}),
      ...(onSourceAudio ? { onSourceAudio: (pcm: Int16Array, from: ParticipantInfo) => send(pcm, from) } : {}),
      // Always: the worker keeps its own list of participants from these.
      onEvent: (event) => this.worker?.send({ t: 'event', event }),
      stop: () => this.stop(),
      [ROOM_JOINED]: (participants) => this.worker?.send({ t: 'participants', list: participants }),
    }
  }

  private stop(): Promise<void> {
    this.stopping ??= new Promise<void>((resolve) => {
      const worker = this.worker
      if (!worker || this.ended !== null) return resolve()
      // A session whose stop never answers does not keep its worker: it is ended instead.
      const deadline = this.pool.clock.setTimeout(() => this.end('stop did not answer', false), this.pool.stallMs)
      this.stopped = () => {
        this.stopped = null
        this.pool.clock.clearTimeout(deadline)
        if (this.ended === null) {
          this.ended = 'stopped'
          if (this.playout) this.playout.observer = null
          this.worker = null
          this.pool.release(worker, true)
        }
        resolve()
      }
      worker.send({ t: 'stop', n: this.n })
    })
    return this.stopping
  }

  /** The worker's `pendingMs` reads this: written after each playout change. */
  private mirrorPlayout(): void {
    const m = this.mirror
    m[MIRROR.received] = this.receivedMs
    m[MIRROR.clears] = this.clears
    const p = this.playout
    if (!p) return
    m[MIRROR.queued] = p.unsentMs
    const endsAt = p.sentEndsAt
    m[MIRROR.endsAt] = endsAt > 0 ? endsAt + performance.timeOrigin : 0
  }

  /** A line of the worker's log, written through this agent's logger (its bindings, level and redaction). */
  private relayLog(line: string): void {
    let entry: Record<string, unknown>
    try {
      entry = JSON.parse(line) as Record<string, unknown>
    } catch {
      return
    }
    const { level, msg, time: _t, pid: _p, hostname: _h, name: _n, ...fields } = entry
    const method = LOG_LEVELS[Number(level)] ?? 'info'
    this.log[method](fields, typeof msg === 'string' ? msg : '')
  }
}

