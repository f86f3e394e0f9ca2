/**
 * The delivery thread, seen from the engine: an AttemptSender whose attempts run on a
 * `node:worker_threads` thread (sendThread.ts). The delivery worker keeps everything else — the
 * outbox, per-resource order, at most MAX_IN_FLIGHT per endpoint, retries, leases, metrics, the
 * engine clock — and hands the thread ready-to-send jobs (URL, secrets, event id, timestamp, body);
 * the thread answers each with its outcome (result, status, error, latency), checked on arrival
 * (threadProtocol.ts: a malformed answer fails its attempt).
 *
 * When the thread dies (a crash, an uncaught error, out of memory, terminated), every attempt in
 * flight on it settles as a failed attempt (`network_error`, "delivery thread ended …"): its
 * delivery stays pending and is retried on the usual schedule, so nothing is lost; one the
 * receiver had already answered is sent again (at least once; receivers deduplicate on
 * `webhook-id`). The next attempt starts a fresh thread (lazily: a thread that cannot boot is not
 * restarted in a loop; the retries come seconds later anyway). The first thread starts with the first
 * attempt, not with the plugin: an engine that sends no webhook runs no thread.
 *
 * A worker thread runs JavaScript: from the TypeScript sources (the tests), its entry is taken from
 * the compiled tree (core/agentRuntime/isolation/modules.ts, `threadEntry`).
 */
import { Worker } from 'node:worker_threads'
import { Counter, type Registry } from 'prom-client'
import { threadEntry } from '../../core/agentRuntime/isolation/modules.js'
import type { Logger } from '../../core/log.js'
import type { HostResolver, UrlPolicy } from '../../core/webhooks/urlGuard.js'
import { ATTEMPT_TIMEOUT_MS, type AttemptSender, type SendOutcome, type SignedMessage } from './sender.js'
import { outcomeOf, type FromThread, type SendJob, type ThreadBoot, type ToThread } from './threadProtocol.js'

/** How long past its own attempt timeout the thread may hold an attempt before it counts as stalled. */
export const THREAD_STALL_GRACE_MS = 5_000

export interface DeliveryThreadOptions {
  readonly policy: UrlPolicy
  /** A resolver of the engine's (a test's): the thread asks the engine for every lookup. Default: the thread resolves itself. */
  readonly resolve?: HostResolver
  readonly timeoutMs?: number
  readonly log: Logger
  readonly metrics?: Registry
  /** The thread's entry module (tests: a thread that misbehaves). Default: sendThread. */
  readonly entry?: URL
  /**
   * An attempt unanswered this long means the thread is stalled (a busy loop, a wedged native call:
   * its own timeout cannot fire): it is terminated, which fails what it holds, and replaced.
   * Default: the attempt timeout + THREAD_STALL_GRACE_MS.
   */
  readonly stallMs?: number
}

interface Job {
  readonly resolve: (o: SendOutcome) => void
  readonly began: number
}


export class DeliveryThread implements AttemptSender {
  private thread: Worker | null = null
  private readonly jobs = new Map<number, Job>()
  private seq = 0
  private closed = false
  private readonly ended: Counter | null
  /**
   * Real time, not the engine's clock, on purpose: it bounds another thread's real I/O, like the
   * attempt's own timeout on that thread. Runs only while attempts are in flight.
   */
  private watchdog: ReturnType<typeof setInterval> | null = null
  /** Why the engine ended the thread (a stall), for the attempts it fails. */
  private endedBecause: string | null = null
  /** Attempts started in this turn, handed to the thread together at its end. */
  private outgoing: SendJob[] = []

  constructor(private readonly options: DeliveryThreadOptions) {
    this.ended = options.metrics
      ? new Counter({
          name: 'hark_webhook_threads_ended_total',
          help: 'Webhook delivery threads that ended unexpectedly (their attempts in flight were counted as failed and retried)',
          registers: [options.metrics],
        })
      : null
  }

  /** The thread's id, or null before the first attempt and after it died (tests). */
  get threadId(): number | null {
    return this.thread?.threadId ?? null
  }

  /** Attempts handed to the thread and not yet answered. */
  get inFlight(): number {
    return this.jobs.size
  }

  /** End the thread as a crash would (tests: what its attempts in flight become). */
  async kill(): Promise<void> {
    await this.thread?.terminate()
  }

  /** Start the thread now (its modules load before the first attempt, not during it). */
  start(): void {
    if (this.thread === null && !this.closed) this.spawn()
  }

  send(m: SignedMessage): Promise<SendOutcome> {
    if (this.closed) return Promise.resolve({ result: 'network_error', status: null, error: 'delivery stopped', latencyMs: 0 })
    if (this.thread === null) this.spawn()
    const id = ++this.seq
    return new Promise<SendOutcome>((resolve) => {
      this.jobs.set(id, { resolve, began: performance.now() })
      this.watch()
      if (this.outgoing.length === 0) queueMicrotask(() => this.post())
      this.outgoing.push({ id, url: m.url, eventId: m.eventId, body: m.body, timestamp: m.timestamp, secrets: m.secrets })
    })
  }

