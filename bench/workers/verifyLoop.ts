/**
 * The token-verify load, shared by both verifier processes: `concurrency` async callers each
 * verifying the next distinct token in turn, latency of every call recorded after warm-up.
 * The worker side of the protocol: start → ready, go → result.
 */
import { readFileSync } from 'node:fs'
import { monotonicUs } from '../harness/clock.js'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'

export type Verify = (token: string) => unknown

export interface VerifyStart extends WorkerMessage {
  readonly type: 'start'
  readonly tokensFile: string
  readonly concurrency: number
}

export interface VerifyGo extends WorkerMessage {
  readonly type: 'go'
  /** Calls started before this monotonic instant are warm-up and not counted. */
  readonly warmupUntilUs: number
  readonly endUs: number
}

export interface VerifyResult extends WorkerMessage {
  readonly type: 'result'
  readonly ops: number
  readonly failures: number
  readonly seconds: number
  readonly histogram: string
}

/** Upper bound on calls in one window, whatever the clock says. */
const MAX_OPS = 200_000_000

export const runVerifyWindow = async (
  verify: Verify,
  tokens: readonly string[],
  concurrency: number,
  warmupUntilUs: number,
  endUs: number,
) => {
  const histogram = createLatencyHistogram()
  let next = 0
  let ops = 0
  let failures = 0
  let started = 0
  const caller = async () => {
    for (;;) {
      const t0 = monotonicUs()
      if (t0 >= endUs || started >= MAX_OPS) return
      started++
      const token = tokens[next++ % tokens.length]!
      let ok = true
      try {
        await verify(token)
      } catch {
        ok = false
      }
      if (t0 >= warmupUntilUs) {
        if (ok) {
          ops++
          recordUs(histogram, monotonicUs() - t0)
        } else failures++
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, caller))
  return { ops, failures, seconds: (endUs - Math.max(warmupUntilUs, 0)) / 1e6, histogram }
}

/** Worker main: `makeVerify` builds the verifier under test once the tokens file is known. */
export const serveVerifier = (makeVerify: () => Promise<Verify>) => {
  let tokens: string[] = []
  let concurrency = 64
  let verify: Verify | null = null
  serveWorker({
    deadlineMs: 15 * 60_000,
    onMessage: async (m, send) => {
      if (m.type === 'start') {
        const s = m as VerifyStart
        const seed = JSON.parse(readFileSync(s.tokensFile, 'utf8')) as { clients: { tokens: string[] }[] }
        tokens = seed.clients.flatMap((c) => c.tokens)
        concurrency = s.concurrency
        verify = await makeVerify()
        // Every token must verify before anything is timed: a fast rejection is no benchmark.
        for (const t of tokens) await verify(t)
        send({ type: 'ready', tokens: tokens.length })
      } else if (m.type === 'go') {
        if (!verify) throw new Error('go before start')
        const g = m as VerifyGo
        const r = await runVerifyWindow(verify, tokens, concurrency, g.warmupUntilUs, g.endUs)
        const result: VerifyResult = { type: 'result', ops: r.ops, failures: r.failures, seconds: r.seconds, histogram: encodeHistogram(r.histogram) }
        send(result)
      }
    },
  })
}
