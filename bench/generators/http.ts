/**
 * Runner side of the HTTP load: one autocannon process pinned to the generator cores against a
 * server under test; returns a Measurement (headline: requests per second, non-2xx excluded).
 */
import type { MeasureContext, Measurement } from '../scenario.js'
import { monotonicUs } from '../harness/clock.js'
import { generatorCpus } from '../harness/cores.js'
import { measurement } from '../harness/measurement.js'
import { benchModule } from '../harness/paths.js'
import { measureWindow } from '../harness/window.js'
import { startWorker } from '../harness/worker.js'
import type { HttpRequestSpec, HttpResult, HttpStart } from './httpWorker.js'

export interface HttpLoadSpec {
  readonly url: string
  readonly requests: readonly HttpRequestSpec[]
  readonly serverPids: readonly number[]
  readonly connections?: number
  readonly pipelining?: number
}

export const runHttpLoad = async (ctx: MeasureContext, spec: HttpLoadSpec): Promise<Measurement> => {
  const w = startWorker(ctx.procs, {
    name: 'autocannon',
    module: benchModule('generators/httpWorker'),
    cpus: generatorCpus(ctx.cores),
    logFile: ctx.logFile('autocannon'),
  })
  const start: HttpStart = {
    type: 'start',
    url: spec.url,
    connections: spec.connections ?? ctx.load,
    pipelining: spec.pipelining ?? 1,
    requests: spec.requests,
  }
  w.send(start)
  await w.next('ready', 30_000)
  const warmupUntilUs = monotonicUs() + 100_000 + ctx.warmupMs * 1000
  const endUs = warmupUntilUs + ctx.durationMs * 1000
  w.send({ type: 'go', warmupUntilUs, endUs })
  ctx.phase(`HTTP load: ${start.connections} connections`)
  const window = await measureWindow([...spec.serverPids, w.proc.pid], warmupUntilUs, endUs, { signal: ctx.signal })
  const r = await w.next<HttpResult>('result', (endUs - monotonicUs()) / 1000 + 30_000)
  const ok = Math.max(0, r.requests - r.non2xx)
  const base = measurement({
    value: ok / r.seconds,
    histogram: null,
    window,
    serverPids: spec.serverPids,
    generatorPids: [w.proc.pid],
    generatorKind: 'autocannon',
    cores: ctx.cores,
    extra: { requests: r.requests, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, connections: start.connections },
  })
  // autocannon keeps its own HDR histogram (1 ms resolution); its percentiles are used as they are.
  return { ...base, latency: { count: r.requests, p50Ms: r.p50Ms, p99Ms: r.p99Ms, p999Ms: r.p999Ms, maxMs: r.maxMs, resolutionMs: 1 } }
}
