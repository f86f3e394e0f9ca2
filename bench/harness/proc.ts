/**
 * Readers for /proc/<pid>/stat (CPU time: utime + stime, all threads) and /proc/<pid>/status
 * (VmRSS, VmHWM). Parsing is separate from reading so tests can feed fixed text.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** Clock ticks per second for /proc CPU fields (`getconf CLK_TCK`; 100 on Linux when unknown). */
export const clockTicksPerSecond = (() => {
  let cached: number | null = null
  return (): number => {
    if (cached !== null) return cached
    try {
      const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim())
      cached = Number.isInteger(n) && n > 0 ? n : 100
    } catch {
      cached = 100
    }
    return cached
  }
})()

export interface CpuTicks {
  readonly utime: number
  readonly stime: number
}

/** utime and stime (fields 14 and 15) from the text of /proc/<pid>/stat. */
export const parseStat = (text: string): CpuTicks => {
  // comm (field 2) is in parentheses and may itself hold spaces or ')': split after the last ')'.
  const close = text.lastIndexOf(')')
  if (close < 0) throw new Error('unreadable /proc stat line')
  const rest = text.slice(close + 2).trim().split(/\s+/)
  // rest[0] is field 3 (state), so field n is rest[n - 3].
  const utime = Number(rest[11])
  const stime = Number(rest[12])
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('unreadable /proc stat line')
  return { utime, stime }
}

/** One thread's CPU ticks so far (utime + stime) and its nice value (field 19: Linux keeps nice per thread). */
export interface ThreadTicks {
  readonly ticks: number
  readonly nice: number
}

/** utime + stime and nice from the text of /proc/<pid>/task/<tid>/stat. */
export const parseThreadStat = (text: string): ThreadTicks => {
  const { utime, stime } = parseStat(text)
  const nice = Number(text.slice(text.lastIndexOf(')') + 2).trim().split(/\s+/)[16])
  if (!Number.isFinite(nice)) throw new Error('unreadable /proc stat line')
  return { ticks: utime + stime, nice }
}

/** Every thread of a process by thread id (a thread that ends while they are read is left out); empty once the process is gone. */
export const readThreads = (pid: number): Map<number, ThreadTicks> => {
  const out = new Map<number, ThreadTicks>()
  let tids: string[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const tid of tids) {
    try {
      out.set(Number(tid), parseThreadStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')))
    } catch {
      // Ended meanwhile.
    }
  }
  return out
}

export interface MemoryStatus {
  /** Resident set size now, in bytes. */
  readonly rssBytes: number
  /** Peak resident set size since the process started, in bytes. */
  readonly hwmBytes: number
}

/** VmRSS and VmHWM (kB in the file) from the text of /proc/<pid>/status, in bytes. */
export const parseStatus = (text: string): MemoryStatus => {
  const kb = (field: string): number => {
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text)
    if (!m) throw new Error(`no ${field} in /proc status`)
    return Number(m[1]) * 1024
  }
  return { rssBytes: kb('VmRSS'), hwmBytes: kb('VmHWM') }
}

/** CPU seconds (user + system) a process has used so far; null once it is gone. */
export const readCpuSeconds = (pid: number): number | null => {
  try {
    const t = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
    return (t.utime + t.stime) / clockTicksPerSecond()
  } catch {
    return null
  }
}

/** Resident memory of a process; null once it is gone. */
export const readMemory = (pid: number): MemoryStatus | null => {
  try {
    return parseStatus(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return null
  }
}

/** Read and write system calls a process has made so far (/proc/<pid>/io syscr, syscw). */
export interface SyscallCounts {
  readonly reads: number
  readonly writes: number
}

/** syscr and syscw from the text of /proc/<pid>/io. */
export const parseIo = (text: string): SyscallCounts => {
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN)
  return { reads: field('syscr'), writes: field('syscw') }
}

/** Read/write system calls of a process so far; null once it is gone or not ours to read. */
export const readSyscalls = (pid: number): SyscallCounts | null => {
  try {
    const counts = parseIo(readFileSync(`/proc/${pid}/io`, 'utf8'))
    return Number.isFinite(counts.reads) && Number.isFinite(counts.writes) ? counts : null
  } catch {
    return null
  }
}

/** CPU use between two readings as a percentage of one core. */
export const cpuPercent = (cpuSecondsDelta: number, wallSecondsDelta: number): number =>
  wallSecondsDelta > 0 ? (cpuSecondsDelta / wallSecondsDelta) * 100 : 0

export interface MachineTicks {
  /** Ticks spent busy (user, nice, system, irq, softirq, steal) by all cores together. */
  readonly busy: number
  /** All ticks (busy + idle + iowait) of all cores together. */
  readonly total: number
}

const ticksOf = (line: string): MachineTicks => {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number)
  const busy = [user, nice, system, irq, softirq, steal].reduce<number>((s, v) => s + (v ?? 0), 0)
  return { busy, total: busy + (idle ?? 0) + (iowait ?? 0) }
}

/** The aggregate "cpu " line of /proc/stat. */
export const parseMachineStat = (text: string): MachineTicks => {
  const line = text.split('\n').find((l) => l.startsWith('cpu '))
  if (!line) throw new Error('no cpu line in /proc/stat')
  return ticksOf(line)
}

/** The per-core "cpuN" lines of /proc/stat. */
export const parseCoreStats = (text: string): Map<number, MachineTicks> => {
  const out = new Map<number, MachineTicks>()
  for (const line of text.split('\n')) {
    const m = /^cpu(\d+)\s/.exec(line)
    if (m) out.set(Number(m[1]), ticksOf(line))
  }
  return out
}

/** Whole-machine and per-core ticks in one read of /proc/stat; null when unreadable. */
export const readMachineStat = (): { machine: MachineTicks; cores: Map<number, MachineTicks> } | null => {
  try {
    const text = readFileSync('/proc/stat', 'utf8')
    return { machine: parseMachineStat(text), cores: parseCoreStats(text) }
  } catch {
    return null
  }
}
