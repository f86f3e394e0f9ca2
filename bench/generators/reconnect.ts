/**
 * Runner side of a reconnect load: connect N terminals (native generator) until all are in their
 * rooms, then restart the server under them — SIGTERM, wait for its exit, start it again on the
 * same ports and data — while every terminal comes back by itself on the backoff of
 * spec/cluster.md ("Reconnecting: the terminal's contract"): a first attempt after a random delay
 * in [0, 250 ms], the bound doubling per failed attempt (full jitter; capped at 1 s here, see
 * FLEET_BACKOFF), no lanes, as a fleet does.
 * Measured from the instant the new process accepts TCP on the terminals' port ("listening":
 * the runner polls it every 5 ms, and the generator notes its terminals' first TCP connect to the
 * new process, which is earlier when the runner's core is busy) until the last terminal is back in
 * its room: that time, the new server's CPU-seconds over it (sampled at every poll, taken at the
 * listening instant), terminals back per server CPU-second, and the attempts that failed.
 */
import { connect } from 'node:net'
import type { MeasureContext, Measurement } from '../scenario.js'
import { delay, monotonicUs } from '../harness/clock.js'
import { decodeHistogram, mergeHistograms } from '../harness/histogram.js'
import { measurement } from '../harness/measurement.js'
import { cpuPercent, readCpuSeconds, readMachineStat, readMemory } from '../harness/proc.js'
import type { ManagedProcess } from '../harness/processes.js'
import { machineShares, type WindowFigures } from '../harness/window.js'
import { connectAll, stopAll } from './connections.js'
import { generatorFor, type ProtocolChoice } from './generator.js'
import type { RoomExited, RoomListening, RoomReconnect, RoomReconnected } from './native.js'
import type { RoomMember, RoomTarget } from './roomProtocol.js'

/** The terminals' backoff (ms), as spec/cluster.md gives it; `attemptMs` bounds one attempt. */
export interface Backoff {
  readonly firstMs: number
  readonly maxMs: number
  readonly attemptMs: number
}

/**
 * The contract's first delay and doubling, the bound capped at 1 s instead of 30 s: with the
 * contract's cap the figure would be the outage's length, not the server's (after a 3.5 s start
 * the bounds already reach 8–16 s, and the last terminal comes back ~20 s after listening).
 */
export const FLEET_BACKOFF: Backoff = { firstMs: 250, maxMs: 1000, attemptMs: 15_000 }

/**
 * A backoff from `FIRST_MS,MAX_MS[,ATTEMPT_MS]` (HARK_BENCH_RECONNECT_BACKOFF, e.g. `250,30000` for
 * the contract's own cap); absent or empty: FLEET_BACKOFF. Bad text throws, naming the variable.
 */
export const parseBackoff = (text: string | undefined): Backoff => {
  if (text === undefined || text.trim() === '') return FLEET_BACKOFF
  const parts = text.split(',').map((p) => Number(p.trim()))
  const [firstMs, maxMs, attemptMs = FLEET_BACKOFF.attemptMs] = parts
  const ok = parts.length >= 2 && parts.length <= 3 && parts.every((n) => Number.isFinite(n))
  if (!ok || firstMs! < 0 || maxMs! < firstMs! || attemptMs < 1) {
    throw new Error(`HARK_BENCH_RECONNECT_BACKOFF="${text}": expected FIRST_MS,MAX_MS[,ATTEMPT_MS] with 0 ≤ FIRST_MS ≤ MAX_MS and ATTEMPT_MS ≥ 1`)
  }
  return { firstMs: firstMs!, maxMs: maxMs!, attemptMs }
}

/** The CPU-seconds of the last sample taken at or before `us` (the first sample when none is). */
export const cpuAt = (samples: readonly (readonly [us: number, cpu: number])[], us: number): number => {
  if (samples.length === 0) throw new Error('no CPU sample')
  let cpu = samples[0]![1]
  for (const [at, v] of samples) if (at <= us) cpu = v
  return cpu
}

export interface RestartedServer {
  readonly proc: ManagedProcess
  /** Settles once the server says it is ready (rejects if it failed to start). */
  readonly ready: Promise<unknown>
}

export interface ReconnectSpec {
  readonly protocol: ProtocolChoice
  readonly target: RoomTarget
  readonly members: readonly RoomMember[]
  /** The server the terminals first connect to. */
  readonly server: ManagedProcess
  /** Start the server again on the same ports and data (called once the first one exited). */
  readonly restart: () => Promise<RestartedServer>
  /** The port whose first accepted TCP connect after the restart is "listening". */
  readonly listenPort: number
  readonly backoff?: Backoff
  /** Time for every terminal to come back (the generators' deadline). */
  readonly deadlineMs?: number
  /** SIGTERM → exit grace before SIGKILL (the old server's shutdown). */
  readonly stopGraceMs?: number
}

