/**
 * A room load in phases against one server (the overload scenario): a base group of terminals
 * talks through the whole run; a surge group, connected from the start but silent, talks only for
 * the surge and then stops. Both groups run in generator processes of their own (whole rooms,
 * the same generators as generators/rooms.ts), with the timeline on (generators/timeline.ts), so
 * the runner sees, bucket by bucket of send time, what was delivered and how late: before the
 * surge, during it, and after it, where the base group alone shows how soon latency is normal
 * again. Optional CPU burners share the server's core (harness/burner.ts).
 *
 *   talk from ─ warm-up ─┬─ pre ─┬──── surge ────┬──── post ────┬ drain
 *   base:    talking ──────────────────────────────────────────────┤
 *   surge:                      talking ─────────┤
 *                        timeline bucket 0 (window start)
 */
import { writeFileSync } from 'node:fs'
import type { MeasureContext, Measurement } from '../scenario.js'
import { startCpuBurners } from '../harness/burner.js'
import { monotonicUs, until } from '../harness/clock.js'
import { serverCpus } from '../harness/cores.js'
import { measurement } from '../harness/measurement.js'
import { measureWindow, total, type WindowFigures } from '../harness/window.js'
import { splitByRoom } from './rooms.js'
import { startRoomGenerators, type ProtocolChoice } from './generator.js'
import type { RoomConnected, RoomGo, RoomResult, RoomStart } from './roomWorker.js'
import type { RoomMember, RoomTarget } from './roomProtocol.js'
import { bucketP99s, mergeTimelines, normalP99Ms, recoveryMs, spanFigures, type MergedBucket } from './timeline.js'

export interface SurgePhases {
  /** Measured time before the surge (the normal latency comes from it). */
  readonly preMs: number
  readonly surgeMs: number
  /** Measured time after the surge (the recovery is looked for in it). */
  readonly postMs: number
  /** Width of a timeline bucket; every phase is a whole number of buckets. */
  readonly bucketMs: number
}

/** What the server says about itself before, late in the surge, and after the run. */
export interface ServerReadings {
  /** Counters (deltas before → after go into `extra`), e.g. drops per transport and reason. */
  readonly counters: Readonly<Record<string, number>>
  /** Gauges (the value read late in the surge goes into `extra`). */
  readonly gauges: Readonly<Record<string, number>>
}

export interface SurgeLoadSpec {
  readonly protocol: ProtocolChoice
  readonly target: RoomTarget
  /** Talk through the whole run. */
  readonly base: readonly RoomMember[]
  /** Talk during the surge only (other rooms than the base group's). */
  readonly surge: readonly RoomMember[]
  readonly serverPids: readonly number[]
  readonly phases: SurgePhases
  /** Busy-looping processes pinned to the server's core for the whole run (0: none). */
  readonly burners: number
  /** Read the server's own figures (null: nothing to read). */
  readonly readServer?: () => Promise<ServerReadings | null>
  /** Time after the last bucket for frames still in flight (later ones count as not delivered). */
  readonly drainMs?: number
}

/** A bucket counts as normal again when its delivered share is at least this. */
export const NORMAL_DELIVERED_RATIO = 0.99

const wholeBuckets = (ms: number, bucketMs: number): number => {
  if (ms % bucketMs !== 0) throw new Error(`phase of ${ms} ms is not a whole number of ${bucketMs} ms buckets`)
  return ms / bucketMs
}

/** Figures of the run from the merged timelines (pure; exported for tests). */
export const surgeFigures = (all: readonly MergedBucket[], base: readonly MergedBucket[], phases: SurgePhases) => {
  const pre = wholeBuckets(phases.preMs, phases.bucketMs)
  const surgeEnd = pre + wholeBuckets(phases.surgeMs, phases.bucketMs)
  const end = surgeEnd + wholeBuckets(phases.postMs, phases.bucketMs)
  const before = spanFigures(base, 0, pre)
  const during = spanFigures(all, pre, surgeEnd)
  const duringBase = spanFigures(base, pre, surgeEnd)
  const after = spanFigures(base, surgeEnd, end)
  const overall = spanFigures(all, 0, end)
  const normalMs = normalP99Ms(before.latency?.p99Ms ?? null)
  return {
    before,
    during,
    duringBase,
    after,
    overall,
    normalP99Ms: normalMs,
    recoveryMs: recoveryMs(base, surgeEnd, end, phases.bucketMs, { p99Ms: normalMs, minDeliveredRatio: NORMAL_DELIVERED_RATIO }),
    buckets: { pre, surgeEnd, end },
  }
}

const pct = (r: number | null) => (r === null ? -1 : r * 100)

