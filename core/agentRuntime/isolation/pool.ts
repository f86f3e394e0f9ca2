/**
 * The provider worker pool: at most `agents.workers` threads (by default one per CPU the engine
 * may use), each hosting up to `agents.agentsPerWorker` isolated agents. A new agent goes to a
 * fresh thread while there are fewer than `agents.workers`, else to the live worker with the
 * fewest agents; beyond every worker's share a dispatch fails to start. Workers start on demand
 * and boot with the isolated providers built; idle workers are kept and reused. Few threads is
 * the point: each message to a thread wakes it, and with a thread per agent on a loaded core the
 * wake-ups, not the work, were the tail of an isolated agent's latency (spec/agents.md).
 *
 * A worker that died — busy-looped past its heartbeat, ran out of its heap (`resourceLimits`),
 * crashed or exited — is replaced by a fresh one at once. Blame: the worker writes the `n` of the
 * session whose provider code it runs into shared memory (protocol.ts RUNNING); the session
 * running when the worker stalled or died fails, with the reason; the worker's other sessions
 * are started again on another worker (the agent goes on, its provider session is new). When no
 * session was running (the worker's own code, or provider code outside any agent's scope), the
 * culprit is unknown and every agent of the worker fails.
 *
 * Liveness: while a worker hosts an agent the pool pings it every `agents.workerStallMs / 4`;
 * a ping left unanswered for `workerStallMs` means its event loop is stuck: the worker is
 * terminated. A busy loop is thus caught between `workerStallMs` and 1.25 × `workerStallMs`
 * after it began. The pings, the deadline and every other control timer here run on the engine
 * clock (core/clock.ts).
 */
import { SHARE_ENV, Worker } from 'node:worker_threads'
// Held by the engine's thread on purpose: @evan/opus's native addon, loaded in a worker (through
// 'hark') and unloaded when that worker ends, takes the process down unless this thread holds it too.
import '@evan/opus'
import { Counter, Gauge, type Registry } from 'prom-client'
import type { ClockShape, Timer } from '../../clock.js'
import type { Logger } from '../../log.js'
import { Batcher, RUNNING, type FromWorker, type FromWorkerOp, type ToWorker, type ToWorkerOp, type WorkerBoot } from './protocol.js'
import { workerEntry } from './modules.js'

export interface WorkerPoolOptions {
  /** Threads at most. */
  readonly size: number
  /** Agents per thread at most. */
  readonly agentsPerWorker: number
  readonly memoryMb: number
  readonly stallMs: number
  readonly boot: Omit<WorkerBoot, 'running'>
  readonly clock: ClockShape
  readonly log: Logger
  readonly metrics: Registry
}

/** What hosts a session in a worker (the isolated session, isolatedProvider.ts). */
export interface WorkerTenant {
  /** A frame the session pushed (a view of the batch's PCM, valid for this call). */
  audio(pcm: Int16Array): void
  message(m: FromWorkerOp): void
  /**
   * The worker is gone (stalled, out of memory, crashed, exited): `reason` is public. `blamed`:
   * this session was running when it went (or nobody can tell who was): the agent fails.
   * Otherwise the session is to start again elsewhere.
   */
  died(reason: string, blamed: boolean): void
}

