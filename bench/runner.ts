/**
 * The bench runner behind `npm run bench` and `hark bench`: picks the scenarios, plans the cores,
 * runs every side A B A B with each run's processes stopped by PID when it ends, takes medians
 * and ratios, runs sweeps, then prints the table and writes results.json, report.md and the
 * charts under bench/results/<timestamp>/.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { GeneratorKind, MeasureContext, Measurement, Scenario, SetupContext } from './scenario.js'
import type { BenchResults, RunRecord, ScenarioRecord, SideRecord, SideSummary } from './results.js'
import { detectCores, pinSelf, type CoreLayout } from './harness/cores.js'
import { resultsRoot } from './harness/paths.js'
import { ProcessGroup, installSignalCleanup, liveProcesses } from './harness/processes.js'
import { noProgress, progressBar, type Progress } from './harness/progress.js'
import { alternation, median, ratio } from './harness/stats.js'
import { runSweep, type SweepPlan, type SweepResult } from './harness/sweep.js'
import { gitCommit, machineInfo } from './report/machine.js'
import { renderReport } from './report/markdown.js'
import { renderTable } from './report/table.js'
import { scenarios as allScenarios } from './scenarios/index.js'

export interface BenchOptions {
  /** Scenario names; empty = every scenario that can run. */
  readonly scenarios: readonly string[]
  readonly quick: boolean
  readonly sweep: boolean
  /** Run only peer sides (also those of scenarios whose Hark side is pending). */
  readonly peersOnly: boolean
  readonly list: boolean
  /** Also write the raw results JSON here. */
  readonly json: string | null
  /** Results directory (default bench/results/<timestamp>). */
  readonly out: string | null
  readonly rounds: number | null
  readonly durationSeconds: number | null
  readonly generators: number | null
  /** Load level instead of the scenario's own (its `load.quick`/`load.full`); null = the scenario's. */
  readonly load: number | null
  /** Room and connection loads: the native generator (default) or the Node one, for comparison. */
  readonly generator: GeneratorKind
  readonly progress: boolean
}

export const defaultOptions: BenchOptions = {
  scenarios: [],
  quick: false,
  sweep: false,
  peersOnly: false,
  list: false,
  json: null,
  out: null,
  rounds: null,
  durationSeconds: null,
  generators: null,
  load: null,
  generator: 'native',
  progress: true,
}

export interface BenchIo {
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WriteStream
}

const DEFAULT_TIMING = {
  quick: { warmupMs: 500, durationMs: 2000 },
  full: { warmupMs: 2000, durationMs: 10_000 },
}

const DEFAULT_SWEEP: SweepPlan = {
  start: 20,
  factor: 1.5,
  maxLevel: 2000,
  maxSteps: 10,
  p99LimitMs: 50,
  minDeliveryRatio: 0.99,
  budgetMs: 20 * 60_000,
}

/** Time a run may take beyond its warm-up and measured window (connects, starts, drains). */
const RUN_SLACK_MS = 180_000

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** `--list`: every scenario, ready or pending (and what it needs). */
export const listScenarios = (list: readonly Scenario[] = allScenarios): string => {
  const width = Math.max(...list.map((s) => s.name.length)) + 2
  return list
    .map((s) => {
      const peers = s.peers.map((p) => p.name).join(', ')
      const status = s.hark
        ? `ready    ${s.description}; vs ${peers || 'no peer'}`
        : `pending (needs ${s.needs ?? 'its Hark side'})${peers ? `; peers runnable with --peers-only: ${peers}` : ''}`
      return `${s.name.padEnd(width)}${status}`
    })
    .join('\n')
}

