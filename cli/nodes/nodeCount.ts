/**
 * `hark start --nodes N|auto`: how many engine processes to run on this machine. `auto` is the
 * CPUs this process may use (os.availableParallelism(), which follows its CPU affinity).
 */
import { availableParallelism } from 'node:os'
import { CliError } from '../context.js'

/** More would only share cores: each node is a process with its own event loop and memory. */
export const MAX_NODES = 256

export const parseNodeCount = (raw: string | undefined, cpus: () => number = availableParallelism): number => {
  if (raw === undefined) return 1
  if (raw === 'auto') return Math.min(Math.max(1, cpus()), MAX_NODES)
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isInteger(n) || n < 1 || n > MAX_NODES) {
    throw new CliError(`--nodes takes a whole number from 1 to ${MAX_NODES}, or auto (the CPUs this process may use); got '${raw}'`, 2)
  }
  return n
}
