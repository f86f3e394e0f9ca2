/**
 * A provider worker: one thread that hosts one agent's provider session at a time, so a provider
 * that busy-loops, allocates without bound or crashes takes only its own thread down (the engine
 * notices: heartbeat, resourceLimits, the thread's exit) and never the engine's event loop.
 *
 * It builds providers the way the engine does (the module's extension, resolved in a container
 * holding the settings, a log, a clock and a private metrics registry) and gives the session a
 * context that keeps the contract of core/agentProvider.ts: audio, events, `emit`, `fail`,
 * `participants()`, `signal`, `log`. Faults a provider schedules for later are contained per
 * session as in the engine (faultContainment.ts); anything else ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { Registry } from 'prom-client'
import type { DestinationStream, LevelWithSilent } from 'pino'
import { AgentFailure, systemClock, type AgentAudioOut, type AgentContext, type AgentProvider, type AgentSession } from '../../provider.js'
import type { Settings } from '../../config.js'
import type { ParticipantInfo } from '../../events.js'
import type { Extension } from '../../extension.js'
import { createLogger, type Logger } from '../../log.js'
import { ExtensionRegistry } from '../../registry.js'
import { containAgentFaults, inAgentScope, type AgentScope } from '../faultContainment.js'
import { isAgentProviderExtension } from './modules.js'
import { absoluteNow, MIRROR, toWire, type FromWorker, type StartMessage, type ToWorker, type WorkerBoot } from './protocol.js'

const port = parentPort!
const boot = workerData as WorkerBoot
const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer)
const isFailure = (e: unknown) => e instanceof AgentFailure || (e instanceof Error && e.name === 'AgentFailure')

/** Log lines go to the engine, which writes them through the agent's own logger. */
const lines: DestinationStream = { write: (line: string) => post({ t: 'log', line }) }
const loggers = new Map<string, Logger>()
const loggerAt = (level: string): Logger => {
  let log = loggers.get(level)
  if (!log) loggers.set(level, (log = createLogger(level as LevelWithSilent, lines, 'json')))
  return log
}

containAgentFaults(loggerAt('warn'))

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
        { settings: boot.settings as Settings, log: loggerAt('info'), clock: systemClock, metrics: new Registry() },
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

/** The session's voice: what it pushes goes to the engine's playout; what is pending is read from shared memory. */
class AudioOut implements AgentAudioOut {
  private pushedMs = 0
  private clearsSent = 0
  private pushedAtClear = 0

  constructor(
    private readonly live: () => boolean,
    private readonly mirror: Float64Array,
  ) {}

  push(pcm: Int16Array): void {
    if (!this.live() || pcm.length === 0) return
    // Copied: the caller may reuse its array once push returns; the copy's buffer moves, uncopied.
    const copy = pcm.slice()
    this.pushedMs += copy.length / 16
    port.postMessage(copy, [copy.buffer])
  }

  pushOpus(packet: Uint8Array, durationMs?: number): void {
    if (!this.live() || packet.length === 0) return
    const copy = packet.slice()
    this.pushedMs += Math.max(10, durationMs ?? 20)
    post({ t: 'opus', packet: copy, ms: durationMs }, [copy.buffer])
  }

  flush(): void {
    if (this.live()) post({ t: 'flush' })
  }

