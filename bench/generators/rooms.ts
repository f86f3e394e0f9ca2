/**
 * Runner side of the room load: split the terminals by room over N generator processes pinned
 * to the generator cores (native or Node, generators/generator.ts), connect them all, start
 * talking at one monotonic instant, measure the server's and generators' CPU and RSS over the
 * window, merge the histograms, and return one Measurement (headline: deliveries per second).
 */
import type { MeasureContext, Measurement } from '../scenario.js'
import { burnersFromEnv, startCpuBurners } from '../harness/burner.js'
import { monotonicUs } from '../harness/clock.js'
import { serverCpus } from '../harness/cores.js'
import { decodeHistogram, mergeHistograms, summarize } from '../harness/histogram.js'
import { measurement } from '../harness/measurement.js'
import { measureWindow, total } from '../harness/window.js'
import { startRoomGenerators, type ProtocolChoice } from './generator.js'
import type { RoomConnected, RoomResult, RoomStart } from './roomWorker.js'
import type { RoomMember, RoomTarget } from './roomProtocol.js'

export interface RoomLoadSpec {
  /** Wire format, e.g. protocols.wsPubSub (generators/generator.ts). */
  readonly protocol: ProtocolChoice
  readonly target: RoomTarget
  readonly members: readonly RoomMember[]
  /** PIDs of the server under test (CPU and RSS are measured on them). */
  readonly serverPids: readonly number[]
  /** Named server processes whose own CPU goes into `extra` as `<name>CpuPercent` (a cluster's nodes, NATS). */
  readonly serverParts?: Readonly<Record<string, number>>
  readonly frameBytes?: number
  readonly framesPerSecond?: number
  readonly connectConcurrency?: number
  readonly connectTimeoutMs?: number
  readonly maxBacklogBytes?: number
  readonly drainMs?: number
}

/**
 * Members for `rooms` rooms of `roomSize`, the first `talkersPerRoom` of each room talking;
 * `clientOf(i)` may supply seeded client ids, rooms and credentials.
 */
export const roomMembers = (opts: {
  rooms: number
  roomSize: number
  talkersPerRoom: number
  clientOf?: (index: number) => { clientId: string; room: string; credential: string | null }
}): RoomMember[] => {
  const out: RoomMember[] = []
  for (let r = 0; r < opts.rooms; r++) {
    for (let k = 0; k < opts.roomSize; k++) {
      const index = r * opts.roomSize + k
      const c = opts.clientOf?.(index) ?? { clientId: `bench-${index + 1}`, room: `room-${r + 1}`, credential: null }
      out.push({ index, clientId: c.clientId, room: c.room, credential: c.credential, talker: k < opts.talkersPerRoom })
    }
  }
  return out
}

/** Room shape for a talker count: rooms of `roomSize` with `talkersPerRoom` talkers each. */
export const roomsFor = (talkers: number, roomSize = 10, talkersPerRoom = 2) => ({
  rooms: Math.max(1, Math.ceil(talkers / talkersPerRoom)),
  roomSize,
  talkersPerRoom,
})

/** Whole rooms per process, round-robin, so every delivery is counted where it is expected. */
export const splitByRoom = (members: readonly RoomMember[], processes: number): RoomMember[][] => {
  const rooms = new Map<string, RoomMember[]>()
  for (const m of members) rooms.set(m.room, [...(rooms.get(m.room) ?? []), m])
  const parts: RoomMember[][] = Array.from({ length: Math.max(1, Math.min(processes, rooms.size)) }, () => [])
  ;[...rooms.values()].forEach((ms, i) => parts[i % parts.length]!.push(...ms))
  return parts
}

