/**
 * Start one of the bench's own peer servers (peers/*.ts) on a free 127.0.0.1 port, pinned to
 * the server core, and wait for its "ready".
 */
import type { MeasureContext } from '../scenario.js'
import { serverCpus } from '../harness/cores.js'
import { benchModule } from '../harness/paths.js'
import { freePort } from '../harness/ports.js'
import { startWorker, type WorkerHandle } from '../harness/worker.js'

export interface StartedPeer {
  readonly handle: WorkerHandle
  readonly pid: number
  readonly port: number
}

export const startPeer = async (
  ctx: Pick<MeasureContext, 'procs' | 'cores' | 'logFile' | 'phase'>,
  opts: { name: string; module: string; args?: readonly string[]; readyTimeoutMs?: number },
): Promise<StartedPeer> => {
  const port = await freePort()
  ctx.phase(`starting ${opts.name}`)
  const handle = startWorker(ctx.procs, {
    name: opts.name,
    module: benchModule(opts.module),
    // e.g. HARK_BENCH_PEER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the peers as Hark is (bench/harness/hark.ts).
    nodeArgs: process.env.HARK_BENCH_PEER_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
    args: ['--port', String(port), ...(opts.args ?? [])],
    cpus: serverCpus(ctx.cores),
    logFile: ctx.logFile(opts.name),
  })
  await handle.next('ready', opts.readyTimeoutMs ?? 30_000)
  return { handle, pid: handle.proc.pid, port }
}
