/**
 * --sweep: raise the load (talkers) step by step until p99 latency or the delivery ratio breaks,
 * and report the knee: the highest level that still held. Bounded in steps, level and time.
 */

export interface SweepPlan {
  readonly start: number
  /** Each step multiplies the level by this (rounded up, at least +1). */
  readonly factor: number
  readonly maxLevel: number
  readonly maxSteps: number
  /** A step breaks when its p99 exceeds this. */
  readonly p99LimitMs: number
  /** A step breaks when its delivery ratio falls below this. */
  readonly minDeliveryRatio: number
  /** Wall-clock budget for the whole sweep of one side. */
  readonly budgetMs: number
}

export interface SweepFigures {
  readonly p99Ms: number | null
  readonly deliveryRatio: number | null
  /** The generator saturated (its CPU, or it could not send at the rate asked). */
  readonly generatorSaturated: boolean
  /** For the report: the step's headline figure, who saturated, and each side's CPU (% of a core). */
  readonly value?: number | null
  readonly saturated?: string | null
  readonly serverCpuPercent?: number | null
  readonly generatorCpuPercent?: number | null
}

export interface SweepStep extends SweepFigures {
  readonly level: number
  readonly held: boolean
  readonly reason: string | null
}

export interface SweepResult {
  readonly steps: readonly SweepStep[]
  /** Highest level that held; null when even the first step broke. */
  readonly knee: number | null
  /** Why the sweep ended. */
  readonly endedBy: 'broke' | 'generator' | 'max-level' | 'max-steps' | 'budget'
}

export const nextLevel = (level: number, factor: number): number => Math.max(level + 1, Math.ceil(level * factor))

/** Did a step hold? Missing figures count as broken (nothing was delivered to measure). */
export const judge = (f: SweepFigures, plan: SweepPlan): { held: boolean; reason: string | null } => {
  if (f.p99Ms === null || f.deliveryRatio === null) return { held: false, reason: 'nothing delivered' }
  if (f.p99Ms > plan.p99LimitMs) return { held: false, reason: `p99 ${f.p99Ms.toFixed(1)} ms > ${plan.p99LimitMs} ms` }
  if (f.deliveryRatio < plan.minDeliveryRatio) {
    return { held: false, reason: `delivery ${(f.deliveryRatio * 100).toFixed(2)}% < ${(plan.minDeliveryRatio * 100).toFixed(2)}%` }
  }
  return { held: true, reason: null }
}

/**
 * Sweep every side together, level by level, alternating sides at each level (A B at 20, A B at
 * 30 …) so drift of the machine reaches all alike; a side leaves the sweep at its first break.
 */
export const runSweep = async <S extends string>(
  plan: SweepPlan,
  sides: readonly S[],
  measure: (side: S, level: number) => Promise<SweepFigures>,
  now: () => number = Date.now,
): Promise<Record<S, SweepResult>> => {
  const steps = new Map<S, SweepStep[]>(sides.map((s) => [s, []]))
  const knee = new Map<S, number | null>(sides.map((s) => [s, null]))
  const ended = new Map<S, SweepResult['endedBy']>()
  const startedAt = now()
  let level = plan.start
  for (let i = 0; i < plan.maxSteps && ended.size < sides.length; i++) {
    if (level > plan.maxLevel || now() - startedAt > plan.budgetMs) break
    for (const side of sides) {
      if (ended.has(side)) continue
      const f = await measure(side, level)
      const verdict = judge(f, plan)
      steps.get(side)!.push({ ...f, level, ...verdict })
      // A break while the generator was at its limit says more about the generator than the server.
      if (!verdict.held) ended.set(side, f.generatorSaturated ? 'generator' : 'broke')
      else {
        knee.set(side, level)
        // A generator at its limit cannot push the server further: the knee is at least this level.
        if (f.generatorSaturated) ended.set(side, 'generator')
      }
    }
    level = nextLevel(level, plan.factor)
  }
  const why: SweepResult['endedBy'] =
    level > plan.maxLevel ? 'max-level' : now() - startedAt > plan.budgetMs ? 'budget' : 'max-steps'
  const out = {} as Record<S, SweepResult>
  for (const side of sides) out[side] = { steps: steps.get(side)!, knee: knee.get(side)!, endedBy: ended.get(side) ?? why }
  return out
}