/** Medians of the successful runs of one side; `rate`: the unit is per second. */
export const summarizeRuns = (runs: readonly RunRecord[], rate = true): SideSummary | null => {
  const ok = runs.flatMap((r) => (r.measurement ? [r.measurement] : []))
  if (ok.length === 0) return null
  const med = (f: (m: Measurement) => number | null | undefined) => median(ok.map(f))
  const verdicts = new Map<string, number>()
  for (const m of ok) verdicts.set(m.saturated, (verdicts.get(m.saturated) ?? 0) + 1)
  const top = Math.max(...verdicts.values())
  return {
    runs: ok.length,
    value: med((m) => m.value)!,
    p50Ms: med((m) => m.latency?.p50Ms),
    p99Ms: med((m) => m.latency?.p99Ms),
    p999Ms: med((m) => m.latency?.p999Ms),
    latencyResolutionMs: ok.find((m) => m.latency?.resolutionMs)?.latency?.resolutionMs ?? null,
    deliveryRatio: med((m) => m.deliveryRatio),
    serverCpuPercent: med((m) => m.server.cpuPercent)!,
    serverRssBytes: med((m) => m.server.rssBytes)!,
    generatorKind: [...new Set(ok.flatMap((m) => (m.generator ? [m.generator.kind] : [])))].join('/') || null,
    // Below 1% of a core the quotient is mostly noise.
    perServerCpuSecond: rate ? med((m) => (m.server.cpuPercent >= 1 ? m.value / (m.server.cpuPercent / 100) : null)) : null,
    generatorCpuPercent: med((m) => m.generator?.cpuPercent),
    sendShortfall: med((m) => m.generator?.sendShortfall),
    otherCpuPercent: med((m) => m.otherCpuPercent),
    saturated: [...verdicts].filter(([, n]) => n === top).map(([v]) => v).join('/'),
  }
}

interface RunEnv {
  readonly opts: BenchOptions
  readonly cores: CoreLayout
  readonly progress: Progress
  readonly signal: AbortSignal
  readonly workDir: string
  readonly logDir: string
}

/** One measurement of one side, its processes stopped afterwards whatever happened. */
const runOnce = async (
  env: RunEnv,
  setup: SetupContext,
  measure: (side: string, ctx: MeasureContext) => Promise<Measurement>,
  side: string,
  round: number,
  load: number,
  timing: { warmupMs: number; durationMs: number },
): Promise<RunRecord> => {
  const procs = new ProcessGroup()
  const ctx: MeasureContext = {
    ...setup,
    procs,
    round,
    load,
    sweepStep: round === 0,
    generator: env.opts.generator,
    warmupMs: timing.warmupMs,
    durationMs: timing.durationMs,
    generatorProcesses: env.opts.generators ?? 1,
    logFile: (name) => setup.logFile(`${side}-r${round}-l${load}-${name}`),
  }
  const limitMs = timing.warmupMs + timing.durationMs + RUN_SLACK_MS
  let timer: NodeJS.Timeout | undefined
  try {
    const m = await Promise.race([
      measure(side, ctx),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`run exceeded ${limitMs / 1000} s`)), limitMs)
      }),
    ])
    return { round, load, measurement: m, error: null }
  } catch (e) {
    return { round, load, measurement: null, error: errorText(e) }
  } finally {
    clearTimeout(timer)
    env.progress.phase('stopping processes')
    await procs.stopAll()
  }
}

/** A scenario's figures across sides; a failure there is a note, not a failed run. */
const compareSafely = (sc: Scenario, sides: readonly SideRecord[]): string[] => {
  try {
    return sc.compare!(sides)
  } catch (e) {
    return [`could not compare the sides: ${errorText(e)}`]
  }
}

