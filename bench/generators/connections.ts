/**
 * Runner side of connection loads (no audio): connect many silent terminals through a room
 * generator with no talkers (native or Node, generators/generator.ts), either as fast as the
 * lanes allow or at a given rate (a connect storm: connects per second, time to connect, server
 * CPU during the storm) or to hold them (idle memory: server RSS per connected terminal once they
 * are all in).
 */
import type { GeneratorKind, MeasureContext, Measurement } from '../scenario.js'
import { delay, monotonicUs } from '../harness/clock.js'
import { decodeHistogram, mergeHistograms } from '../harness/histogram.js'
import { heapSnapshotDir, takeHeapSnapshot } from '../harness/heapSnapshot.js'
import { measurement } from '../harness/measurement.js'
import { cpuPercent, readCpuSeconds, readMachineStat, readMemory } from '../harness/proc.js'
import { machineShares, measureWindow, type WindowFigures } from '../harness/window.js'
import type { WorkerHandle } from '../harness/worker.js'
import { startRoomGenerators, type ProtocolChoice } from './generator.js'
import type { RoomMember, RoomTarget } from './roomProtocol.js'
import type { RoomConnected, RoomStart } from './roomWorker.js'
import { splitByRoom } from './rooms.js'

export interface ConnectionLoadSpec {
  readonly protocol: ProtocolChoice
  readonly target: RoomTarget
  /** Terminals to connect; their `talker` flag is ignored (nobody talks). */
  readonly members: readonly RoomMember[]
  readonly serverPids: readonly number[]
  /** Connections opened at once per generator process. */
  readonly concurrency?: number
  /** Connects started per second over all generator processes (open loop); absent: as lanes free up. */
  readonly connectRate?: number
  readonly connectTimeoutMs?: number
  /** Hark's side of an idle load: take a heap snapshot of the server after the window (HARK_BENCH_HEAP_SNAPSHOT). */
  readonly heapSnapshot?: boolean
}

export interface Connected {
  readonly kind: GeneratorKind
  readonly threads: number
  readonly workers: readonly WorkerHandle[]
  /** Per-connect times (open → in its room), merged over the generators. */
  readonly histogram: ReturnType<typeof mergeHistograms>
  readonly lateStarts: number
  readonly ok: number
  readonly failed: number
  readonly firstError: string | null
  /** Wall time from the first connect to the last, ms (the slowest generator). */
  readonly connectMs: number
  /** Server CPU seconds used while connecting, and the wall seconds they were measured over. */
  readonly serverCpuSeconds: number
  /** The same for each generator process, in the order of `workers`. */
  readonly generatorCpuSeconds: readonly number[]
  readonly wallSeconds: number
  /** Server RSS before the first connect. */
  readonly rssBeforeBytes: number
  /** /proc/stat at the first connect and after the last, for other load and core busy shares. */
  readonly machine: readonly [ReturnType<typeof readMachineStat>, ReturnType<typeof readMachineStat>]
}

/** The servers' RSS now, bytes. */
const serverRss = (pids: readonly number[]) => pids.reduce((s, pid) => s + (readMemory(pid)?.rssBytes ?? 0), 0)

