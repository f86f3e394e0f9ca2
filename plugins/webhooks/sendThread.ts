/**
 * The delivery thread's entry: a WebhookSender (signing with `standardwebhooks`, the HTTP
 * exchange, its timeout, no redirects, the SSRF guard on every connection) on a thread of its own,
 * so that neither the HMAC nor the HTTP client's per-request work takes the event loop terminals connect
 * on. It sends what the engine hands it and answers each job with its outcome; it keeps no state
 * of its own besides pooled connections and signers (the outbox, order, retries: the engine).
 */
import { getPriority, setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { systemResolver, type HostResolver, type ResolvedAddress } from '../../core/webhooks/addressGuard.js'
import { WebhookSender } from './sender.js'
import { THREAD_NICE, type DoneJob, type FromThread, type ThreadBoot, type ToThread } from './threadProtocol.js'

// Terminals first, at the scheduler (threadProtocol.ts, THREAD_NICE).
try {
  setPriority(Math.min(19, getPriority() + THREAD_NICE))
} catch {
  // Not permitted here: the same priority as the engine.
}

const port = parentPort!
const boot = workerData as ThreadBoot
const post = (m: FromThread) => port.postMessage(m)

/** Outcomes settled in this turn, answered together once its I/O callbacks have run. */
let outcomes: DoneJob[] = []
const answer = (o: DoneJob) => {
  if (outcomes.length === 0) setImmediate(flushOutcomes)
  outcomes.push(o)
}
const flushOutcomes = () => {
  const done = outcomes
  outcomes = []
  post({ t: 'done', outcomes: done })
}

/** Name lookups asked of the engine, by id. */
const lookups = new Map<number, { resolve: (a: ReadonlyArray<ResolvedAddress>) => void; reject: (e: Error) => void }>()
let lookupSeq = 0
const engineResolver: HostResolver = (host) =>
  new Promise((resolve, reject) => {
    const id = ++lookupSeq
    lookups.set(id, { resolve, reject })
    post({ t: 'resolve', id, host })
  })

const sender = new WebhookSender({
  policy: boot.policy,
  resolve: boot.resolveInEngine ? engineResolver : systemResolver,
  timeoutMs: boot.timeoutMs,
  userAgent: boot.userAgent,
})

port.on('message', (m: ToThread) => {
  switch (m.t) {
    case 'send':
      for (const { id, ...message } of m.jobs) {
        void sender.send(message).then(
          (outcome) => answer({ id, ...outcome }),
          (e: unknown) => answer({ id, result: 'network_error', status: null, error: String(e), latencyMs: 0 }),
        )
      }
      return
    case 'forget':
      return sender.forget(m.origin)
    case 'resolved':
    case 'unresolved': {
      const waiting = lookups.get(m.id)
      if (!waiting) return
      lookups.delete(m.id)
      if (m.t === 'resolved') waiting.resolve(m.addresses)
      else waiting.reject(Object.assign(new Error(m.message), m.code === null ? {} : { code: m.code }))
    }
  }
})
