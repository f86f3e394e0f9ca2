/**
 * An isolated agent provider, as the engine sees it: the same name, config schema, description
 * and secrets as the provider itself (built in the engine's container, never started there), and
 * a `start` that leases a provider worker (pool.ts) and runs the session in it. The session the
 * agent runtime gets back is a proxy: mixed and per-source PCM go to the worker as transferred
 * buffers, room events as messages; what the worker's session pushes, emits, logs or fails with
 * comes back and is carried out on the agent's real context. The worker dying — stalled, out of
 * memory, crashed — fails the agent whose provider code it was running, with a reason saying which;
 * the worker's other agents start their sessions again on another worker (an `agent.event`
 * `{ kind: 'provider.restarted', reason }` and a log line say so) and go on.
 */
import { AgentFailure, type AgentContext, type AgentProvider, type AgentSession, type AgentUpdateField } from '../../agentProvider.js'
import type { ParticipantInfo } from '../../events.js'
import type { Logger } from '../../log.js'
import { NO_TOOL_SOURCES, TOOL_SOURCES_SPEC, type ToolSourcesSpec } from '../agentToolbox.js'
import { AgentPlayout } from '../playout.js'
import { scrubbedError } from '../redact.js'
import type { ProviderWorker, ProviderWorkerPool, WorkerTenant } from './pool.js'
import { MIRROR, ROOM_JOINED, type ControlName, type ControlOp, type FromWorkerOp, type IsolatedSession, type WireError } from './protocol.js'

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

