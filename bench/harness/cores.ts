/**
 * Which cores run what: the server under test gets one core, load generators (and the runner)
 * the others, pinned with `taskset`. With one core, or without taskset, nothing is pinned and
 * the report says so.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

export interface CoreLayout {
  /** Cores this process may use (Cpus_allowed_list). */
  readonly allowed: readonly number[]
  /** Core of the server under test, or null when nothing is pinned. */
  readonly server: number | null
  /** Cores of the load generators and the runner (empty when nothing is pinned). */
  readonly generators: readonly number[]
  readonly pinned: boolean
  /** One line for the report. */
  readonly description: string
}

/** Parse a kernel CPU list such as "0-3,6,8-9". */
export const parseCpuList = (text: string): number[] => {
  const out: number[] = []
  for (const part of text.trim().split(',')) {
    if (!part) continue
    const [a, b] = part.split('-').map(Number)
    if (a === undefined || !Number.isInteger(a)) throw new Error(`bad CPU list: ${text}`)
    const end = b === undefined ? a : b
    if (!Number.isInteger(end) || end < a) throw new Error(`bad CPU list: ${text}`)
    for (let c = a; c <= end; c++) out.push(c)
  }
  return out
}

const allowedCpus = (): number[] => {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))
    if (m?.[1]) return parseCpuList(m[1])
  } catch {
    // not Linux: fall through
  }
  return Array.from({ length: availableParallelism() }, (_, i) => i)
}

const hasTaskset = (): boolean => {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Plan the layout from the allowed cores: server on the first, generators on the rest. */
export const planCores = (allowed: readonly number[], taskset: boolean): CoreLayout => {
  if (allowed.length < 2 || !taskset) {
    const why = allowed.length < 2 ? 'one core only' : 'taskset not found'
    return { allowed, server: null, generators: [], pinned: false, description: `not pinned (${why}): server and generators share ${allowed.length} core(s)` }
  }
  const [server, ...generators] = allowed as [number, ...number[]]
  return {
    allowed,
    server,
    generators,
    pinned: true,
    description: `${allowed.length} cores: server pinned to core ${server}, load generators and runner to core${generators.length > 1 ? 's' : ''} ${generators.join(',')} (taskset)`,
  }
}

export const detectCores = (): CoreLayout => planCores(allowedCpus(), hasTaskset())

/** Pin every thread of the running process (the runner) to `cpus`. */
export const pinSelf = (cpus: readonly number[]): void => {
  if (cpus.length === 0) return
  execFileSync('taskset', ['-a', '-p', '-c', cpus.join(','), String(process.pid)], { stdio: 'ignore' })
}

/** The `cpus` to pin a server under test to (null: not pinned). */
export const serverCpus = (l: CoreLayout): number[] | null => (l.server === null ? null : [l.server])

/** The `cpus` to pin load generators to (null: not pinned). */
export const generatorCpus = (l: CoreLayout): number[] | null => (l.pinned ? [...l.generators] : null)