  clear(): void {
    if (!this.live()) return
    this.clearsSent++
    this.pushedAtClear = this.pushedMs
    post({ t: 'clear' })
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

/** The one session this worker hosts now. */
class Hosted {
  session: AgentSession | null = null
  closed = false
  private broken = false
  readonly abort = new AbortController()
  readonly participants = new Map<string, ParticipantInfo>()
  readonly scope: AgentScope

  constructor(readonly n: number) {
    this.scope = { agentId: String(n), fail: (e) => this.fail(e, 'provider error (async)') }
  }

  get live(): boolean {
    return !this.closed && !this.broken
  }

  fail(e: unknown, where: string): void {
    if (!this.live) return
    this.broken = true
    post({ t: 'fail', error: toWire(e, isFailure), where })
  }

  /** Call into the provider: in its scope, a throw or a later rejection fails the agent. */
  guard(where: string, f: () => unknown): void {
    if (!this.live) return
    try {
      const r = inAgentScope(this.scope, f)
      if (r instanceof Promise) r.catch((e: unknown) => this.fail(e, `provider error (${where})`))
    } catch (e) {
      this.fail(e, `provider error (${where})`)
    }
  }
}

let current: Hosted | null = null

const start = async (m: StartMessage): Promise<void> => {
  const hosted = new Hosted(m.n)
  current = hosted
  const mirror = new Float64Array(m.playout)
  const ctx: AgentContext = {
    agentId: m.agent.agentId,
    workspaceId: m.agent.workspaceId,
    room: m.agent.room,
    identity: m.agent.identity,
    config: m.agent.config,
    log: loggerAt(m.logLevel),
    signal: hosted.abort.signal,
    audio: new AudioOut(() => hosted.live, mirror),
    emit: (event) => {
      if (!hosted.live) return
      try {
        post({ t: 'emit', event })
      } catch {
        ctx.log.warn('agent event is not a small JSON object; dropped')
      }
    },
    participants: () => [...hosted.participants.values()],
    fail: (reason) => hosted.fail(new AgentFailure(String(reason)), 'provider failed'),
  }
  let session: AgentSession
  try {
    const provider = await providerOf(m.provider.name, m.provider.module)
    session = await inAgentScope(hosted.scope, () => provider.start(ctx))
  } catch (e) {
    if (current === hosted) post({ t: 'startFailed', n: m.n, error: toWire(e, isFailure) })
    return
  }
  if (hosted.closed) {
    // Stopped while starting: release the late session.
    await stopSession(session)
    return
  }
  hosted.session = session
  post({ t: 'started', n: m.n, onAudio: typeof session.onAudio === 'function', onSourceAudio: typeof session.onSourceAudio === 'function' })
}

const stopSession = async (session: AgentSession | null): Promise<void> => {
  try {
    await session?.stop?.()
  } catch (e) {
    loggerAt('warn').warn({ error: toWire(e, isFailure).message }, 'provider session failed to stop cleanly')
  }
}

const stop = async (n: number): Promise<void> => {
  const hosted = current
  if (hosted && hosted.n === n) {
    hosted.closed = true
    hosted.abort.abort()
    const session = hosted.session
    hosted.session = null
    await stopSession(session)
    if (current === hosted) current = null
  }
  post({ t: 'stopped', n })
}

port.on('message', (m: Int16Array | ToWorker) => {
  if (m instanceof Int16Array) {
    const hosted = current
    const session = hosted?.session
    if (session?.onAudio) hosted!.guard('onAudio', () => session.onAudio!(m))
    return
  }
  switch (m.t) {
    case 'ping':
      post({ t: 'pong', seq: m.seq })
      return
    case 'exit':
      process.exit(0)
    case 'start':
      void start(m)
      return
    case 'stop':
      void stop(m.n)
      return
    case 'participants': {
      const hosted = current
      if (!hosted) return
      hosted.participants.clear()
      for (const p of m.list) hosted.participants.set(p.id, p)
      return
    }
    case 'source': {
      const hosted = current
      const session = hosted?.session
      const from = hosted?.participants.get(m.from)
      if (session?.onSourceAudio && from) hosted!.guard('onSourceAudio', () => session.onSourceAudio!(m.pcm, from))
      return
    }
    case 'event': {
      const hosted = current
      if (!hosted) return
      const e = m.event
      if (e.type === 'participant.joined') hosted.participants.set(e.participant.id, e.participant)
      else if (e.type === 'participant.left') hosted.participants.delete(e.participant.id)
      const session = hosted.session
      if (session?.onEvent) hosted.guard('onEvent', () => session.onEvent!(e))
      return
    }
  }
})

// Ready once the isolated providers are built; one that fails to build says so when an agent starts it.
void Promise.allSettled(boot.preload.map((p) => providerOf(p.name, p.module))).then(() => post({ t: 'ready' }))
