/**
 * CPU burners: busy-looping processes pinned to a core, so that core's server gets only a share
 * of it (the kernel splits a busy core evenly between runnable processes: with N burners the
 * server gets about 1/(N+1) while it is busy, all of it while the burners are stopped). Used where
 * a load must exceed what the server can do without the load generator, on its own core, being
 * the limit (the overload scenario), and to find the knee under the same share
 * (`HARK_BENCH_BURNERS=2 npm run bench -- --sweep ws-rooms mqtt-rooms`). Started in the run's
 * process group; stopped with it.
 */
import type { MeasureContext } from '../scenario.js'
import type { ManagedProcess } from './processes.js'

/** Burners asked for with HARK_BENCH_BURNERS (0..8), else `fallback`. */
export const burnersFromEnv = (fallback: number, env: NodeJS.ProcessEnv = process.env): number => {
  const v = env.HARK_BENCH_BURNERS
  if (v === undefined || v === '') return fallback
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0 || n > 8) throw new Error(`HARK_BENCH_BURNERS must be a whole number from 0 to 8, not ${v}`)
  return n
}

export const startCpuBurners = (
  ctx: Pick<MeasureContext, 'procs' | 'logFile'>,
  count: number,
  cpus: readonly number[] | null,
): ManagedProcess[] =>
  Array.from({ length: Math.max(0, count) }, (_, i) =>
    ctx.procs.spawn({ name: `burner-${i + 1}`, command: process.execPath, args: ['-e', 'for (;;) {}'], cpus, logFile: ctx.logFile(`burner-${i + 1}`) }),
  )
