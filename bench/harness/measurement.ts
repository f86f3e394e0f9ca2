/**
 * Assemble a Measurement from what a run observed: the headline figure, the latency histogram,
 * the /proc window of the server and generator processes, and the saturation verdict.
 */
import type { Measurement } from '../scenario.js'
import type { CoreLayout } from './cores.js'
import { summarize, type LatencyHistogram } from './histogram.js'
import { saturation } from './saturation.js'
import { total, type WindowFigures } from './window.js'

export interface MeasurementParts {
  readonly value: number
  readonly histogram: LatencyHistogram | null
  readonly deliveryRatio?: number | null
  readonly window: WindowFigures
  readonly serverPids: readonly number[]
  /** Empty when the process under test is its own load (e.g. token-verify). */
  readonly generatorPids: readonly number[]
  /** What the generator processes are: "native", "node", "autocannon" … */
  readonly generatorKind?: string
  readonly sendShortfall?: number | null
  readonly cores: CoreLayout
  readonly extra?: Record<string, number>
}

const busyOf = (cores: readonly number[], busy: Readonly<Record<number, number>>): number | null => {
  const xs = cores.map((c) => busy[c]).filter((v): v is number => v !== undefined)
  return xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : null
}

export const measurement = (p: MeasurementParts): Measurement => {
  const pick = (pids: readonly number[]) => p.window.processes.filter((f) => pids.includes(f.pid))
  const server = total(pick(p.serverPids))
  const gen = p.generatorPids.length > 0 ? total(pick(p.generatorPids)) : null
  const shortfall = p.sendShortfall ?? null
  const allCores = Math.max(1, p.cores.allowed.length)
  const verdict = saturation({
    serverCpuPercent: server.cpuPercent,
    serverCores: p.cores.pinned ? 1 : allCores,
    generatorCpuPercent: gen?.cpuPercent ?? 0,
    generatorCores: gen ? (p.cores.pinned ? p.cores.generators.length : allCores) : 0,
    sendShortfall: gen ? shortfall : null,
    serverCoreBusyPercent: p.cores.server === null ? null : (p.window.coreBusyPercent[p.cores.server] ?? null),
    generatorCoresBusyPercent: busyOf(p.cores.generators, p.window.coreBusyPercent),
  })
  return {
    value: p.value,
    latency: p.histogram ? summarize(p.histogram) : null,
    deliveryRatio: p.deliveryRatio ?? null,
    server,
    generator: gen ? { kind: p.generatorKind ?? 'node', cpuPercent: gen.cpuPercent, processes: p.generatorPids.length, sendShortfall: shortfall } : null,
    saturated: verdict.side,
    saturationReasons: verdict.reasons,
    otherCpuPercent: p.window.otherCpuPercent,
    extra: p.extra ?? {},
  }
}
