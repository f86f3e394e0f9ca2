/**
 * One HTTP load generator process: autocannon, a warm-up run, then the measured run, both
 * closed-loop (`connections` × `pipelining` requests in flight). Driven by generators/http.ts:
 * start → ready, go → result.
 */
import autocannon from 'autocannon'
import { monotonicUs, until } from '../harness/clock.js'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'

export interface HttpRequestSpec {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

export interface HttpStart extends WorkerMessage {
  readonly type: 'start'
  /** Base URL, e.g. http://127.0.0.1:PORT */
  readonly url: string
  readonly connections: number
  readonly pipelining: number
  /** Requests sent in turn on every connection. */
  readonly requests: readonly HttpRequestSpec[]
}

export interface HttpResult extends WorkerMessage {
  readonly type: 'result'
  readonly requests: number
  readonly seconds: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly p999Ms: number
  readonly maxMs: number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
}

let start: HttpStart | null = null

const run = (s: HttpStart, seconds: number) =>
  autocannon({
    url: s.url,
    connections: s.connections,
    pipelining: s.pipelining,
    duration: seconds,
    timeout: 10,
    requests: s.requests.map((r) => ({
      method: r.method ?? 'GET',
      path: r.path,
      ...(r.headers ? { headers: r.headers } : {}),
      ...(r.body !== undefined ? { body: r.body } : {}),
    })),
  })

serveWorker({
  deadlineMs: 30 * 60_000,
  onMessage: async (m, send) => {
    if (m.type === 'start') {
      start = m as HttpStart
      send({ type: 'ready' })
    } else if (m.type === 'go') {
      if (!start) throw new Error('go before start')
      const g = m as WorkerMessage & { warmupUntilUs: number; endUs: number }
      const warm = Math.round((g.warmupUntilUs - monotonicUs()) / 1e6)
      if (warm >= 1) await run(start, warm)
      await until(g.warmupUntilUs)
      const seconds = Math.max(1, Math.round((g.endUs - monotonicUs()) / 1e6))
      const r = await run(start, seconds)
      const result: HttpResult = {
        type: 'result',
        requests: r.requests.total,
        seconds: r.duration,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        p999Ms: r.latency.p99_9,
        maxMs: r.latency.max,
        errors: r.errors,
        timeouts: r.timeouts,
        non2xx: r.non2xx,
      }
      send(result)
    }
  },
})