export const runRoomLoad = async (ctx: MeasureContext, spec: RoomLoadSpec): Promise<Measurement> => {
  const parts = splitByRoom(spec.members, ctx.generatorProcesses)
  const connectTimeoutMs = spec.connectTimeoutMs ?? 60_000
  const drainMs = spec.drainMs ?? 1000
  const gens = await startRoomGenerators(ctx, spec.protocol, parts.length)
  const workers = gens.workers
  ctx.phase(`connecting ${spec.members.length} terminals (${workers.length} ${gens.kind} generator process${workers.length > 1 ? 'es' : ''})`)
  parts.forEach((members, i) => {
    const start: RoomStart = {
      type: 'start',
      protocol: gens.start.protocol,
      threads: gens.start.threads,
      target: spec.target,
      members,
      frameBytes: spec.frameBytes ?? 100,
      framesPerSecond: spec.framesPerSecond ?? 50,
      connectConcurrency: spec.connectConcurrency ?? 32,
      connectTimeoutMs,
      maxBacklogBytes: spec.maxBacklogBytes ?? 64 * 1024,
    }
    workers[i]!.send(start)
  })
  const connected = await Promise.all(workers.map((w) => w.next<RoomConnected>('connected', connectTimeoutMs + 15_000)))
  const connectFailures = connected.reduce((s, c) => s + c.failed, 0)
  if (connected.every((c) => c.ok === 0)) throw new Error(`no terminal connected: ${connected[0]?.firstError ?? 'unknown'}`)
  // HARK_BENCH_BURNERS=N: the server shares its core with N busy loops (harness/burner.ts), e.g. to find the overload scenario's knee.
  const burners = startCpuBurners(ctx, burnersFromEnv(0), serverCpus(ctx.cores))
  const talkFromUs = monotonicUs() + 200_000
  const warmupUntilUs = talkFromUs + ctx.warmupMs * 1000
  const endUs = warmupUntilUs + ctx.durationMs * 1000
  for (const w of workers) w.send({ type: 'go', talkFromUs, warmupUntilUs, endUs, drainMs })
  ctx.phase(`talking: ${(ctx.warmupMs / 1000).toFixed(0)} s warm-up + ${(ctx.durationMs / 1000).toFixed(0)} s measured`)
  const genPids = workers.map((w) => w.proc.pid)
  const burnerPids = burners.map((b) => b.pid)
  const window = await measureWindow([...spec.serverPids, ...genPids, ...burnerPids], warmupUntilUs, endUs, { signal: ctx.signal })
  const waitMs = (endUs - monotonicUs()) / 1000 + drainMs + 30_000
  const results = await Promise.all(workers.map((w) => w.next<RoomResult>('result', waitMs)))
  for (const w of workers) w.send({ type: 'stop' })
  const sum = (k: keyof RoomResult) => results.reduce((s, r) => s + ((r[k] as number | undefined) ?? 0), 0)
  const histogram = mergeHistograms(results.map((r) => decodeHistogram(r.histogram)))
  // Deliveries to terminals on the target's port and on ports of their own (a cluster's other
  // node), when both happened: their latency side by side, from the same run.
  const split = (k: 'histogramHome' | 'histogramAway') =>
    results.every((r) => r[k] !== undefined) ? summarize(mergeHistograms(results.map((r) => decodeHistogram(r[k]!)))) : null
  const home = split('histogramHome')
  const away = split('histogramAway')
  const homeAway: Record<string, number> = home && away
    ? { homeDeliveries: home.count, homeP50Ms: home.p50Ms, homeP99Ms: home.p99Ms, awayDeliveries: away.count, awayP50Ms: away.p50Ms, awayP99Ms: away.p99Ms }
    : {}
  const scheduled = sum('scheduled')
  const expected = sum('expected')
  const received = sum('received')
  // Cost per delivery on the server side: its CPU and its write(2)/read(2) calls (/proc/<pid>/io).
  const servers = window.processes.filter((p) => spec.serverPids.includes(p.pid))
  const serverCpuUs = servers.reduce((s, p) => s + p.cpuPercent, 0) / 100 * window.seconds * 1e6
  const serverSyscalls = servers.every((p) => p.syscalls !== null)
    ? servers.reduce((s, p) => ({ reads: s.reads + p.syscalls!.reads, writes: s.writes + p.syscalls!.writes }), { reads: 0, writes: 0 })
    : null
  const perDelivery = (n: number) => (received > 0 ? n / received : 0)
  return measurement({
    value: received / window.seconds,
    histogram,
    deliveryRatio: expected > 0 ? received / expected : null,
    window,
    serverPids: spec.serverPids,
    generatorPids: genPids,
    generatorKind: gens.kind,
    sendShortfall: scheduled > 0 ? sum('missedLate') / scheduled : null,
    cores: ctx.cores,
    extra: {
      generatorThreads: gens.start.threads * workers.length,
      terminals: spec.members.length,
      talkers: sum('talkers'),
      connectFailures,
      connectMs: Math.max(...connected.map((c) => c.connectMs)),
      framesScheduled: scheduled,
      framesSent: sum('sent'),
      framesMissedLate: sum('missedLate'),
      framesSkippedBacklog: sum('skippedBacklog'),
      deliveriesExpected: expected,
      deliveriesReceived: received,
      serverCpuUsPerDelivery: perDelivery(serverCpuUs),
      ...(serverSyscalls ? { serverWritesPerDelivery: perDelivery(serverSyscalls.writes), serverReadsPerDelivery: perDelivery(serverSyscalls.reads) } : {}),
      foreignMessages: sum('foreign'),
      ...Object.fromEntries(
        Object.entries(spec.serverParts ?? {}).map(([name, pid]) => [`${name}CpuPercent`, window.processes.find((p) => p.pid === pid)?.cpuPercent ?? 0]),
      ),
      ...(gens.kind === 'native' ? { corruptFrames: sum('corrupt'), duplicateFrames: sum('duplicate'), connectionsDropped: sum('dropped') } : {}),
      ...homeAway,
      ...(burners.length > 0 ? { burners: burners.length, burnerCpuPercent: total(window.processes.filter((p) => burnerPids.includes(p.pid))).cpuPercent } : {}),
    },
  })
}