const runScenario = async (env: RunEnv, sc: Scenario): Promise<ScenarioRecord> => {
  const { opts, progress } = env
  const timing = { ...(sc.timing ?? DEFAULT_TIMING)[opts.quick ? 'quick' : 'full'] }
  if (opts.durationSeconds !== null) timing.durationMs = opts.durationSeconds * 1000
  const rounds = opts.rounds ?? (opts.quick ? 1 : 5)
  const load = sc.load ? (opts.load ?? (opts.quick ? sc.load.quick : sc.load.full)) : 0
  const sides = [...(sc.hark && !opts.peersOnly ? [{ ...sc.hark, role: 'hark' as const }] : []), ...sc.peers.filter((p) => !(opts.quick && p.fullOnly)).map((p) => ({ ...p, role: 'peer' as const }))]
  const dir = join(env.workDir, sc.name)
  mkdirSync(dir, { recursive: true })
  const scenarioProcs = new ProcessGroup()
  const setup: SetupContext = {
    quick: opts.quick,
    load,
    sweep: opts.sweep && sc.sweep !== undefined,
    cores: env.cores,
    dir,
    procs: scenarioProcs,
    signal: env.signal,
    logFile: (name) => join(env.logDir, `${sc.name}-${name}.log`),
    phase: (t) => progress.phase(t),
  }
  const runs = new Map<string, RunRecord[]>(sides.map((s) => [s.name, []]))
  let error: string | null = null
  let sweep: Record<string, SweepResult> | null = null
  try {
    progress.at(`${sc.name} · setup`)
    const measure = await sc.prepare(setup)
    for (const slot of alternation(sides, rounds)) {
      if (env.signal.aborted) break
      progress.at(`${sc.name} · ${slot.side.name} · round ${slot.round}/${rounds}`)
      runs.get(slot.side.name)!.push(await runOnce(env, setup, measure, slot.side.name, slot.round, load, timing))
      progress.tick()
    }
    if (opts.sweep && sc.sweep) {
      const { unit: _unit, ...scSweep } = sc.sweep
      const plan: SweepPlan = { ...DEFAULT_SWEEP, ...(opts.quick ? { maxSteps: 4, budgetMs: 5 * 60_000 } : {}), ...scSweep }
      sweep = await runSweep(
        plan,
        sides.map((s) => s.name),
        async (side, level) => {
          progress.addToTotal(1)
          progress.at(`${sc.name} · sweep · ${side} · ${level} ${sc.sweep?.unit ?? sc.load?.unit ?? ''}`)
          const r = await runOnce(env, setup, measure, side, 0, level, timing)
          progress.tick()
          const m = r.measurement
          return {
            p99Ms: m?.latency?.p99Ms ?? null,
            deliveryRatio: m ? (m.deliveryRatio ?? 1) : null,
            generatorSaturated: m ? m.saturated === 'generator' || m.saturated === 'both' : false,
            value: m?.value ?? null,
            saturated: m?.saturated ?? null,
            serverCpuPercent: m?.server.cpuPercent ?? null,
            generatorCpuPercent: m?.generator?.cpuPercent ?? null,
          }
        },
      )
    }
  } catch (e) {
    error = errorText(e)
  } finally {
    await scenarioProcs.stopAll()
  }
  const sideRecords: SideRecord[] = sides.map((s) => {
    const rs = runs.get(s.name)!
    return { name: s.name, label: s.label, role: s.role, runs: rs, summary: summarizeRuns(rs, sc.unit.endsWith('/s')) }
  })
  const hark = sideRecords.find((s) => s.role === 'hark')?.summary ?? null
  return {
    name: sc.name,
    description: sc.description,
    unit: sc.unit,
    higherIsBetter: sc.higherIsBetter,
    goal: sc.goal ?? null,
    goalJudged: !opts.quick || !sc.load || sc.load.quick === sc.load.full,
    load: sc.load ? { level: load, unit: sc.load.unit } : null,
    sweepUnit: sc.sweep?.unit ?? sc.load?.unit ?? null,
    generator: opts.generator,
    timing,
    rounds,
    hark: !sc.hark ? 'pending' : opts.peersOnly ? 'skipped' : 'measured',
    sides: sideRecords,
    ratios: sideRecords
      .filter((s) => s.role === 'peer')
      .map((p) => ({
        peer: p.name,
        ratio: ratio(hark?.value ?? null, p.summary?.value ?? null, sc.higherIsBetter),
        perCpuRatio: ratio(hark?.perServerCpuSecond ?? null, p.summary?.perServerCpuSecond ?? null, true),
      })),
    sweep,
    notes: sc.compare ? compareSafely(sc, sideRecords) : [],
    error: error ?? (sideRecords.every((s) => !s.summary) ? (sideRecords[0]?.runs[0]?.error ?? 'no run succeeded') : null),
  }
}

const stamp = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')

/** What a program running the bench wants that a test embedding it does not. */
export interface RunnerProcess {
  /** Pin this process to the generator cores. */
  readonly pinSelf: boolean
  /** Stop every child and exit on SIGINT/SIGTERM. */
  readonly handleSignals: boolean
}

