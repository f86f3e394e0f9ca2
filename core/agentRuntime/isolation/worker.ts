/**
 * A provider worker: one thread that hosts several agents' provider sessions (up to
 * `agents.agentsPerWorker`), so a provider that busy-loops, allocates without bound or crashes
 * takes only its own thread down (the engine notices: heartbeat, resourceLimits, the thread's
 * exit) and never the engine's event loop. Before any provider code runs — a call of ours into a
 * session, or a timer, socket or promise callback in a session's async scope — the thread writes
 * that session's `n` into shared memory (RUNNING) and clears it after, so that the engine knows
 * whom to blame when the thread stalls or dies (pool.ts).
 *
 * It builds providers the way the engine does (the module's extension, resolved in a container
 * holding the settings, a log, a clock and a private metrics registry) and gives each session a
 * context that keeps the contract of core/agentProvider.ts: audio, events, `emit`, `fail`,
 * `participants()`, `signal`, `log`. Faults a provider schedules for later are contained per
 * session as in the engine (faultContainment.ts); anything else ends the thread.
 *
 * What the sessions send back leaves as one batch per callback (protocol.ts); an event,
 * a failure, a log line or an answer about a start or stop leaves at once, with what came before.
 */
import { createHook } from 'node:async_hooks'
import { parentPort, workerData } from 'node:worker_threads'
import { Registry } from 'prom-client'
import type { DestinationStream, LevelWithSilent } from 'pino'
import { AgentFailure, systemClock, type AgentAudioOut, type AgentContext, type AgentProvider, type AgentSession } from '../../provider.js'
import type { Settings } from '../../config.js'
import type { ParticipantInfo } from '../../events.js'
import type { Extension } from '../../define.js'
import { createLogger, type Logger } from '../../log.js'
import { ExtensionRegistry } from '../../registry.js'
import { AgentToolbox, NO_TOOL_SOURCES } from '../agentToolbox.js'
import { containAgentFaults, currentAgentScope, inAgentScope, type AgentScope } from '../faultContainment.js'
import { isAgentProviderExtension } from './modules.js'
import {
  absoluteNow,
  Batcher,
  MIRROR,
  RUNNING,
  toWire,
  type ControlName,
  type ControlOp,
  type FromWorker,
  type FromWorkerOp,
  type StartMessage,
  type ToWorker,
  type ToWorkerOp,
  type WorkerBoot,
} from './protocol.js'

const port = parentPort!
const boot = workerData as WorkerBoot
const out = new Batcher<FromWorkerOp>((batch, transfer) => port.postMessage(batch satisfies FromWorker, transfer))
const post = (op: FromWorkerOp) => {
  out.op(op)
  // Audio waits for the end of the turn; anything else leaves now, with the audio before it (in
  // order): an event, a failure or a log line may be the last thing a provider does before it
  // busy-loops or ends its thread. Those are few (no per-frame provider logs or events).
  if (op.t !== 'opus' && op.t !== 'flush' && op.t !== 'clear') out.flush()
}
const isFailure = (e: unknown) => e instanceof AgentFailure || (e instanceof Error && e.name === 'AgentFailure')

/** Whose provider code runs now: set around every callback in a session's scope (and around our own calls). */
const running = new Int32Array(boot.running)
const scopes = new WeakMap<AgentScope, number>()
createHook({
  before() {
    const s = currentAgentScope()
    running[RUNNING] = s ? (scopes.get(s) ?? 0) : 0
  },
  after() {
    running[RUNNING] = 0
  },
}).enable()

/** Log lines go to the engine, which writes them through the agent's own logger (session 0: the pool's). */
const loggerFor = (n: number, level: string): Logger => {
  const lines: DestinationStream = { write: (line: string) => post({ t: 'log', n, line }) }
  return createLogger(level as LevelWithSilent, lines, 'json')
}

containAgentFaults(loggerFor(0, 'warn'))

/** Providers built in this worker, by name (each built once, as in the engine). */
const providers = new Map<string, Promise<AgentProvider>>()
const providerOf = (name: string, module: string): Promise<AgentProvider> => {
  let p = providers.get(name)
  if (!p) {
    p = (async () => {
      const mod = (await import(module)) as Record<string, unknown>
      const ext = [mod.default, ...Object.values(mod)].find((x): x is Extension => isAgentProviderExtension(x) && x.name === name)
      if (!ext) throw new Error(`module ${module} exports no agent provider named ${name}`)
      const registry = new ExtensionRegistry(
        { settings: boot.settings as Settings, log: loggerFor(0, 'info'), clock: systemClock, metrics: new Registry() },
        [ext],
      )
      await registry.load()
      return registry.resolve<AgentProvider>('agentProvider', name)
    })()
    providers.set(name, p)
    p.catch(() => providers.delete(name))
  }
  return p
}