/** Connect every terminal of `spec` (generator processes started here, left running: stop them with `stopAll`). */
export const connectAll = async (ctx: MeasureContext, spec: ConnectionLoadSpec): Promise<Connected> => {
  const members = spec.members.map((m) => ({ ...m, talker: false }))
  const parts = splitByRoom(members, ctx.generatorProcesses)
  const connectTimeoutMs = spec.connectTimeoutMs ?? 120_000
  const gens = await startRoomGenerators(ctx, spec.protocol, parts.length)
  const workers = gens.workers
  // Let the generators load their modules before the clock starts.
  await delay(300, ctx.signal)
  const rssBeforeBytes = serverRss(spec.serverPids)
  const cpu0 = spec.serverPids.reduce((s, pid) => s + (readCpuSeconds(pid) ?? 0), 0)
  const gen0 = workers.map((w) => readCpuSeconds(w.proc.pid) ?? 0)
  const stat0 = readMachineStat()
  const t0 = monotonicUs()
  ctx.phase(`connecting ${members.length} terminals (${gens.kind} generator${spec.connectRate ? `, ${spec.connectRate} connects/s offered` : ''})`)
  parts.forEach((part, i) => {
    const start: RoomStart = {
      type: 'start',
      protocol: gens.start.protocol,
      threads: gens.start.threads,
      target: spec.target,
      members: part,
      frameBytes: 100,
      framesPerSecond: 50,
      connectConcurrency: spec.concurrency ?? 64,
      ...(spec.connectRate ? { connectRate: spec.connectRate / parts.length } : {}),
      connectTimeoutMs,
      maxBacklogBytes: 64 * 1024,
    }
    workers[i]!.send(start)
  })
  const connected = await Promise.all(workers.map((w) => w.next<RoomConnected>('connected', connectTimeoutMs + 15_000)))
  const wallSeconds = (monotonicUs() - t0) / 1e6
  const stat1 = readMachineStat()
  const cpu1 = spec.serverPids.reduce((s, pid) => s + (readCpuSeconds(pid) ?? 0), 0)
  const generatorCpuSeconds = workers.map((w, i) => (readCpuSeconds(w.proc.pid) ?? gen0[i]!) - gen0[i]!)
  const ok = connected.reduce((s, c) => s + c.ok, 0)
  if (ok === 0) throw new Error(`no terminal connected: ${connected[0]?.firstError ?? 'unknown'}`)
  return {
    kind: gens.kind,
    threads: gens.start.threads * workers.length,
    workers,
    histogram: mergeHistograms(connected.flatMap((c) => (c.histogram ? [decodeHistogram(c.histogram)] : []))),
    lateStarts: connected.reduce((s, c) => s + (c.lateStarts ?? 0), 0),
    ok,
    failed: connected.reduce((s, c) => s + c.failed, 0),
    firstError: connected.find((c) => c.firstError)?.firstError ?? null,
    connectMs: Math.max(...connected.map((c) => c.connectMs)),
    serverCpuSeconds: cpu1 - cpu0,
    generatorCpuSeconds,
    wallSeconds,
    rssBeforeBytes,
    machine: [stat0, stat1],
  }
}

export const stopAll = (workers: readonly WorkerHandle[]) => {
  for (const w of workers) w.send({ type: 'stop' })
}

/**
 * Connects per second (TLS handshakes, token checks, upgrades, sessions placed in rooms) with
 * `concurrency` lanes, or at `connectRate` offered; latency = time from opening a connection to
 * its terminal being in its room; delivery ratio = connected ÷ attempted.
 */
export const runConnectStorm = async (ctx: MeasureContext, spec: ConnectionLoadSpec): Promise<Measurement> => {
  const c = await connectAll(ctx, spec)
  const serverCpu = cpuPercent(c.serverCpuSeconds, c.wallSeconds)
  const rssBytes = serverRss(spec.serverPids)
  const generatorPids = c.workers.map((w) => w.proc.pid)
  stopAll(c.workers)
  const processes = [
    ...spec.serverPids.map((pid) => ({ pid, cpuPercent: serverCpu / spec.serverPids.length, rssBytes, rssPeakBytes: rssBytes, syscalls: null })),
    ...generatorPids.map((pid, i) => ({ pid, cpuPercent: cpuPercent(c.generatorCpuSeconds[i]!, c.wallSeconds), rssBytes: 0, rssPeakBytes: 0, syscalls: null })),
  ]
  // The runner's own CPU is left in "other" here: it idles during a storm.
  const ours = processes.reduce((s, p) => s + p.cpuPercent, 0)
  const window: WindowFigures = { seconds: c.wallSeconds, processes, ...machineShares(c.machine[0], c.machine[1], c.wallSeconds, ours) }
  return measurement({
    value: c.ok / (c.connectMs / 1000),
    histogram: c.histogram,
    deliveryRatio: c.ok / spec.members.length,
    window,
    serverPids: spec.serverPids,
    generatorPids,
    generatorKind: c.kind,
    // Open loop: connects that left late because the generator was busy.
    sendShortfall: spec.connectRate ? c.lateStarts / spec.members.length : null,
    cores: ctx.cores,
    extra: {
      terminals: spec.members.length,
      connected: c.ok,
      connectFailures: c.failed,
      connectMs: c.connectMs,
      serverCpuSeconds: c.serverCpuSeconds,
      generatorThreads: c.threads,
      ...(spec.connectRate ? { connectRateOffered: spec.connectRate, lateStarts: c.lateStarts } : {}),
    },
  })
}