  /** Hand the thread this turn's attempts in one message (a thread that died meanwhile failed them already). */
  private post(): void {
    const jobs = this.outgoing
    this.outgoing = []
    if (this.closed) return
    const live = jobs.filter((j) => this.jobs.has(j.id))
    if (live.length === 0) return
    const thread = this.thread ?? this.spawn()
    thread.postMessage({ t: 'send', jobs: live } satisfies ToThread)
  }

  forget(origin: string): void {
    this.thread?.postMessage({ t: 'forget', origin } satisfies ToThread)
  }

  close(): void {
    this.closed = true
    if (this.watchdog !== null) clearInterval(this.watchdog)
    this.watchdog = null
    const thread = this.thread
    this.thread = null
    this.failAll('delivery stopped')
    void thread?.terminate()
  }

  private get stallMs(): number {
    return this.options.stallMs ?? (this.options.timeoutMs ?? ATTEMPT_TIMEOUT_MS) + THREAD_STALL_GRACE_MS
  }

  private watch(): void {
    if (this.watchdog !== null) return
    this.watchdog = setInterval(() => this.checkStall(), Math.max(10, Math.min(1000, this.stallMs / 4)))
    this.watchdog.unref()
  }

  /** The oldest attempt (a Map keeps insertion order) held past stallMs: end the thread. */
  private checkStall(): void {
    const oldest = this.jobs.values().next().value
    if (oldest === undefined || this.thread === null) {
      if (this.watchdog !== null) clearInterval(this.watchdog)
      this.watchdog = null
      return
    }
    if (performance.now() - oldest.began < this.stallMs || this.endedBecause !== null) return
    this.endedBecause = `delivery thread stalled (no answer within ${Math.round(this.stallMs)} ms); ended`
    this.options.log.warn({ inFlight: this.jobs.size, stallMs: this.stallMs }, 'webhook delivery thread stalled; ending it (its attempts count as failed and are retried)')
    void this.thread.terminate()
  }

  private spawn(): Worker {
    const { policy, resolve, timeoutMs } = this.options
    const boot: ThreadBoot = { policy: { allowPrivateNetworks: policy.allowPrivateNetworks }, timeoutMs, resolveInEngine: resolve !== undefined }
    const thread = new Worker(this.options.entry ?? threadEntry(import.meta.url, 'sendThread'), { workerData: boot, stdout: false, stderr: false })
    this.thread = thread
    thread.on('message', (m: unknown) => this.message(thread, m))
    thread.on('error', (e: Error) => this.options.log.error({ err: { message: e.message, stack: e.stack } }, 'webhook delivery thread failed'))
    thread.on('exit', (code) => {
      if (this.thread !== thread) return
      this.thread = null
      this.ended?.inc()
      const n = this.jobs.size
      const because = this.endedBecause
      this.endedBecause = null
      this.options.log.warn({ code, inFlight: n }, 'webhook delivery thread ended; its attempts in flight count as failed (retried), the next attempt starts a new thread')
      this.failAll(because ?? `delivery thread ended (exit code ${code}) during the attempt`)
    })
    return thread
  }

  private failAll(error: string): void {
    const now = performance.now()
    const jobs = [...this.jobs.values()]
    this.jobs.clear()
    for (const job of jobs) job.resolve({ result: 'network_error', status: null, error, latencyMs: Math.round(now - job.began) })
  }

  private message(thread: Worker, raw: unknown): void {
    if (typeof raw !== 'object' || raw === null) return this.malformed(raw)
    const m = raw as Record<string, unknown>
    if (m.t === 'resolve' && typeof m.id === 'number' && typeof m.host === 'string') return this.lookup(thread, m.id, m.host)
    if (m.t !== 'done' || !Array.isArray(m.outcomes)) return this.malformed(raw)
    for (const o of m.outcomes as unknown[]) this.settle(o)
  }

  /** One outcome of a `done` message, checked as data. */
  private settle(raw: unknown): void {
    if (typeof raw !== 'object' || raw === null) return this.malformed(raw)
    const m = raw as Record<string, unknown>
    const job = typeof m.id === 'number' ? this.jobs.get(m.id) : undefined
    if (!job) return this.malformed(raw)
    this.jobs.delete(m.id as number)
    const outcome = outcomeOf(m)
    if (outcome) return job.resolve(outcome)
    this.malformed(raw)
    job.resolve({ result: 'network_error', status: null, error: 'malformed outcome from the delivery thread', latencyMs: Math.round(performance.now() - job.began) })
  }

  private malformed(m: unknown): void {
    const shown = typeof m === 'object' && m !== null ? Object.keys(m).slice(0, 10).join(',') : typeof m
    this.options.log.error({ message: shown }, 'malformed message from the webhook delivery thread (ignored)')
  }

  /** The thread asks the engine's resolver (a test's DNS) for a host's addresses. */
  private lookup(thread: Worker, id: number, host: string): void {
    const answer = (m: ToThread) => {
      if (this.thread === thread) thread.postMessage(m)
    }
    this.options.resolve!(host).then(
      (addresses) => answer({ t: 'resolved', id, addresses: addresses.map((a) => ({ address: a.address, family: a.family })) }),
      (e: unknown) => answer({ t: 'unresolved', id, message: e instanceof Error ? e.message : String(e), code: (e as NodeJS.ErrnoException)?.code ?? null }),
    )
  }
}
