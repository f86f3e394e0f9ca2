/**
 * CPU burners: busy-looping processes pinned to a core, so that core's server gets only a share
 * of it (the kernel splits a busy core evenly between runnable processes: with N burners the
 * server gets about 1/(N+1) while it is busy, all of it while the burners are stopped). Used where
 * a load must exceed what the server can do without the load generator, on its own core, being
 * the limit (the overload scenario). Started in the run's process group; stopped with it.
 */
import type { MeasureContext } from '../scenario.js'
import type { ManagedProcess } from './processes.js'

export const startCpuBurners = (
  ctx: Pick<MeasureContext, 'procs' | 'logFile'>,
  count: number,
  cpus: readonly number[] | null,
): ManagedProcess[] =>
  Array.from({ length: Math.max(0, count) }, (_, i) =>
    ctx.procs.spawn({ name: `burner-${i + 1}`, command: process.execPath, args: ['-e', 'for (;;) {}'], cpus, logFile: ctx.logFile(`burner-${i + 1}`) }),
  )
