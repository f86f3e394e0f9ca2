/**
 * The shape of a bench run's raw figures (results.json, --json FILE): every run of every side,
 * the medians, ratios, sweeps and what was pending. The table, the markdown report and the
 * charts are all rendered from this alone.
 */
import type { Goal, Measurement } from './scenario.js'
import type { Saturated } from './harness/saturation.js'
import type { SweepResult } from './harness/sweep.js'

export interface RunRecord {
  readonly round: number
  readonly load: number
  readonly measurement: Measurement | null
  readonly error: string | null
}

/** Medians over a side's successful runs. */
export interface SideSummary {
  readonly runs: number
  readonly value: number
  readonly p50Ms: number | null
  readonly p99Ms: number | null
  readonly p999Ms: number | null
  /** Set when the latency source cannot tell values below it apart (autocannon: 1 ms). */
  readonly latencyResolutionMs: number | null
  readonly deliveryRatio: number | null
  readonly serverCpuPercent: number
  readonly serverRssBytes: number
  /** What generated the load in these runs ("native", "node", "autocannon"; several joined by "/"); null without a generator. */
  readonly generatorKind: string | null
  /**
   * For rate units (…/s): the figure per second of server CPU, value ÷ (CPU% ÷ 100). Steadier than
   * the raw figure when other processes take CPU from the server's core; null for other units.
   */
  readonly perServerCpuSecond: number | null
  readonly generatorCpuPercent: number | null
  readonly sendShortfall: number | null
  /** CPU used by other processes on the machine during the runs, % of one core. */
  readonly otherCpuPercent: number | null
  /** The verdict most runs had (ties listed with "/"). */
  readonly saturated: Saturated | string
}

export interface SideRecord {
  readonly name: string
  readonly label: string
  readonly role: 'hark' | 'peer'
  readonly runs: readonly RunRecord[]
  readonly summary: SideSummary | null
}

export interface ScenarioRecord {
  readonly name: string
  readonly description: string
  readonly unit: string
  readonly higherIsBetter: boolean
  readonly goal: Goal | null
  /** False when this run's load was lighter than the one the goal is about (a quick run). */
  readonly goalJudged: boolean
  readonly load: { readonly level: number; readonly unit: string } | null
  /** What a --sweep level counts (the load's unit unless the scenario says otherwise). */
  readonly sweepUnit: string | null
  /** The room/connection generator asked for (--generator); each run says what it used. */
  readonly generator: 'native' | 'node'
  readonly timing: { readonly warmupMs: number; readonly durationMs: number }
  readonly rounds: number
  /** Hark's side: measured, pending (not on main yet; peers ran with --peers-only) or skipped (--peers-only). */
  readonly hark: 'measured' | 'pending' | 'skipped'
  readonly sides: readonly SideRecord[]
  /** Hark ÷ peer (> 1: Hark better), per peer: of the figures, and of the figures per server CPU-second. */
  readonly ratios: readonly { readonly peer: string; readonly ratio: number | null; readonly perCpuRatio: number | null }[]
  readonly sweep: Readonly<Record<string, SweepResult>> | null
  /** Figures across sides the scenario derived (its `compare`), one line each. */
  readonly notes?: readonly string[]
  readonly error: string | null
}

export interface MachineInfo {
  readonly cpuModel: string
  readonly cores: number
  readonly memoryGiB: number
  readonly os: string
  readonly node: string
  readonly hostname: string
}

export interface BenchResults {
  readonly tool: 'hark-bench'
  readonly startedAt: string
  readonly finishedAt: string
  readonly machine: MachineInfo
  readonly cores: string
  readonly mode: { readonly quick: boolean; readonly sweep: boolean; readonly peersOnly: boolean }
  readonly gitCommit: string | null
  readonly scenarios: readonly ScenarioRecord[]
  readonly pending: readonly { readonly name: string; readonly description: string; readonly needs: string }[]
}