export const runSurgeLoad = async (ctx: MeasureContext, spec: SurgeLoadSpec): Promise<Measurement> => {
  const { phases } = spec
  // An overloaded server may hold frames for seconds; the native generator stops waiting as soon as all arrived.
  const drainMs = spec.drainMs ?? 5000
  const connectTimeoutMs = 60_000
  const groups = [
    { name: 'base', members: spec.base },
    { name: 'surge', members: spec.surge },
  ]
  const started = await Promise.all(
    groups.map(async (g) => {
      const parts = splitByRoom(g.members, ctx.generatorProcesses)
      const gens = await startRoomGenerators({ ...ctx, logFile: (n) => ctx.logFile(`${g.name}-${n}`) }, spec.protocol, parts.length)
      return { ...g, parts, gens }
    }),
  )
  ctx.phase(`connecting ${spec.base.length} base + ${spec.surge.length} surge terminals`)
  for (const g of started) {
    g.parts.forEach((members, i) => {
      const start: RoomStart = {
        type: 'start',
        protocol: g.gens.start.protocol,
        threads: g.gens.start.threads,
        target: spec.target,
        members,
        frameBytes: 100,
        framesPerSecond: 50,
        connectConcurrency: 32,
        connectTimeoutMs,
        maxBacklogBytes: 64 * 1024,
      }
      g.gens.workers[i]!.send(start)
    })
  }
  const connected = await Promise.all(started.map((g) => Promise.all(g.gens.workers.map((w) => w.next<RoomConnected>('connected', connectTimeoutMs + 15_000)))))
  const flat = connected.flat()
  if (flat.every((c) => c.ok === 0)) throw new Error(`no terminal connected: ${flat[0]?.firstError ?? 'unknown'}`)
  const connectFailures = flat.reduce((s, c) => s + c.failed, 0)

  const burners = startCpuBurners(ctx, spec.burners, serverCpus(ctx.cores))
  const readingsBefore = (await spec.readServer?.()) ?? null

  const talkFromUs = monotonicUs() + 300_000
  const fromUs = talkFromUs + ctx.warmupMs * 1000
  const surgeFromUs = fromUs + phases.preMs * 1000
  const surgeToUs = surgeFromUs + phases.surgeMs * 1000
  const endUs = surgeToUs + phases.postMs * 1000
  const timeline = { fromUs, bucketMs: phases.bucketMs }
  const [base, surge] = started as [(typeof started)[0], (typeof started)[0]]
  for (const w of base.gens.workers) w.send({ type: 'go', talkFromUs, warmupUntilUs: fromUs, endUs, drainMs, timeline } satisfies RoomGo)
  // The surge group's frames may still be in flight long after it stops: it waits as long as the base.
  for (const w of surge.gens.workers) {
    w.send({ type: 'go', talkFromUs: surgeFromUs, warmupUntilUs: surgeFromUs, endUs: surgeToUs, drainMs: (endUs - surgeToUs) / 1000 + drainMs, timeline } satisfies RoomGo)
  }
  ctx.phase(`talking: ${ctx.warmupMs / 1000} s warm-up, ${phases.preMs / 1000} s before, ${phases.surgeMs / 1000} s surge, ${phases.postMs / 1000} s after`)
  const genPids = started.flatMap((g) => g.gens.workers.map((w) => w.proc.pid))
  const burnerPids = burners.map((b) => b.pid)
  const pids = [...spec.serverPids, ...genPids, ...burnerPids]
  // Late in the surge (one bucket before its end): the gauges as the server sheds.
  const lateSurge = (async () => {
    if (!spec.readServer) return null
    await until(surgeToUs - phases.bucketMs * 1000, ctx.signal)
    return spec.readServer()
  })()
  const [window, surgeWindow] = await Promise.all([
    measureWindow(pids, fromUs, endUs, { signal: ctx.signal }),
    measureWindow(pids, surgeFromUs, surgeToUs, { signal: ctx.signal }),
  ])
  const waitMs = (endUs - monotonicUs()) / 1000 + drainMs + 30_000
  const results = await Promise.all(started.map((g) => Promise.all(g.gens.workers.map((w) => w.next<RoomResult>('result', waitMs)))))
  for (const g of started) for (const w of g.gens.workers) w.send({ type: 'stop' })
  const readingsLate = await lateSurge
  const readingsAfter = (await spec.readServer?.()) ?? null

  const all = results.flat()
  const missing = all.filter((r) => r.timeline === undefined).length
  if (missing > 0) throw new Error(`${missing} generator process(es) answered without a timeline`)
  const baseTimeline = mergeTimelines(results[0]!.map((r) => r.timeline!))
  const allTimeline = mergeTimelines(all.map((r) => r.timeline!))
  const f = surgeFigures(allTimeline, baseTimeline, phases)
  const sum = (k: keyof RoomResult, rs: readonly RoomResult[] = all) => rs.reduce((s, r) => s + ((r[k] as number | undefined) ?? 0), 0)

  // The time series behind the figures, kept with the run's logs.
  writeFileSync(
    ctx.logFile('timeline'),
    JSON.stringify({
      bucketMs: phases.bucketMs,
      surgeFromBucket: f.buckets.pre,
      surgeToBucket: f.buckets.surgeEnd,
      normalP99Ms: f.normalP99Ms,
      all: series(allTimeline, f.buckets.end),
      base: series(baseTimeline, f.buckets.end),
    }) + '\n',
  )

  const cpuOf = (w: WindowFigures, ps: readonly number[]) => total(w.processes.filter((p) => ps.includes(p.pid))).cpuPercent
  const drops: Record<string, number> = {}
  if (readingsBefore && readingsAfter) {
    for (const [k, v] of Object.entries(readingsAfter.counters)) drops[k] = v - (readingsBefore.counters[k] ?? 0)
  }
  const gauges: Record<string, number> = {}
  for (const [k, v] of Object.entries(readingsLate?.gauges ?? {})) gauges[`${k}LateSurge`] = v
  for (const [k, v] of Object.entries(readingsAfter?.gauges ?? {})) gauges[`${k}After`] = v

  return measurement({
    // Headline: the share of the surge's deliveries that arrived at all.
    value: pct(f.during.deliveredRatio),
    histogram: f.during.histogram,
    deliveryRatio: f.overall.deliveredRatio,
    window,
    serverPids: spec.serverPids,
    generatorPids: genPids,
    generatorKind: base.gens.kind,
    sendShortfall: sum('scheduled') > 0 ? sum('missedLate') / sum('scheduled') : null,
    cores: ctx.cores,
    extra: {
      baseTalkers: sum('talkers', results[0]!),
      surgeTalkers: sum('talkers', results[1]!),
      terminals: spec.base.length + spec.surge.length,
      connectFailures,
      connectionsDropped: sum('dropped'),
      burners: spec.burners,
      preMs: phases.preMs,
      surgeMs: phases.surgeMs,
      postMs: phases.postMs,
      bucketMs: phases.bucketMs,
      framesScheduled: sum('scheduled'),
      framesSent: sum('sent'),
      framesMissedLate: sum('missedLate'),
      framesSkippedBacklog: sum('skippedBacklog'),
      deliveredPctSurge: pct(f.during.deliveredRatio),
      deliveredPctSurgeBase: pct(f.duringBase.deliveredRatio),
      deliveredPctOverall: pct(f.overall.deliveredRatio),
      deliveredPctBefore: pct(f.before.deliveredRatio),
      deliveredPctAfter: pct(f.after.deliveredRatio),
      p50MsBefore: f.before.latency?.p50Ms ?? -1,
      p99MsBefore: f.before.latency?.p99Ms ?? -1,
      p50MsSurge: f.during.latency?.p50Ms ?? -1,
      p99MsSurge: f.during.latency?.p99Ms ?? -1,
      p99MsSurgeBase: f.duringBase.latency?.p99Ms ?? -1,
      p99MsAfter: f.after.latency?.p99Ms ?? -1,
      normalP99Ms: f.normalP99Ms,
      // -1: latency was not normal again by the end of the run.
      recoveryMs: f.recoveryMs ?? -1,
      serverCpuPercentSurge: cpuOf(surgeWindow, spec.serverPids),
      generatorCpuPercentSurge: cpuOf(surgeWindow, genPids),
      burnerCpuPercent: cpuOf(window, burnerPids),
      serverCoreBusyPercentSurge: ctx.cores.server === null ? -1 : (surgeWindow.coreBusyPercent[ctx.cores.server] ?? -1),
      ...drops,
      ...gauges,
    },
  })
}

/** Per bucket 0..end-1: deliveries expected, the share received (null: none expected), p99 ms. */
const series = (buckets: readonly MergedBucket[], end: number) => {
  const byIndex = new Map(buckets.map((b) => [b.index, b]))
  const at = (i: number) => byIndex.get(i)
  return {
    expected: Array.from({ length: end }, (_, i) => at(i)?.expected ?? 0),
    delivered: Array.from({ length: end }, (_, i) => {
      const b = at(i)
      return b && b.expected > 0 ? b.received / b.expected : null
    }),
    p99Ms: bucketP99s(buckets, 0, end),
  }
}