/**
 * Server RSS per idle connected terminal (KB): the growth of the whole load ÷ its terminals, as
 * before — conservative: it counts what a server grows by once, whatever the load (V8's young
 * generation sized up by the first connect burst, ~20 MB on Hark; allocator arenas; code loaded
 * lazily). The load connects in two halves of whole rooms, and `extra` gives each half's growth ÷
 * its terminals: `firstHalfKB` (with those fixed costs) and `secondHalfKB` (without them, but
 * optimistic: the second half also fills heap pages the first half had already made resident —
 * 10k idle MQTT devices on 2026-11-24: average 8.3 KB, first half 13–14, second half 2.5–3.4, while
 * a heap snapshot puts the JS heap alone at ~4.8 KB per device). The cost of one more terminal lies
 * between the second half's figure and the average; the heap snapshot (HARK_BENCH_HEAP_SNAPSHOT)
 * says what it is made of.
 */
export const runIdleMemory = async (ctx: MeasureContext, spec: ConnectionLoadSpec): Promise<Measurement> => {
  const [firstMembers, secondMembers] = splitByRoom(spec.members, 2)
  const first = await connectAll(ctx, { ...spec, members: firstMembers ?? [] })
  const held: WorkerHandle[] = [...first.workers]
  try {
    if (first.failed > 0) throw new Error(`${first.failed} of ${firstMembers!.length} terminals did not connect: ${first.firstError}`)
    // The first half settles (the server's post-burst GC) before the reading the second half is measured from.
    ctx.phase(`holding ${first.ok} idle terminals (first half)`)
    await delay(ctx.warmupMs, ctx.signal)
    const rssMidBytes = serverRss(spec.serverPids)
    const c = await connectAll(ctx, { ...spec, members: secondMembers ?? [] })
    held.push(...c.workers)
    if (c.failed > 0) throw new Error(`${c.failed} of ${secondMembers!.length} terminals did not connect: ${c.firstError}`)
    const terminals = first.ok + c.ok
    ctx.phase(`holding ${terminals} idle terminals`)
    const startUs = monotonicUs() + ctx.warmupMs * 1000
    const endUs = startUs + ctx.durationMs * 1000
    const window = await measureWindow([...spec.serverPids, ...held.map((w) => w.proc.pid)], startUs, endUs, { signal: ctx.signal })
    const server = window.processes.filter((p) => spec.serverPids.includes(p.pid))
    const rssAfter = server.reduce((s, p) => s + p.rssBytes, 0)
    const snapshotDir = heapSnapshotDir()
    if (spec.heapSnapshot && snapshotDir !== null) {
      ctx.phase(`heap snapshot of ${terminals} idle terminals`)
      for (const pid of spec.serverPids) {
        const file = await takeHeapSnapshot(pid, snapshotDir, 300_000, ctx.signal)
        process.stderr.write(`bench: heap snapshot of ${terminals} idle terminals: ${file}\n`)
      }
    }
    const kbEach = (bytes: number, n: number) => bytes / 1024 / n
    return measurement({
      value: kbEach(rssAfter - first.rssBeforeBytes, terminals),
      histogram: null,
      window,
      serverPids: spec.serverPids,
      generatorPids: held.map((w) => w.proc.pid),
      generatorKind: c.kind,
      cores: ctx.cores,
      extra: {
        terminals,
        firstHalfKB: kbEach(rssMidBytes - first.rssBeforeBytes, first.ok),
        secondHalfKB: kbEach(rssAfter - rssMidBytes, c.ok),
        rssBeforeBytes: first.rssBeforeBytes,
        rssMidBytes,
        rssAfterBytes: rssAfter,
        connectMs: first.connectMs + c.connectMs,
      },
    })
  } finally {
    stopAll(held)
  }
}