export class ProviderWorker {
  readonly thread: Worker
  readonly ready: Promise<void>
  /** The sessions it hosts, by their `n`. */
  readonly tenants = new Map<number, WorkerTenant>()
  dead: string | null = null
  booted = false
  /** The oldest unanswered ping: its number and when it was sent (engine clock). */
  ping: { seq: number; at: number } | null = null
  /** Whose provider code the thread runs now (its `n`; 0: none), written by the thread. */
  private readonly running = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))
  /** The `n` to blame for the thread's end, once known (0: nobody can tell; -1: nobody, it was asked to end). */
  private culprit: number | null = null
  private readonly out = new Batcher<ToWorkerOp>((batch, transfer) => this.thread.postMessage(batch satisfies ToWorker, transfer))

  constructor(
    private readonly pool: ProviderWorkerPool,
    options: WorkerPoolOptions,
  ) {
    this.thread = new Worker(workerEntry(), {
      workerData: { ...options.boot, running: this.running.buffer as SharedArrayBuffer } satisfies WorkerBoot,
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
    this.thread.on('message', (m: FromWorker) => {
      if (m.t === 'batch') return this.received(m.pcm, m.ops)
      if (m.t === 'ready') {
        this.booted = true
        return markReady()
      }
      if (m.t === 'pong' && this.ping && m.seq >= this.ping.seq) this.ping = null
    })
    this.thread.on('error', (e: Error & { code?: string }) => {
      if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') oom = true
      else pool.log.error({ err: { message: e.message, stack: e.stack } }, 'provider worker crashed')
    })
    this.thread.on('exit', (code) => {
      const reason = this.dead ?? (oom ? `provider ran out of memory (agents.workerMemoryMb = ${options.memoryMb})` : `provider worker exited (code ${code})`)
      this.culprit ??= Atomics.load(this.running, RUNNING)
      this.out.drop()
      failedBoot(new Error(reason))
      this.pool.gone(this, reason, this.culprit)
    })
  }

  /** A frame of PCM for session `n` (copied into this turn's batch). */
  sendPcm(n: number, pcm: Int16Array): void {
    if (this.dead === null) this.out.pcm(n, pcm)
  }

  /** Per-source PCM for session `n`. */
  sendSource(n: number, pcm: Int16Array, from: string): void {
    if (this.dead !== null) return
    const offset = this.out.copy(pcm)
    this.out.op({ t: 'source', n, offset, length: pcm.length, from })
  }

  send(op: ToWorkerOp): void {
    if (this.dead === null) this.out.op(op)
  }

  /** Control outside the batches (heartbeats). */
  direct(m: ToWorker): void {
    if (this.dead === null) this.thread.postMessage(m)
  }

  /** Sessions hosted, for placement. */
  get load(): number {
    return this.tenants.size
  }

  /**
   * End the thread. A stalled one (`stalled`: stuck in a loop) is terminated at once: terminate
   * does not need its cooperation; the session it was running is blamed. Any other is asked to
   * exit (nobody's fault among the sessions it still hosts) and does so at its next event-loop
   * turn, never in the middle of a native call: onnxruntime-node aborts the whole process when its
   * thread is terminated while it creates an inference session (a `pipeline` agent stopped while
   * it loads its VAD model) or runs one. One that has not exited within `agents.workerStallMs`
   * (its event loop is stuck) is terminated then.
   */
  kill(reason: string, stalled = false): void {
    if (this.dead !== null) return
    this.dead = reason
    if (stalled) {
      this.culprit = Atomics.load(this.running, RUNNING)
      void this.thread.terminate()
      return
    }
    this.culprit = -1
    this.out.flush()
    const clock = this.pool.clock
    const deadline = clock.setTimeout(() => void this.thread.terminate(), this.pool.stallMs)
    this.thread.once('exit', () => clock.clearTimeout(deadline))
    this.thread.postMessage({ t: 'exit' } satisfies ToWorker)
  }

  /** One batch from the thread: each frame and message to its session, in order. */
  private received(pcm: Int16Array | null, ops: ReadonlyArray<number | FromWorkerOp>): void {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!
      if (typeof op === 'number') {
        const offset = ops[i + 1] as number
        const length = ops[i + 2] as number
        i += 2
        this.tenants.get(op)?.audio(pcm!.subarray(offset, offset + length))
      } else {
        this.tenants.get(op.n)?.message(op)
      }
    }
  }
}

