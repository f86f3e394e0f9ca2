/**
 * CPU and memory of processes over a measurement window: CPU from /proc/<pid>/stat deltas
 * between the window's start and end, RSS from /proc/<pid>/status sampled during it (the value
 * at the end and the peak seen).
 */
import { delay, monotonicUs, until } from './clock.js'
import { clockTicksPerSecond, cpuPercent, readCpuSeconds, readMachineStat, readMemory, readSyscalls } from './proc.js'

export interface ProcessFigures {
  readonly pid: number
  /** CPU over the window, percent of one core. */
  readonly cpuPercent: number
  /** RSS at the end of the window, bytes. */
  readonly rssBytes: number
  /** Highest RSS seen during the window, bytes. */
  readonly rssPeakBytes: number
  /** Read and write system calls during the window (/proc/<pid>/io); null when unreadable. */
  readonly syscalls: { readonly reads: number; readonly writes: number } | null
}

export interface WindowFigures {
  readonly seconds: number
  readonly processes: readonly ProcessFigures[]
  /**
   * CPU used on the machine during the window by anything other than the measured processes
   * and the runner (other sessions, daemons), in % of one core; null when /proc/stat is unreadable.
   */
  readonly otherCpuPercent: number | null
  /** How busy each core was during the window (by anyone), in %; empty when unreadable. */
  readonly coreBusyPercent: Readonly<Record<number, number>>
}

/** Sum of CPU percentages and of RSS over a set of processes (e.g. all generator processes). */
export const total = (figures: readonly ProcessFigures[]) => ({
  cpuPercent: figures.reduce((s, f) => s + f.cpuPercent, 0),
  rssBytes: figures.reduce((s, f) => s + f.rssBytes, 0),
  rssPeakBytes: figures.reduce((s, f) => s + f.rssPeakBytes, 0),
})

/**
 * Measure `pids` from the monotonic instant `startUs` to `endUs`; RSS is sampled every
 * `rssEveryMs`. A process that vanishes mid-window keeps its last readings.
 */
export const measureWindow = async (
  pids: readonly number[],
  startUs: number,
  endUs: number,
  opts: { rssEveryMs?: number; signal?: AbortSignal } = {},
): Promise<WindowFigures> => {
  const every = opts.rssEveryMs ?? 250
  await until(startUs, opts.signal)
  const t0 = monotonicUs()
  const stat0 = readMachineStat()
  const self0 = process.cpuUsage()
  const cpu0 = pids.map((p) => readCpuSeconds(p))
  const io0 = pids.map((p) => readSyscalls(p))
  const peak = pids.map((p) => readMemory(p)?.rssBytes ?? 0)
  const last = [...peak]
  // Bounded: one sample per `every` ms until the end instant.
  const maxSamples = Math.ceil((endUs - t0) / 1000 / every) + 1
  for (let i = 0; i < maxSamples && monotonicUs() < endUs && !opts.signal?.aborted; i++) {
    await delay(Math.min(every, (endUs - monotonicUs()) / 1000), opts.signal)
    pids.forEach((p, j) => {
      const m = readMemory(p)
      if (m) {
        last[j] = m.rssBytes
        peak[j] = Math.max(peak[j]!, m.rssBytes)
      }
    })
  }
  const t1 = monotonicUs()
  const stat1 = readMachineStat()
  const self = process.cpuUsage(self0)
  const seconds = (t1 - t0) / 1e6
  const processes = pids.map((pid, j) => {
    const a = cpu0[j]
    const b = readCpuSeconds(pid)
    const i0 = io0[j]
    const i1 = readSyscalls(pid)
    return {
      pid,
      cpuPercent: a === null || a === undefined || b === null ? 0 : cpuPercent(b - a, seconds),
      rssBytes: last[j]!,
      rssPeakBytes: peak[j]!,
      syscalls: i0 && i1 ? { reads: i1.reads - i0.reads, writes: i1.writes - i0.writes } : null,
    }
  })
  const ours = processes.reduce((sum, f) => sum + f.cpuPercent, 0) + cpuPercent((self.user + self.system) / 1e6, seconds)
  return { seconds, processes, ...machineShares(stat0, stat1, seconds, ours) }
}

type MachineStat = ReturnType<typeof readMachineStat>

/**
 * From two /proc/stat readings `seconds` apart: CPU the machine spent outside `oursCpuPercent`
 * (the measured processes and the runner), and how busy each core was.
 */
export const machineShares = (
  stat0: MachineStat,
  stat1: MachineStat,
  seconds: number,
  oursCpuPercent: number,
): Pick<WindowFigures, 'otherCpuPercent' | 'coreBusyPercent'> => {
  const hz = clockTicksPerSecond()
  const otherCpuPercent =
    stat0 === null || stat1 === null ? null : Math.max(0, cpuPercent((stat1.machine.busy - stat0.machine.busy) / hz, seconds) - oursCpuPercent)
  const coreBusyPercent: Record<number, number> = {}
  if (stat0 && stat1) {
    for (const [core, t1] of stat1.cores) {
      const t0 = stat0.cores.get(core)
      if (t0 && t1.total > t0.total) coreBusyPercent[core] = ((t1.busy - t0.busy) / (t1.total - t0.total)) * 100
    }
  }
  return { otherCpuPercent, coreBusyPercent }
}
