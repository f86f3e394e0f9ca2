/**
 * The provider worker pool: at most `agents.workers` threads, each hosting one isolated agent at
 * a time (so what one provider does to its thread concerns its agent only). Workers start on
 * demand and boot with the isolated providers built; idle workers are kept and reused; a worker that died — busy-looped past its heartbeat, ran out of its heap
 * (`resourceLimits`), crashed or exited — is replaced by a fresh one at once.
 *
 * Liveness: while a worker hosts an agent the pool pings it every `agents.workerStallMs / 4`;
 * a ping left unanswered for `workerStallMs` means its event loop is stuck: the worker is
 * terminated and its agent fails (`provider stalled (no heartbeat for N ms)`). A busy loop is thus
 * caught between `workerStallMs` and 1.25 × `workerStallMs` after it began. The pings, the
 * deadline and every other control timer here run on the engine clock (core/clock.ts).
 */
import { SHARE_ENV, Worker } from 'node:worker_threads'
// Held by the engine's thread on purpose: @evan/opus's native addon, loaded in a worker (through
// 'hark') and unloaded when that worker ends, takes the process down unless this thread holds it too.
import '@evan/opus'
import { Counter, Gauge, type Registry } from 'prom-client'
import type { ClockShape, Timer } from '../../clock.js'
import type { Logger } from '../../log.js'
import type { FromWorker, ToWorker, WorkerBoot } from './protocol.js'
import { workerEntry } from './modules.js'

export interface WorkerPoolOptions {
  readonly size: number
  readonly memoryMb: number
  readonly stallMs: number
  readonly boot: WorkerBoot
  readonly clock: ClockShape
  readonly log: Logger
  readonly metrics: Registry
}

/** What hosts a session in a worker (the isolated session, isolatedProvider.ts). */
export interface WorkerTenant {
  message(m: FromWorker | Int16Array): void
  /** The worker is gone (stalled, out of memory, crashed, exited): `reason` is public. */
  died(reason: string): void
}

export class ProviderWorker {
  readonly thread: Worker
  readonly ready: Promise<void>
  tenant: WorkerTenant | null = null
  dead: string | null = null
  booted = false
  /** The oldest unanswered ping: its number and when it was sent (engine clock). */
  ping: { seq: number; at: number } | null = null

  constructor(
    private readonly pool: ProviderWorkerPool,
    options: WorkerPoolOptions,
  ) {
    this.thread = new Worker(workerEntry(), {
      workerData: options.boot,
      // The same environment object as the engine's (a key read from a variable is read alike).
      env: SHARE_ENV,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
      // The worker's stdout and stderr join the engine's (its fatal lines stay visible).
      stdout: false,
      stderr: false,
    })
    let markReady: () => void = () => {}
    let failedBoot: (e: Error) => void = () => {}
    this.ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failedBoot = reject)))
    this.ready.catch(() => {})
    let oom = false
    this.thread.on('message', (m: FromWorker | Int16Array) => {
      if (!(m instanceof Int16Array)) {
        if (m.t === 'ready') {
          this.booted = true
          return markReady()
        }
        if (m.t === 'pong') {
          if (this.ping && m.seq >= this.ping.seq) this.ping = null
          return
        }
      }
      this.tenant?.message(m)
    })
    this.thread.on('error', (e: Error & { code?: string }) => {
      if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') oom = true
      else pool.log.error({ err: { message: e.message, stack: e.stack } }, 'provider worker crashed')
    })
    this.thread.on('exit', (code) => {
      const reason = this.dead ?? (oom ? `provider ran out of memory (agents.workerMemoryMb = ${options.memoryMb})` : `provider worker exited (code ${code})`)
      failedBoot(new Error(reason))
      this.pool.gone(this, reason)
    })
  }

  send(m: ToWorker | Int16Array, transfer?: ArrayBuffer[]): void {
    if (this.dead === null) this.thread.postMessage(m, transfer)
  }

  /**
   * End the thread. A stalled one (`stalled`: stuck in a loop) is terminated at once: terminate
   * does not need its cooperation. Any other is asked to exit and does so at its next event-loop
   * turn, never in the middle of a native call: onnxruntime-node aborts the whole process when its
   * thread is terminated while it creates an inference session (a `pipeline` agent stopped while
   * it loads its VAD model) or runs one. One that has not exited within `agents.workerStallMs`
   * (its event loop is stuck) is terminated then.
   */
  kill(reason: string, stalled = false): void {
    if (this.dead !== null) return
    this.dead = reason
    if (stalled) {
      void this.thread.terminate()
      return
    }
    const clock = this.pool.clock
    const deadline = clock.setTimeout(() => void this.thread.terminate(), this.pool.stallMs)
    this.thread.once('exit', () => clock.clearTimeout(deadline))
    this.thread.postMessage({ t: 'exit' } satisfies ToWorker)
  }
}