export class ProviderWorkerPool {
  private readonly all = new Set<ProviderWorker>()
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
      help: 'Provider worker threads by state (busy: hosting at least one agent)',
      labelNames: ['state'],
      registers: [options.metrics],
      collect() {
        this.reset()
        let busy = 0
        for (const w of pool.all) if (w.load > 0) busy++
        this.set({ state: 'idle' }, pool.all.size - busy)
        this.set({ state: 'busy' }, busy)
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

  /** Agents per worker at most (agents.agentsPerWorker). */
  get agentsPerWorker(): number {
    return this.options.agentsPerWorker
  }

  /** Thread ids of the live workers (tests and metrics: a replaced worker has a new id). */
  threadIds(): number[] {
    return [...this.all].map((w) => w.thread.threadId)
  }

  /**
   * A worker for session `n`: an idle one, else a new thread while there are fewer than
   * `agents.workers`, else the live one with the fewest sessions; null when every worker hosts
   * `agents.agentsPerWorker`.
   */
  acquire(n: number, tenant: WorkerTenant): ProviderWorker | null {
    if (this.closing) return null
    let best: ProviderWorker | null = null
    for (const w of this.all) if (w.dead === null && (best === null || w.load < best.load)) best = w
    if ((best === null || best.load > 0) && this.all.size < this.options.size) best = this.spawn()
    if (best === null || best.load >= this.options.agentsPerWorker) return null
    // A ping left from its last agent is no verdict on its next.
    if (best.load === 0) best.ping = null
    best.tenants.set(n, tenant)
    this.ensureTicker()
    return best
  }

  /**
   * Session `n` is done with its worker; `reusable` false: it did not end cleanly (a start
   * abandoned, a stop that did not answer).
   */
  release(worker: ProviderWorker, n: number, reusable: boolean): void {
    worker.tenants.delete(n)
    if (worker.dead !== null) return
    if (this.closing && worker.load === 0) return worker.kill('released')
    if (reusable) return
    // Alone on it: the worker goes (it may be inside a native call; it exits at its next turn).
    // Shared: its other agents are not made to start again for this one; the session is told to
    // stop (a start that never ends costs its memory only; a thread stuck in it misses heartbeats).
    if (worker.load === 0) worker.kill('released')
    else worker.send({ t: 'stop', n })
  }

  /** A worker's thread ended: tell its sessions (blamed or moved), and put a fresh worker in its place. */
  gone(worker: ProviderWorker, reason: string, culprit: number): void {
    if (!this.all.delete(worker)) return
    this.log.debug({ reason, threadId: worker.thread.threadId }, 'provider worker ended')
    worker.dead ??= reason
    const tenants = [...worker.tenants]
    worker.tenants.clear()
    const replace = worker.booted && !this.closing && reason !== 'released' && this.all.size < this.options.size
    // The fresh worker first, so that the sessions moving go there rather than crowd the others.
    if (replace) {
      this.replaced.inc()
      this.spawn()
    }
    if (tenants.length > 0) {
      this.log.warn({ reason, threadId: worker.thread.threadId, sessions: tenants.length }, 'provider worker ended; replacing it')
      // Nobody to blame (0) among several: every session fails; one named: it fails, the others move.
      const blameAll = culprit === 0 || !worker.booted
      for (const [n, tenant] of tenants) tenant.died(reason, blameAll || n === culprit)
    }
    if (!worker.booted && !this.closing && reason !== 'released') {
      // Not replaced: a worker that cannot boot would fail the same way again, in a loop.
      this.log.error({ reason }, 'provider worker failed to boot')
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
      if (w.load === 0 || w.dead !== null) continue
      hosting = true
      // Loading modules is not a stall: heartbeats start once the thread said it is ready.
      if (!w.booted) continue
      if (w.ping === null) {
        w.ping = { seq: ++this.pingSeq, at: now }
        w.direct({ t: 'ping', seq: w.ping.seq })
      } else if (now - w.ping.at >= this.options.stallMs) {
        w.kill(`provider stalled (no heartbeat for ${this.options.stallMs} ms)`, true)
      }
    }
    if (hosting) this.ensureTicker()
  }
}