/** A session's voice: what it pushes goes to the engine's playout; what is pending is read from shared memory. */
class AudioOut implements AgentAudioOut {
  private pushedMs = 0
  private clearsSent = 0
  private pushedAtClear = 0

  constructor(
    private readonly n: number,
    private readonly live: () => boolean,
    private readonly mirror: Float64Array,
  ) {}

  push(pcm: Int16Array): void {
    if (!this.live() || pcm.length === 0) return
    // Copied into this turn's batch: the caller may reuse its array once push returns.
    this.pushedMs += pcm.length / 16
    out.pcm(this.n, pcm)
  }

  pushOpus(packet: Uint8Array, durationMs?: number): void {
    if (!this.live() || packet.length === 0) return
    this.pushedMs += Math.max(10, durationMs ?? 20)
    post({ t: 'opus', n: this.n, packet: packet.slice(), ms: durationMs })
  }

  flush(): void {
    if (this.live()) post({ t: 'flush', n: this.n })
  }

  clear(): void {
    if (!this.live()) return
    this.clearsSent++
    this.pushedAtClear = this.pushedMs
    post({ t: 'clear', n: this.n })
  }

  get pendingMs(): number {
    const m = this.mirror
    // A clear the engine has not carried out yet: only what was pushed since is pending.
    if (m[MIRROR.clears]! < this.clearsSent) return this.pushedMs - this.pushedAtClear
    const ahead = m[MIRROR.endsAt]! > 0 ? Math.max(0, m[MIRROR.endsAt]! - absoluteNow()) : 0
    return Math.max(0, this.pushedMs - m[MIRROR.received]!) + m[MIRROR.queued]! + ahead
  }

  get speaking(): boolean {
    return this.pendingMs > 0
  }
}

/** One session this worker hosts. */
class Hosted {
  session: AgentSession | null = null
  closed = false
  private broken = false
  readonly abort = new AbortController()
  /** The room's members as the engine last sent them (its roster, whole, on every change), by id: never edited here. */
  participants: ReadonlyMap<string, ParticipantInfo> = new Map()
  readonly scope: AgentScope
  /** `ctx.tools`, made at its first read. */
  tools: AgentToolbox | null = null
  /** `ctx.config`: the start's, until a live update (a `control` op) replaces it. */
  config: unknown = null

  constructor(readonly n: number) {
    this.scope = { agentId: String(n), fail: (e) => this.fail(e, 'provider error (async)') }
    scopes.set(this.scope, n)
  }

  get live(): boolean {
    return !this.closed && !this.broken
  }

  fail(e: unknown, where: string): void {
    if (!this.live) return
    this.broken = true
    post({ t: 'fail', n: this.n, error: toWire(e, isFailure), where })
  }

  /** Call into the provider: in its scope, marked as running; a throw or a later rejection fails the agent. */
  guard(where: string, f: () => unknown): void {
    if (!this.live) return
    const before = running[RUNNING]!
    running[RUNNING] = this.n
    try {
      const r = inAgentScope(this.scope, f)
      if (r instanceof Promise) r.catch((e: unknown) => this.fail(e, `provider error (${where})`))
    } catch (e) {
      this.fail(e, `provider error (${where})`)
    } finally {
      running[RUNNING] = before
    }
  }
}

const hosted = new Map<number, Hosted>()