export interface ReconnectFigures {
  /** Whether every terminal that was in its room is back in it. */
  readonly allBack: boolean
  /** Listening → the last terminal back (or → the end of the phase when some never came back), ms. */
  readonly allBackMs: number
  /** Terminals back per second over that time: the headline. */
  readonly perSecond: number
  /** Terminals back per server CPU-second over the window. */
  readonly perServerCpuSecond: number | null
}

/** The headline figures of one reconnect, from monotonic instants (µs) and counts. */
export const reconnectFigures = (r: {
  terminals: number
  back: number
  listenUs: number
  lastBackUs: number
  endUs: number
  serverCpuSeconds: number
}): ReconnectFigures => {
  if (r.terminals <= 0 || r.back < 0 || r.back > r.terminals) throw new Error(`reconnect: ${r.back} back of ${r.terminals} terminals is not a count`)
  if (r.endUs < r.listenUs) throw new Error('reconnect: the phase ended before the server listened')
  const allBack = r.back === r.terminals
  const untilUs = allBack ? Math.max(r.lastBackUs, r.listenUs) : r.endUs
  // Never zero: a terminal back within the poll's resolution still took some time.
  const allBackMs = Math.max(0.001, (untilUs - r.listenUs) / 1000)
  return {
    allBack,
    allBackMs,
    perSecond: r.back / (allBackMs / 1000),
    perServerCpuSecond: r.serverCpuSeconds > 0 ? r.back / r.serverCpuSeconds : null,
  }
}