/** One agent's session in a worker (started again on another worker when its worker went down for another agent's fault). */
class WorkerSession implements WorkerTenant {
  private worker: ProviderWorker | null = null
  /** This start's number (a new one for each start of the session, restarts included). */
  private n = 0
  private readonly mirror = new Float64Array(new SharedArrayBuffer(MIRROR.size * Float64Array.BYTES_PER_ELEMENT))
  private readonly playout: AgentPlayout | null
  private started: { resolve: (s: AgentSession) => void; reject: (e: Error) => void } | null = null
  /** Started again after its worker went down for this reason: the runtime already holds the session. */
  private restarting: string | null = null
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
    // Checked before it is queued: a config that cannot cross to a thread (a function, a class
    // instance's methods) would otherwise sink the batch it travels in.
    try {
      structuredClone(this.ctx.config)
    } catch (e) {
      throw new AgentFailure(`the provider's config cannot be sent to its worker (${(e as Error).name})`)
    }
    const result = new Promise<AgentSession>((resolve, reject) => (this.started = { resolve, reject }))
    // Abandoned at the start timeout, nobody awaits it any more: its late rejection is no fault.
    result.catch(() => {})
    if (!this.lease()) {
      this.started = null
      throw new AgentFailure(`no provider worker free (agents.workers = ${this.pool.size}, agents.agentsPerWorker = ${this.pool.agentsPerWorker})`)
    }
    // Stopped or timed out while starting: the provider may hang in its start, so its worker goes.
    this.ctx.signal.addEventListener('abort', () => {
      if (this.started) this.end('start abandoned', false)
    })
    if (this.playout) this.playout.observer = () => this.mirrorPlayout()
    await this.boot()
    return result
  }

  /** A worker for a new start of the session (a new `n`). */
  private lease(): boolean {
    this.n = ++sessions
    this.worker = this.pool.acquire(this.n, this)
    return this.worker !== null
  }

  /** Once the worker is up, start the session in it (and tell it the room's members, on a restart). */
  private async boot(): Promise<void> {
    const worker = this.worker!
    try {
      await worker.ready
    } catch (e) {
      if (this.worker === worker) this.end((e as Error).message, false)
      return
    }
    if (this.worker !== worker || this.ended !== null) return
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
        toolSources: (this.ctx as { [TOOL_SOURCES_SPEC]?: ToolSourcesSpec })[TOOL_SOURCES_SPEC] ?? NO_TOOL_SOURCES,
      },
      logLevel: this.ctx.log.level,
      playout: this.mirror.buffer as SharedArrayBuffer,
    })
    // The room's members as they are now (the room's roster), for a session started again.
    if (this.restarting !== null) worker.send({ t: 'participants', n: this.n, list: this.ctx.participants() })
  }

  audio(pcm: Int16Array): void {
    if (this.ended !== null) return
    this.receivedMs += pcm.length / 16
    this.ctx.audio.push(pcm)
    this.mirrorPlayout()
  }

  message(m: FromWorkerOp): void {
    if (this.ended !== null || m.n !== this.n) return
    switch (m.t) {
      case 'started':
        if (this.started) {
          this.started.resolve(this.session(m.onAudio, m.onSourceAudio, m.control))
          this.started = null
        } else if (this.restarting !== null) {
          const reason = this.restarting
          this.restarting = null
          this.log.warn({ reason, threadId: this.worker?.thread.threadId }, 'provider session started again on another worker')
          this.ctx.emit({ kind: 'provider.restarted', reason })
        }
        return
      case 'startFailed':
        if (this.started) {
          this.started.reject(fromWire(m.error))
          this.started = null
          // The session never ran: the worker is fine, and released once told to forget it.
          void this.stop()
        } else if (this.restarting !== null) {
          const error = fromWire(m.error)
          this.restarting = null
          this.worker?.send({ t: 'stop', n: this.n })
          this.end(error instanceof AgentFailure ? error.message : 'provider failed to start again', true)
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
        this.stopped?.()
        return
    }
  }

  died(reason: string, blamed: boolean): void {
    this.worker = null
    if (blamed || this.ended !== null || this.stopping !== null || this.started !== null) return this.end(reason, false)
    // Another agent's provider took the worker down: this agent goes on, its session started anew elsewhere.
    this.log.warn({ reason }, 'provider worker ended for another agent; starting the session again on another worker')
    if (!this.lease()) return this.end(reason, false)
    this.restarting = reason
    // Its playout goes on in the engine; the new session has pushed nothing yet.
    this.receivedMs = 0
    this.clears = 0
    this.mirror.fill(0)
    this.mirrorPlayout()
    void this.boot()
  }

  /** The agent is over for this session, for `reason`: fail it (unless it is stopping anyway), release the worker. */
  private end(reason: string, reusable: boolean): void {
    if (this.ended !== null) return
    this.ended = reason
    if (this.playout) this.playout.observer = null
    const worker = this.worker
    this.worker = null
    if (worker) this.pool.release(worker, this.n, reusable)
    if (this.started) {
      this.started.reject(new AgentFailure(reason))
      this.started = null
    } else if (this.stopping === null) {
      this.ctx.fail(reason)
    }
    this.stopped?.()
  }

  private session(onAudio: boolean, onSourceAudio: boolean, controls: ReadonlyArray<ControlName>): IsolatedSession {
    const control = (op: ControlOp) => this.worker?.send({ t: 'control', n: this.n, control: op })
    return {
      // Only the operations the worker's session has: the others answer 409 in the engine.
      control: {
        ...(controls.includes('say') ? { say: (text: string, o: { readonly interrupt: boolean }) => control({ op: 'say', text, interrupt: o.interrupt }) } : {}),
        ...(controls.includes('interrupt') ? { interrupt: () => control({ op: 'interrupt' }) } : {}),
        ...(controls.includes('update') ? { update: (changed: ReadonlyArray<AgentUpdateField>) => control({ op: 'update', config: this.ctx.config, changed }) } : {}),
      },
      ...(onAudio ? { onAudio: (pcm: Int16Array) => this.worker?.sendPcm(this.n, pcm) } : {}),
      ...(onSourceAudio ? { onSourceAudio: (pcm: Int16Array, from: ParticipantInfo) => this.worker?.sendSource(this.n, pcm, from.id) } : {}),
      // Always: a change of the room's members comes with the list as it is now (the roster's),
      // which the worker's `participants()` answers until the next one.
      onEvent: (event) => {
        if (event.type === 'participant.joined' || event.type === 'participant.left') {
          this.worker?.send({ t: 'participants', n: this.n, list: this.ctx.participants() })
        }
        this.worker?.send({ t: 'event', n: this.n, event })
      },
      stop: () => this.stop(),
      [ROOM_JOINED]: (participants) => {
        this.worker?.send({ t: 'participants', n: this.n, list: participants })
      },
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
          const current = this.worker
          this.worker = null
          if (current) this.pool.release(current, this.n, true)
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

