/**
 * The scenario API: what one file under bench/scenarios/ exports so the runner can measure Hark
 * and its peers side by side. A scenario names its unit, its Hark side (absent while the feature
 * is not on main: the scenario is then listed as pending) and its peers; each side knows how to
 * run one measurement. The runner does the rest: A B A B rounds, medians, ratios, progress,
 * process cleanup, the table and the reports. See bench/README.md.
 */
import type { CoreLayout } from './harness/cores.js'
import type { LatencySummary } from './harness/histogram.js'
import type { ProcessGroup } from './harness/processes.js'
import type { Saturated } from './harness/saturation.js'
import type { SweepPlan } from './harness/sweep.js'

/** What one side delivered in one run. Build it with `measurement()` from harness/measurement.ts. */
export interface Measurement {
  /** The headline figure, in the scenario's unit (verifies/s, deliveries/s, req/s, KB/client …). */
  readonly value: number
  readonly latency: LatencySummary | null
  /** Delivered ÷ expected, for fan-out loads; null where it has no meaning. */
  readonly deliveryRatio: number | null
  /** The process(es) under test: CPU in % of one core, RSS in bytes. */
  readonly server: { readonly cpuPercent: number; readonly rssBytes: number; readonly rssPeakBytes: number }
  /** The load generator process(es), CPU summed in % of one core; null when the server is its own load. */
  readonly generator: {
    /** What generated the load: "native" (bench/native), "node" (room worker), "autocannon" … */
    readonly kind: string
    readonly cpuPercent: number
    readonly processes: number
    /** 1 − sent ÷ scheduled for rate-driven loads; null for closed-loop loads. */
    readonly sendShortfall: number | null
  } | null
  readonly saturated: Saturated
  readonly saturationReasons: readonly string[]
  /** CPU used by anything else on the machine during the window (other sessions…), % of one core. */
  readonly otherCpuPercent: number | null
  /** More named figures worth keeping in the JSON (put the unit in the name: `connectMs`). */
  readonly extra: Readonly<Record<string, number>>
}

/** Given once per scenario, before any side runs (e.g. to seed a Hark data dir). */
export interface SetupContext {
  readonly quick: boolean
  /** The load level the rounds run at (`--load`, else the scenario's quick or full level; 0 without one). */
  readonly load: number
  /** Whether a --sweep follows the rounds (loads above the scenario's own may come). */
  readonly sweep: boolean
  readonly cores: CoreLayout
  /** Scratch directory of this scenario in this run (data dirs, generated configs). */
  readonly dir: string
  /** Processes living as long as the scenario; the runner stops them after its last side. */
  readonly procs: ProcessGroup
  readonly signal: AbortSignal
  /** Path of a log file for a process named `name` (stdout + stderr). */
  logFile(name: string): string
  /** Show what is happening on the progress bar. */
  phase(text: string): void
}

/** Room and connection loads: the native generator (C) where it speaks the protocol, or Node's. */
export type GeneratorKind = 'native' | 'node'

/** Given to every measurement. */
export interface MeasureContext extends SetupContext {
  /** 1-based round of the A B A B alternation (0 for a sweep step). */
  readonly round: number
  /** Load level: `--load`, the scenario's `load.quick`/`load.full`, or the sweep's current step. */
  readonly load: number
  /** True for a step of --sweep (`load` is then the sweep's level, in the sweep's unit). */
  readonly sweepStep: boolean
  /** The generator asked for (--generator); a protocol without a native twin uses Node's anyway. */
  readonly generator: GeneratorKind
  readonly warmupMs: number
  readonly durationMs: number
  /** Generator processes to use (all pinned to the generator cores). */
  readonly generatorProcesses: number
}

export interface SideDef<F> {
  /** Short id: "hark" for Hark's side, the peer's name otherwise ("uws", "mosquitto"). */
  readonly name: string
  /** What exactly runs, for the report: "mosquitto 2.0.11 (apt)". */
  readonly label: string
  /** Measured in full runs only: `--quick` leaves this side out (a peer that explains, not one the goal is judged by). */
  readonly fullOnly?: boolean
  /** One run: start what is measured, load it, return its figures. Processes started in
   * `ctx.procs` are stopped by the runner when this returns or throws. */
  measure(ctx: MeasureContext, fixture: F): Promise<Measurement>
}