/** Resolve with the instant a TCP connect to 127.0.0.1:port is first accepted, trying every `everyMs`. */
export const waitListening = async (
  port: number,
  opts: { timeoutMs: number; everyMs?: number; signal?: AbortSignal; gaveUp?: () => string | null; onTry?: () => void },
): Promise<number> => {
  const every = opts.everyMs ?? 5
  const deadline = Date.now() + opts.timeoutMs
  for (let i = 0; i < Math.ceil(opts.timeoutMs / every) + 1 && Date.now() < deadline; i++) {
    opts.onTry?.()
    const accepted = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port })
      s.once('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    if (accepted) return monotonicUs()
    const why = opts.gaveUp?.()
    if (why) throw new Error(why)
    if (opts.signal?.aborted) throw new Error('aborted')
    await delay(every, opts.signal)
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${opts.timeoutMs} ms`)
}

const cpuOf = (pid: number) => readCpuSeconds(pid) ?? 0

export const runReconnect = async (ctx: MeasureContext, spec: ReconnectSpec): Promise<Measurement> => {
  if (generatorFor(ctx, spec.protocol) !== 'native') {
    throw new Error('reconnect needs the native generator (bench/native: it alone speaks the reconnect phase); drop --generator node')
  }
  const backoff = spec.backoff ?? parseBackoff(process.env.HARK_BENCH_RECONNECT_BACKOFF)
  const deadlineMs = spec.deadlineMs ?? 120_000
  const c = await connectAll(ctx, { protocol: spec.protocol, target: spec.target, members: spec.members, serverPids: [spec.server.pid] })
  try {
    // A terminal that never got into its room is not part of the phase (the generator leaves it out):
    // one in a thousand may be lost (uWS 20.30 closes an occasional upgrade as its cork ends,
    // spec/websocket.md `closed_at_upgrade`; 1 of 10k in ~1 run of 10 here); more fails the run.
    if (c.failed > spec.members.length / 1000) {
      throw new Error(`${c.failed} of ${spec.members.length} terminals did not connect before the restart: ${c.firstError}`)
    }
    if (c.failed > 0) process.stderr.write(`bench: reconnect: ${c.failed} of ${spec.members.length} terminals did not connect before the restart (left out): ${c.firstError}\n`)
    const watch: RoomReconnect = { type: 'reconnect', ...backoff, deadlineMs }
    for (const w of c.workers) w.send(watch)
    await Promise.all(c.workers.map((w) => w.next('watching', 15_000)))

    ctx.phase(`restarting the server under ${c.ok} terminals`)
    const termUs = monotonicUs()
    const exit = await spec.server.stop(spec.stopGraceMs ?? 30_000)
    const exitedUs = monotonicUs()
    const exited: RoomExited = { type: 'exited', exitedUs }
    for (const w of c.workers) w.send(exited)
    const next = await spec.restart()
    const spawnedUs = monotonicUs()
    const pid = next.proc.pid
    // The new server's CPU at every poll: the listening instant may turn out earlier than the poll's.
    const samples: [number, number][] = []
    const sample = () => void samples.push([monotonicUs(), cpuOf(pid)])
    const polledUs = await waitListening(spec.listenPort, {
      timeoutMs: 60_000,
      signal: ctx.signal,
      gaveUp: () => (next.proc.hasExited ? `${next.proc.name} exited during its restart; see ${ctx.logFile(next.proc.name)}` : null),
      onTry: sample,
    })
    sample()
    const gen0 = c.workers.map((w) => cpuOf(w.proc.pid))
    const stat0 = readMachineStat()
    const listening: RoomListening = { type: 'listening', listenUs: polledUs }
    for (const w of c.workers) w.send(listening)
    ctx.phase(`${c.ok} terminals coming back`)
    const [results] = await Promise.all([Promise.all(c.workers.map((w) => w.next<RoomReconnected>('reconnected', deadlineMs + 15_000))), next.ready])
    const endUs = monotonicUs()
    const cpu1 = cpuOf(pid)
    const gen1 = c.workers.map((w) => cpuOf(w.proc.pid))
    const stat1 = readMachineStat()
    const rssBytes = readMemory(pid)?.rssBytes ?? 0

    type Count = 'terminals' | 'back' | 'drops' | 'attempts' | 'refused' | 'attemptFailures' | 'timeouts' | 'resets' | 'closes' | 'rejections'
    const sum = (k: Count) => results.reduce((s, r) => s + r[k], 0)
    const terminals = sum('terminals')
    const back = sum('back')
    // With several generator processes each measured from its own earliest sighting; the earliest of all is the instant.
    const listenUs = Math.min(polledUs, ...results.map((r) => r.listenUs))
    const cpu0 = cpuAt(samples, listenUs)
    const serverCpuSeconds = cpu1 - cpu0
    const lastBackUs = Math.max(...results.map((r) => r.lastBackUs))
    const firstBacks = results.map((r) => r.firstBackUs).filter((u) => u > 0)
    const figures = reconnectFigures({ terminals, back, listenUs, lastBackUs, endUs, serverCpuSeconds })
    const seconds = (endUs - listenUs) / 1e6
    const generatorPids = c.workers.map((w) => w.proc.pid)
    const processes = [
      { pid, cpuPercent: cpuPercent(serverCpuSeconds, seconds), rssBytes, rssPeakBytes: rssBytes, syscalls: null },
      ...generatorPids.map((gp, i) => ({ pid: gp, cpuPercent: cpuPercent(gen1[i]! - gen0[i]!, seconds), rssBytes: 0, rssPeakBytes: 0, syscalls: null })),
    ]
    const ours = processes.reduce((s, p) => s + p.cpuPercent, 0)
    const window: WindowFigures = { seconds, processes, ...machineShares(stat0, stat1, seconds, ours) }
    const firstError = results.find((r) => r.firstError)?.firstError
    if (firstError) process.stderr.write(`bench: reconnect: first failed attempt at a listening server: ${firstError}\n`)
    return measurement({
      value: figures.perSecond,
      histogram: mergeHistograms(results.map((r) => decodeHistogram(r.histogram))),
      deliveryRatio: back / terminals,
      window,
      serverPids: [pid],
      generatorPids,
      generatorKind: c.kind,
      cores: ctx.cores,
      extra: {
        terminals,
        back,
        notBack: terminals - back,
        notConnected: c.failed,
        allBackMs: figures.allBackMs,
        firstBackMs: firstBacks.length > 0 ? (Math.min(...firstBacks) - listenUs) / 1000 : -1,
        serverCpuSeconds,
        backPerServerCpuSecond: figures.perServerCpuSecond ?? 0,
        drops: sum('drops'),
        attempts: sum('attempts'),
        refusedAttempts: sum('refused'),
        failedAttempts: sum('attemptFailures'),
        timedOutAttempts: sum('timeouts'),
        resetAttempts: sum('resets'),
        closedAttempts: sum('closes'),
        rejectedAttempts: sum('rejections'),
        listenPollLagMs: (polledUs - listenUs) / 1000,
        shutdownMs: (exitedUs - termUs) / 1000,
        killedOnShutdown: exit.signal === 'SIGKILL' ? 1 : 0,
        startupMs: (listenUs - spawnedUs) / 1000,
        startupCpuSeconds: cpu0,
        generatorCpuSeconds: gen1.reduce((s, v, i) => s + v - gen0[i]!, 0),
        generatorThreads: c.threads,
        backoffFirstMs: backoff.firstMs,
        backoffMaxMs: backoff.maxMs,
      },
    })
  } finally {
    stopAll(c.workers)
  }
}
