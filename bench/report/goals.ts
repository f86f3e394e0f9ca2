/**
 * Goal verdicts for the table and the markdown report: an absolute target on Hark's figure, and
 * minimum ratios against named peers (ratio = Hark ÷ peer, > 1 means Hark does better), of the raw
 * figures or of the figures per server CPU-second.
 */
import type { ScenarioRecord } from '../results.js'
import { compact, ms, ratioText } from './format.js'

export interface GoalVerdict {
  readonly text: string
  /** null: not judged (a quick run's load is lighter than the goal's). */
  readonly met: boolean | null
}

/** How a verdict reads in the table and the report. */
export const verdictWord = (g: GoalVerdict) =>
  g.met === null ? 'not judged: quick runs use a lighter load than the goal' : g.met ? 'met' : 'not met'

export const goalVerdicts = (sc: ScenarioRecord): GoalVerdict[] => {
  const hark = sc.sides.find((s) => s.role === 'hark')?.summary
  if (!sc.goal || !hark) return []
  if (!sc.goalJudged) return [{ met: null, text: `goal ${sc.name} ${sc.goal.text}` }]
  const verdicts: GoalVerdict[] = []
  if (sc.goal.value !== undefined) {
    const valueMet = sc.higherIsBetter ? hark.value >= sc.goal.value : hark.value <= sc.goal.value
    const p99Limit = sc.goal.p99Ms
    // A throughput reached only with a tail past the goal's latency bound is not the goal.
    const p99Met = p99Limit === undefined || (hark.p99Ms !== null && hark.p99Ms <= p99Limit)
    const p99Text = p99Limit === undefined ? '' : ` at p99 ${ms(hark.p99Ms)} ms`
    verdicts.push({ met: valueMet && p99Met, text: `goal ${sc.name} ${sc.goal.text}: Hark ${compact(hark.value)} ${sc.unit}${p99Text}` })
  }
  for (const [peer, min] of Object.entries(sc.goal.ratios ?? {})) {
    const ratio = sc.ratios.find((r) => r.peer === peer)?.ratio ?? null
    verdicts.push({
      met: ratio !== null && ratio >= min,
      text: `goal ${sc.name} ${sc.goal.text}: Hark ÷ ${peer} = ${ratioText(ratio)} (target ≥ ${min}×)`,
    })
  }
  for (const [peer, min] of Object.entries(sc.goal.perCpuRatios ?? {})) {
    const ratio = sc.ratios.find((r) => r.peer === peer)?.perCpuRatio ?? null
    verdicts.push({
      met: ratio !== null && ratio >= min,
      text: `goal ${sc.name} ${sc.goal.text}: Hark ÷ ${peer} per server CPU-second = ${ratioText(ratio)} (target ≥ ${min}×)`,
    })
  }
  return verdicts
}

/**
 * One line per side whose generator saturated in most runs: which generator, its CPU against the
 * server's, and that the cost per server CPU-second is the figure to judge by there.
 */
export const generatorNotes = (sc: ScenarioRecord): string[] =>
  sc.sides.flatMap((s) => {
    const m = s.summary
    // Only where the generator itself ran out (its CPU or its schedule), not where others filled its core.
    if (!m || !/generator|both/.test(String(m.saturated)) || m.generatorCpuPercent === null) return []
    const ownCpu = m.generatorCpuPercent >= 90
    const ownSchedule = (m.sendShortfall ?? 0) > 0.02 && (m.otherCpuPercent ?? 0) < 10
    if (!ownCpu && !ownSchedule) return []
    const per = m.perServerCpuSecond === null ? '' : `; judge by the figure per server CPU-second (${compact(m.perServerCpuSecond)} ${sc.unit.replace(/\/s$/, '')})`
    return [
      `note ${sc.name}: ${s.name}'s ${m.generatorKind ?? ''} generator saturated first (generator ${m.generatorCpuPercent.toFixed(0)}% vs server ${m.serverCpuPercent.toFixed(0)}% CPU)${per}`.replace('  ', ' '),
    ]
  })