const start = async (m: StartMessage): Promise<void> => {
  const h = new Hosted(m.n)
  h.config = m.agent.config
  hosted.set(m.n, h)
  const mirror = new Float64Array(m.playout)
  const log = loggerFor(m.n, m.logLevel)
  const ctx: AgentContext = {
    agentId: m.agent.agentId,
    workspaceId: m.agent.workspaceId,
    room: m.agent.room,
    identity: m.agent.identity,
    get config() {
      return h.config
    },
    log,
    // No engine clock crosses the thread: a worker's sessions run on the system clock.
    clock: systemClock,
    signal: h.abort.signal,
    audio: new AudioOut(m.n, () => h.live, mirror),
    emit: (event) => {
      if (!h.live) return
      // Cloned here, where the provider called (the batch is cloned later, all at once: one bad event would sink it).
      let copy: Readonly<Record<string, unknown>>
      try {
        copy = structuredClone(event)
      } catch {
        log.warn('agent event is not a small JSON object; dropped')
        return
      }
      post({ t: 'emit', n: m.n, event: copy })
    },
    participants: () => [...h.participants.values()],
    fail: (reason) => h.fail(new AgentFailure(String(reason)), 'provider failed'),
    get tools() {
      return (h.tools ??= new AgentToolbox(ctx, h.config, m.agent.toolSources ?? NO_TOOL_SOURCES))
    },
  }
  let session: AgentSession
  try {
    const provider = await providerOf(m.provider.name, m.provider.module)
    const before = running[RUNNING]!
    running[RUNNING] = m.n
    try {
      session = await inAgentScope(h.scope, () => provider.start(ctx))
    } finally {
      running[RUNNING] = before
    }
  } catch (e) {
    if (hosted.get(m.n) === h) post({ t: 'startFailed', n: m.n, error: toWire(e, isFailure) })
    return
  }
  if (h.closed) {
    // Stopped while starting: release the late session.
    await stopSession(h, session)
    return
  }
  h.session = session
  const control = CONTROL_NAMES.filter((name) => typeof session.control?.[name] === 'function')
  post({ t: 'started', n: m.n, onAudio: typeof session.onAudio === 'function', onSourceAudio: typeof session.onSourceAudio === 'function', control })
}

const CONTROL_NAMES: ReadonlyArray<ControlName> = ['say', 'interrupt', 'update']

/** Live control, as the engine checked it: an update's config replaces ctx.config first. */
const control = (h: Hosted, op: ControlOp): void => {
  const c = h.session?.control
  if (!c) return
  switch (op.op) {
    case 'say':
      return h.guard('control.say', () => c.say?.(op.text, { interrupt: op.interrupt }))
    case 'interrupt':
      return h.guard('control.interrupt', () => c.interrupt?.())
    case 'update':
      h.config = op.config
      return h.guard('control.update', () => c.update?.(op.changed))
  }
}

const stopSession = async (h: Hosted, session: AgentSession | null): Promise<void> => {
  try {
    await inAgentScope(h.scope, async () => session?.stop?.())
  } catch (e) {
    loggerFor(h.n, 'warn').warn({ error: toWire(e, isFailure).message }, 'provider session failed to stop cleanly')
  }
}

const stop = async (n: number): Promise<void> => {
  const h = hosted.get(n)
  if (h) {
    h.closed = true
    h.abort.abort()
    h.tools?.close()
    const session = h.session
    h.session = null
    await stopSession(h, session)
    hosted.delete(n)
  }
  post({ t: 'stopped', n })
}

const apply = (op: ToWorkerOp, pcm: Int16Array | null): void => {
  switch (op.t) {
    case 'start':
      void start(op)
      return
    case 'stop':
      void stop(op.n)
      return
    case 'control': {
      const h = hosted.get(op.n)
      if (h) control(h, op.control)
      return
    }
    case 'participants': {
      const h = hosted.get(op.n)
      if (!h) return
      h.participants = new Map(op.list.map((p) => [p.id, p]))
      return
    }
    case 'source': {
      const h = hosted.get(op.n)
      const session = h?.session
      const from = h?.participants.get(op.from)
      if (session?.onSourceAudio && from && pcm) {
        const frame = pcm.subarray(op.offset, op.offset + op.length)
        h!.guard('onSourceAudio', () => session.onSourceAudio!(frame, from))
      }
      return
    }
    case 'event': {
      const h = hosted.get(op.n)
      if (!h) return
      const e = op.event
      h.tools?.observe(e)
      const session = h.session
      if (session?.onEvent) h.guard('onEvent', () => session.onEvent!(e))
      return
    }
  }
}

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'batch': {
      const { pcm, ops } = m
      for (let i = 0; i < ops.length; i++) {
        const op = ops[i]!
        if (typeof op !== 'number') {
          apply(op, pcm)
          continue
        }
        const offset = ops[i + 1] as number
        const length = ops[i + 2] as number
        i += 2
        const h = hosted.get(op)
        const session = h?.session
        if (session?.onAudio) {
          const frame = pcm!.subarray(offset, offset + length)
          h!.guard('onAudio', () => session.onAudio!(frame))
        }
      }
      // What the sessions answered in this turn leaves now, in one message (not a turn later).
      out.flush()
      return
    }
    case 'ping':
      port.postMessage({ t: 'pong', seq: m.seq } satisfies FromWorker)
      return
    case 'exit':
      process.exit(0)
  }
})

// Ready once the isolated providers are built; one that fails to build says so when an agent starts it.
void Promise.allSettled(boot.preload.map((p) => providerOf(p.name, p.module))).then(() => port.postMessage({ t: 'ready' } satisfies FromWorker))