export interface Goal {
  readonly value?: number
  /** With `value`: Hark's p99 must also be at or below this (ms), or the value goal is not met. */
  readonly p99Ms?: number
  readonly ratios?: Readonly<Record<string, number>>
  /** Minimum ratios of the figures per server CPU-second (steadier when other work shares the server's core). */
  readonly perCpuRatios?: Readonly<Record<string, number>>
  readonly text: string
}

export interface ScenarioDef<F> {
  readonly name: string
  readonly description: string
  /** Unit of `Measurement.value`. */
  readonly unit: string
  /** Whether a larger value is better (verifies/s) or worse (KB per client). */
  readonly higherIsBetter: boolean
  /**
   * A target from the issues, shown beside Hark's figure: an absolute `value` ({ value: 50_000,
   * text: '≥ 50k/s' }) and/or minimum ratios against named peers ({ ratios: { fastify: 0.4 } }), of
   * the raw figures or of the figures per server CPU-second ({ perCpuRatios: { jose: 0.95 } }).
   */
  readonly goal?: Goal
  /** Hark's side; leave it out while the feature is not on main, and say what it needs. */
  readonly hark?: SideDef<F>
  readonly needs?: string
  readonly peers: readonly SideDef<F>[]
  /** Load level per run (talkers, connections …); `unit` says what it counts. */
  readonly load?: { readonly quick: number; readonly full: number; readonly unit: string }
  /** Warm-up and measured time per run; defaults: quick 0.5 s + 2 s, full 2 s + 10 s. */
  readonly timing?: {
    readonly quick: { readonly warmupMs: number; readonly durationMs: number }
    readonly full: { readonly warmupMs: number; readonly durationMs: number }
  }
  /** Present when --sweep applies: the load level is raised until p99 or delivery breaks. */
  readonly sweep?: Partial<SweepPlan> & {
    /** What the sweep's level counts when it is not `load.unit` (e.g. offered connects/s). */
    readonly unit?: string
  }
  /** Once per scenario before any side runs; its result is handed to every `measure`. */
  setup?(ctx: SetupContext): Promise<F>
  /**
   * Figures that need every side (e.g. one side's cost ÷ another's), from the runs once all ran:
   * lines for the console table and the report (results.json `notes`).
   */
  compare?(sides: ReadonlyArray<ComparedSide>): string[]
}

/** What `compare` sees of a side: its runs and medians (a results.ts SideRecord). */
export interface ComparedSide {
  readonly name: string
  readonly role: 'hark' | 'peer'
  readonly runs: ReadonlyArray<{ readonly measurement: Measurement | null }>
  readonly summary: { readonly p50Ms: number | null; readonly p99Ms: number | null } | null
}

/** A side as the runner sees it (fixture already bound). */
export interface SideInfo {
  readonly name: string
  readonly label: string
  readonly fullOnly?: boolean
}

export interface Scenario extends Omit<ScenarioDef<unknown>, 'hark' | 'peers' | 'setup'> {
  readonly hark: SideInfo | null
  readonly peers: readonly SideInfo[]
  /** Run setup; the result measures any side by name. */
  prepare(ctx: SetupContext): Promise<(side: string, ctx: MeasureContext) => Promise<Measurement>>
}

/** Declare a scenario; its fixture type stays inside (the runner only sees side names). */
export const defineScenario = <F>(def: ScenarioDef<F>): Scenario => {
  const sides = [...(def.hark ? [def.hark] : []), ...def.peers]
  const info = (s: SideDef<F>): SideInfo => ({ name: s.name, label: s.label, ...(s.fullOnly ? { fullOnly: true } : {}) })
  const { hark, peers, setup, ...rest } = def
  return {
    ...rest,
    hark: hark ? info(hark) : null,
    peers: peers.map(info),
    prepare: async (ctx) => {
      const fixture = (setup ? await setup(ctx) : undefined) as F
      return (name, mctx) => {
        const side = sides.find((s) => s.name === name)
        if (!side) throw new Error(`${def.name} has no side ${name}`)
        return side.measure(mctx, fixture)
      }
    },
  }
}

/** A scenario whose Hark side and peers are not written yet: listed as pending only. */
export const pendingScenario = (p: { name: string; description: string; needs: string; unit: string; higherIsBetter: boolean }): Scenario =>
  defineScenario<undefined>({ ...p, peers: [] })
