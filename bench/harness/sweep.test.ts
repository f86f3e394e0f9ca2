import { describe, expect, it } from 'vitest'
import { judge, nextLevel, runSweep, type SweepFigures, type SweepPlan } from './sweep.js'

const plan: SweepPlan = { start: 10, factor: 2, maxLevel: 1000, maxSteps: 10, p99LimitMs: 50, minDeliveryRatio: 0.99, budgetMs: 60_000 }
const ok: SweepFigures = { p99Ms: 5, deliveryRatio: 1, generatorSaturated: false }

describe('sweep', () => {
  it('raises the level by the factor, at least by one', () => {
    expect(nextLevel(10, 2)).toBe(20)
    expect(nextLevel(1, 1.2)).toBe(2)
  })

  it('breaks on p99, on delivery, and on nothing delivered', () => {
    expect(judge(ok, plan).held).toBe(true)
    expect(judge({ ...ok, p99Ms: 51 }, plan).reason).toMatch(/p99/)
    expect(judge({ ...ok, deliveryRatio: 0.98 }, plan).reason).toMatch(/delivery/)
    expect(judge({ ...ok, p99Ms: null }, plan).held).toBe(false)
  })

  it('reports the last level that held as the knee, per side, alternating sides per level', async () => {
    const calls: string[] = []
    const breaksAbove = { a: 40, b: 20 }
    const res = await runSweep(plan, ['a', 'b'] as const, async (side, level) => {
      calls.push(`${side}${level}`)
      return { ...ok, p99Ms: level > breaksAbove[side] ? 80 : 5 }
    })
    expect(calls).toEqual(['a10', 'b10', 'a20', 'b20', 'a40', 'b40', 'a80'])
    expect(res.a).toMatchObject({ knee: 40, endedBy: 'broke' })
    expect(res.b).toMatchObject({ knee: 20, endedBy: 'broke' })
    expect(res.a.steps.map((s) => s.held)).toEqual([true, true, true, false])
  })

  it('has no knee when the first level already breaks', async () => {
    const res = await runSweep(plan, ['a'], async () => ({ ...ok, deliveryRatio: 0.5 }))
    expect(res.a).toMatchObject({ knee: null, endedBy: 'broke' })
  })

  it('stops a side whose generator saturated: the knee is at least that level', async () => {
    const res = await runSweep(plan, ['a'], async (_s, level) => ({ ...ok, generatorSaturated: level >= 20 }))
    expect(res.a).toMatchObject({ knee: 20, endedBy: 'generator' })
  })

  it('blames the generator for a break while it saturated', async () => {
    const res = await runSweep(plan, ['a'], async (_s, level) => ({ p99Ms: level >= 20 ? 99 : 1, deliveryRatio: 1, generatorSaturated: level >= 20 }))
    expect(res.a).toMatchObject({ knee: 10, endedBy: 'generator' })
  })

  it('is bounded by steps, by level and by time', async () => {
    const steps = await runSweep({ ...plan, maxSteps: 3 }, ['a'], async () => ok)
    expect(steps.a).toMatchObject({ knee: 40, endedBy: 'max-steps' })
    const level = await runSweep({ ...plan, maxLevel: 30 }, ['a'], async () => ok)
    expect(level.a).toMatchObject({ knee: 20, endedBy: 'max-level' })
    let t = 0
    const budget = await runSweep({ ...plan, budgetMs: 100 }, ['a'], async () => ((t += 60), ok), () => t)
    expect(budget.a).toMatchObject({ knee: 20, endedBy: 'budget' })
  })
})