/** Run the bench; resolves to the process exit code (0 ok, 1 a scenario failed, 2 usage). */
export const runBench = async (
  opts: BenchOptions,
  io: BenchIo = { stdout: process.stdout, stderr: process.stderr },
  registry: readonly Scenario[] = allScenarios,
  host: RunnerProcess = { pinSelf: true, handleSignals: true },
): Promise<number> => {
  if (opts.list) {
    io.stdout.write(listScenarios(registry) + '\n')
    return 0
  }
  // A name selects the scenario of that name, or a family: `rest` selects rest-token and rest-detail.
  const selects = (name: string, s: Scenario) => s.name === name || s.name.startsWith(`${name}-`)
  const unknown = opts.scenarios.filter((n) => !registry.some((s) => selects(n, s)))
  if (unknown.length > 0) {
    io.stderr.write(`bench: unknown scenario ${unknown.join(', ')}; --list shows them all\n`)
    return 2
  }
  const named = opts.scenarios.length > 0 ? registry.filter((s) => opts.scenarios.some((n) => selects(n, s))) : registry
  const runnable = named.filter((s) => (opts.peersOnly ? s.peers.length > 0 : s.hark !== null))
  const pending = registry.filter((s) => s.hark === null)
  for (const s of named.filter((x) => !runnable.includes(x))) {
    io.stderr.write(`bench: ${s.name} is pending (needs ${s.needs ?? 'its Hark side'})${s.peers.length ? '; --peers-only runs its peers' : ''}\n`)
  }

  const progress = opts.progress ? progressBar(io.stderr) : noProgress
  const abort = new AbortController()
  if (host.handleSignals) {
    installSignalCleanup(() => {
      abort.abort()
      progress.stop()
    })
  }
  const cores = detectCores()
  if (cores.pinned && host.pinSelf) pinSelf(cores.generators)
  const startedAt = new Date()
  const outDir = resolve(opts.out ?? join(resultsRoot, stamp(startedAt)))
  const workDir = join(outDir, 'work')
  const logDir = join(outDir, 'logs')
  mkdirSync(workDir, { recursive: true })
  mkdirSync(logDir, { recursive: true })
  io.stderr.write(`bench: ${cores.description}\nbench: results in ${outDir}\n`)

  const env: RunEnv = { opts, cores, progress, signal: abort.signal, workDir, logDir }
  const rounds = opts.rounds ?? (opts.quick ? 1 : 5)
  progress.start(runnable.reduce((n, s) => n + ((s.hark && !opts.peersOnly ? 1 : 0) + s.peers.filter((p) => !(opts.quick && p.fullOnly)).length) * rounds, 0))
  const records: ScenarioRecord[] = []
  try {
    for (const sc of runnable) {
      if (abort.signal.aborted) break
      records.push(await runScenario(env, sc))
    }
  } finally {
    progress.stop()
  }
  const left = liveProcesses()
  if (left.length > 0) io.stderr.write(`bench: ${left.length} process(es) still running after the run: ${left.map((p) => `${p.name}=${p.pid}`).join(', ')}\n`)

  const results: BenchResults = {
    tool: 'hark-bench',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: machineInfo(),
    cores: cores.description,
    mode: { quick: opts.quick, sweep: opts.sweep, peersOnly: opts.peersOnly },
    gitCommit: gitCommit(),
    scenarios: records,
    pending: pending.map((s) => ({ name: s.name, description: s.description, needs: s.needs ?? 'its Hark side' })),
  }
  const json = JSON.stringify(results, null, 2) + '\n'
  writeFileSync(join(outDir, 'results.json'), json)
  const { markdown, charts } = renderReport(results)
  mkdirSync(join(outDir, 'charts'), { recursive: true })
  for (const [file, svg] of Object.entries(charts)) writeFileSync(join(outDir, 'charts', file), svg)
  writeFileSync(join(outDir, 'report.md'), markdown)
  if (opts.json) {
    mkdirSync(dirname(resolve(opts.json)), { recursive: true })
    writeFileSync(resolve(opts.json), json)
  }
  // Data dirs hold generated master keys and databases: not worth keeping.
  rmSync(workDir, { recursive: true, force: true })
  io.stdout.write(renderTable(results) + '\n')
  const seconds = (Date.now() - startedAt.getTime()) / 1000
  io.stderr.write(`bench: ${records.length} scenario(s) in ${seconds.toFixed(0)} s${opts.quick && seconds > 120 ? ' — over the 2-minute budget of --quick: shorten a scenario\'s quick timing or load' : ''}\n`)
  io.stderr.write(`bench: report ${join(outDir, 'report.md')}\n`)
  return records.some((r) => r.error) ? 1 : 0
}