export class ProviderWorkerPool {
  private readonly all = new Set<ProviderWorker>()
  private readonly idle: ProviderWorker[] = []
  private closing = false
  private ticker: Timer | undefined
  private pingSeq = 0
  private readonly replaced: Counter
  readonly log: Logger

  constructor(private readonly options: WorkerPoolOptions) {
    this.log = options.log
    const pool = this
    this.replaced = new Counter({
      name: 'hark_agent_workers_replaced_total',
      help: 'Provider workers that died (stalled, out of memory, crashed) and were replaced',
      registers: [options.metrics],
    })
    new Gauge({
      name: 'hark_agent_workers',
      help: 'Provider worker threads by state',
      labelNames: ['state'],
      registers: [options.metrics],
      collect() {
        this.reset()
        this.set({ state: 'idle' }, pool.idle.length)
        this.set({ state: 'busy' }, pool.all.size - pool.idle.length)
      },
    })
  }

  get clock(): ClockShape {
    return this.options.clock
  }

  get stallMs(): number {
    return this.options.stallMs
  }

  /** The most workers at once (agents.workers). */
  get size(): number {
    return this.options.size
  }

  /** Thread ids of the live workers (tests and metrics: a replaced worker has a new id). */
  threadIds(): number[] {
    return [...this.all].map((w) => w.thread.threadId)
  }

  /** A worker for one agent, or null when all `agents.workers` are taken. */
  acquire(tenant: WorkerTenant): ProviderWorker | null {
    if (this.closing) return null
    let worker = this.idle.pop()
    if (!worker) {
      if (this.all.size >= this.options.size) return null
      worker = this.spawn()
    }
    worker.tenant = tenant
    worker.ping = null
    this.ensureTicker()
    return worker
  }

  /** The agent is done with its worker: back to the idle ones (or ended, when it cannot be trusted). */
  release(worker: ProviderWorker, reusable: boolean): void {
    worker.tenant = null
    if (worker.dead !== null) return
    if (!reusable || this.closing) return worker.kill('released')
    this.idle.push(worker)
  }

  /** A worker's thread ended: tell its agent, and put a fresh worker in its place. */
  gone(worker: ProviderWorker, reason: string): void {
    if (!this.all.delete(worker)) return
    this.log.debug({ reason, threadId: worker.thread.threadId }, 'provider worker ended')
    const i = this.idle.indexOf(worker)
    if (i >= 0) this.idle.splice(i, 1)
    const tenant = worker.tenant
    worker.tenant = null
    worker.dead ??= reason
    if (tenant) {
      this.log.warn({ reason, threadId: worker.thread.threadId }, 'provider worker ended; replacing it')
      tenant.died(reason)
    }
    if (!worker.booted) {
      // Not replaced: a worker that cannot boot would fail the same way again, in a loop.
      if (!this.closing && reason !== 'released') this.log.error({ reason }, 'provider worker failed to boot')
      return
    }
    if (!this.closing && reason !== 'released' && this.all.size < this.options.size) {
      this.replaced.inc()
      this.idle.push(this.spawn())
    }
  }

  async close(): Promise<void> {
    this.closing = true
    this.options.clock.clearTimeout(this.ticker)
    this.ticker = undefined
    const exits = [...this.all].map((w) => new Promise<void>((resolve) => (w.dead !== null && !this.all.has(w) ? resolve() : w.thread.once('exit', () => resolve()))))
    for (const w of this.all) w.kill('server shutting down')
    await Promise.all(exits)
  }

  private spawn(): ProviderWorker {
    const worker = new ProviderWorker(this, this.options)
    this.all.add(worker)
    return worker
  }

  /** Heartbeats run only while some worker hosts an agent. */
  private ensureTicker(): void {
    if (this.ticker !== undefined || this.closing) return
    this.ticker = this.options.clock.setTimeout(() => {
      this.ticker = undefined
      this.beat()
    }, Math.max(1, Math.floor(this.options.stallMs / 4)))
  }

  private beat(): void {
    const now = this.options.clock.monotonic()
    let hosting = false
    for (const w of this.all) {
      if (w.tenant === null || w.dead !== null) continue
      hosting = true
      // Loading modules is not a stall: heartbeats start once the thread said it is ready.
      if (!w.booted) continue
      if (w.ping === null) {
        w.ping = { seq: ++this.pingSeq, at: now }
        w.send({ t: 'ping', seq: w.ping.seq })
      } else if (now - w.ping.at >= this.options.stallMs) {
        w.kill(`provider stalled (no heartbeat for ${this.options.stallMs} ms)`, true)
      }
    }
    if (hosting) this.ensureTicker()
  }
}
