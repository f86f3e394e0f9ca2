import { describe, expect, it } from 'vitest'
import type { Measurement } from '../scenario.js'
import type { BenchResults, ScenarioRecord } from '../results.js'
import { summarizeRuns } from '../runner.js'
import { compact, mb, ms, pct, ratioText } from './format.js'
import { renderReport } from './markdown.js'
import { barChart, escapeXml, groupedBarChart, lineChart, niceMax } from './svg.js'
import { formatColumns, renderTable } from './table.js'

const m = (value: number, p50: number, p99: number, saturated: Measurement['saturated'] = 'server'): Measurement => ({
  value,
  latency: { count: 100, p50Ms: p50, p99Ms: p99, p999Ms: p99 * 2, maxMs: p99 * 3 },
  deliveryRatio: null,
  server: { cpuPercent: 99, rssBytes: 100 * 2 ** 20, rssPeakBytes: 110 * 2 ** 20 },
  generator: null,
  saturated,
  saturationReasons: [],
  otherCpuPercent: 3,
  extra: {},
})

const run = (round: number, x: Measurement | null) => ({ round, load: 64, measurement: x, error: x ? null : 'boom' })

const scenario: ScenarioRecord = {
  name: 'token-verify',
  description: 'verifications per second',
  unit: 'verifies/s',
  higherIsBetter: true,
  goal: { value: 50_000, text: '≥ 50k verifies/s' },
  goalJudged: true,
  load: { level: 64, unit: 'in flight' },
  sweepUnit: 'in flight',
  generator: 'native',
  timing: { warmupMs: 1000, durationMs: 3000 },
  rounds: 3,
  hark: 'measured',
  sides: [
    { name: 'hark', label: 'Hark', role: 'hark', runs: [run(1, m(30_000, 2, 4)), run(2, m(36_000, 1.5, 3)), run(3, m(34_000, 1.8, 3.5))], summary: null },
    { name: 'fast-jwt', label: 'fast-jwt', role: 'peer', runs: [run(1, m(100_000, 0.5, 2)), run(2, null), run(3, m(110_000, 0.6, 2.2))], summary: null },
  ],
  ratios: [{ peer: 'fast-jwt', ratio: 34_000 / 105_000, perCpuRatio: 34_000 / 105_000 }],
  sweep: null,
  error: null,
}
const withSummaries: ScenarioRecord = { ...scenario, sides: scenario.sides.map((s) => ({ ...s, summary: summarizeRuns(s.runs) })) }

const results: BenchResults = {
  tool: 'hark-bench',
  startedAt: '2025-01-02T03:04:05.000Z',
  finishedAt: '2025-01-02T03:05:05.000Z',
  machine: { cpuModel: 'Test CPU', cores: 2, memoryGiB: 24, os: 'Linux 6', node: 'v20.0.0', hostname: 'box' },
  cores: '2 cores: server pinned to core 0',
  mode: { quick: true, sweep: false, peersOnly: false },
  gitCommit: 'abc1234',
  scenarios: [withSummaries],
  pending: [{ name: 'ws-rooms', description: 'rooms', needs: 'the WebSocket gateway' }],
}

describe('formatting', () => {
  it('writes compact numbers, milliseconds, sizes, percentages and ratios', () => {
    expect(compact(48213)).toBe('48.2k')
    expect(compact(1_234_567)).toBe('1.23M')
    expect(compact(512)).toBe('512')
    expect(compact(0)).toBe('0')
    expect(ms(0.0434)).toBe('0.043')
    expect(ms(1.5)).toBe('1.50')
    expect(ms(0, 1)).toBe('<1')
    expect(ms(null)).toBe('—')
    expect(mb(100 * 2 ** 20)).toBe('100 MB')
    expect(pct(99.4)).toBe('99%')
    expect(ratioText(0.3238)).toBe('0.32×')
    expect(ratioText(null)).toBe('—')
  })

  it('pads columns under an underlined header', () => {
    expect(formatColumns([['a', 'bb'], ['ccc', 'd']])).toBe('a    bb\n---  --\nccc  d')
  })
})

describe('summaries', () => {
  it('takes medians over the successful runs only', () => {
    const [hark, peer] = withSummaries.sides
    expect(hark!.summary).toMatchObject({ runs: 3, value: 34_000, p50Ms: 1.8, p99Ms: 3.5, saturated: 'server' })
    // 99% of a core in every run: per CPU-second = value ÷ 0.99
    expect(hark!.summary!.perServerCpuSecond).toBeCloseTo(34_000 / 0.99, 6)
    expect(summarizeRuns(scenario.sides[0]!.runs, false)!.perServerCpuSecond).toBeNull()
    expect(peer!.summary).toMatchObject({ runs: 2, value: 105_000, p50Ms: 0.55 })
    expect(summarizeRuns([run(1, null)])).toBeNull()
  })

  it('lists tied saturation verdicts', () => {
    expect(summarizeRuns([run(1, m(1, 1, 1, 'server')), run(2, m(1, 1, 1, 'generator'))])!.saturated).toBe('server/generator')
  })
})

describe('table', () => {
  it('has one row per peer with both figures, the ratio and the verdicts, then goals and pending', () => {
    const t = renderTable(results)
    const row = t.split('\n')[2]!
    expect(row).toMatch(/^token-verify\s+34\.0k verifies\/s\s+fast-jwt 105\.0k verifies\/s\s+0\.32×/)
    expect(row).toContain('1.80/3.50 · 0.55/2.10')
    expect(row).toContain('99% · 99%')
    expect(row).toContain('server · server')
    expect(t).toContain('per server CPU-second: token-verify Hark 34.3k vs fast-jwt 106.1k verifies → 0.32×')
    expect(t).toContain('goal token-verify ≥ 50k verifies/s: Hark 34.0k verifies/s — not met')
    expect(t).toContain('ws-rooms       pending (needs the WebSocket gateway)')
  })

  it('judges ratio goals against the named peer, and leaves goals of a lighter quick load unjudged', () => {
    const ratioGoal = { ...withSummaries, goal: { ratios: { 'fast-jwt': 0.3 }, text: '≥ 0.3× fast-jwt' } }
    expect(renderTable({ ...results, scenarios: [ratioGoal] })).toContain(
      'goal token-verify ≥ 0.3× fast-jwt: Hark ÷ fast-jwt = 0.32× (target ≥ 0.3×) — met',
    )
    // Judged per server CPU-second where the goal says so: the same run, a different ratio.
    const perCpu = { ...withSummaries, ratios: [{ peer: 'fast-jwt', ratio: 0.32, perCpuRatio: 0.28 }], goal: { perCpuRatios: { 'fast-jwt': 0.3 }, text: '≥ 0.3× fast-jwt per CPU' } }
    expect(renderTable({ ...results, scenarios: [perCpu] })).toContain(
      'goal token-verify ≥ 0.3× fast-jwt per CPU: Hark ÷ fast-jwt per server CPU-second = 0.28× (target ≥ 0.3×) — not met',
    )
    const quick = { ...withSummaries, goalJudged: false }
    const t = renderTable({ ...results, scenarios: [quick] })
    expect(t).toContain('goal token-verify ≥ 50k verifies/s — not judged: quick runs use a lighter load than the goal')
    expect(t).not.toContain('— not met')
  })

  it('does not call a throughput goal met when Hark reached it only with a p99 past the goal', () => {
    const over = { ...withSummaries, goal: { value: 30_000, p99Ms: 2, text: '≥ 30k at p99 ≤ 2 ms' } }
    expect(renderTable({ ...results, scenarios: [over] })).toContain(
      'goal token-verify ≥ 30k at p99 ≤ 2 ms: Hark 34.0k verifies/s at p99 3.50 ms — not met',
    )
    const within = { ...withSummaries, goal: { value: 30_000, p99Ms: 5, text: '≥ 30k at p99 ≤ 5 ms' } }
    expect(renderTable({ ...results, scenarios: [within] })).toContain('Hark 34.0k verifies/s at p99 3.50 ms — met')
  })

  it('says pending or skipped where the Hark side did not run', () => {
    const only = { ...withSummaries, hark: 'pending' as const, sides: withSummaries.sides.filter((s) => s.role === 'peer'), ratios: [{ peer: 'fast-jwt', ratio: null, perCpuRatio: null }] }
    const t = renderTable({ ...results, scenarios: [only] })
    expect(t.split('\n')[2]).toMatch(/^token-verify\s+pending\s+fast-jwt/)
    expect(t).toContain('token-verify: peers only (Hark side pending), no ratio')
  })
})

describe('generators', () => {
  const driven = (kind: string, cpu: number, saturated: Measurement['saturated']): Measurement => ({
    ...m(90_000, 1, 5, saturated),
    server: { cpuPercent: 60, rssBytes: 2 ** 20, rssPeakBytes: 2 ** 20 },
    generator: { kind, cpuPercent: cpu, processes: 1, sendShortfall: 0 },
  })
  const rooms: ScenarioRecord = {
    ...scenario,
    name: 'ws-rooms',
    unit: 'deliveries/s',
    goal: null,
    sweepUnit: 'talkers',
    sides: [
      { name: 'hark', label: 'Hark', role: 'hark', runs: [run(1, driven('native', 99, 'generator'))], summary: null },
      { name: 'uws', label: 'uWS', role: 'peer', runs: [run(1, driven('native', 50, 'neither'))], summary: null },
    ],
    ratios: [{ peer: 'uws', ratio: 1, perCpuRatio: 1 }],
    sweep: {
      hark: {
        steps: [
          { level: 200, p99Ms: 3, deliveryRatio: 1, generatorSaturated: false, held: true, reason: null, value: 30_000, saturated: 'neither', serverCpuPercent: 20, generatorCpuPercent: 30 },
          { level: 280, p99Ms: 30, deliveryRatio: 1, generatorSaturated: false, held: false, reason: 'p99 30.0 ms > 15 ms', value: 42_000, saturated: 'server', serverCpuPercent: 95, generatorCpuPercent: 40 },
        ],
        knee: 200,
        endedBy: 'broke',
      },
    },
  }
  const summed = { ...rooms, sides: rooms.sides.map((x) => ({ ...x, summary: summarizeRuns(x.runs) })) }
  const withRooms = { ...results, scenarios: [summed] }

  it('say which generator drove each side, and which side saturated first with both CPUs', () => {
    expect(summed.sides[0]!.summary!.generatorKind).toBe('native')
    const t = renderTable(withRooms)
    expect(t.split('\n')[2]).toMatch(/generator · neither\s+native · native$/)
    expect(t).toContain("note ws-rooms: hark's native generator saturated first (generator 99% vs server 60% CPU); judge by the figure per server CPU-second (150.0k deliveries)")
    expect(t).not.toContain("uws's native generator")
    const { markdown } = renderReport(withRooms)
    expect(markdown).toContain('| hark | 1 | 90.0k |')
    expect(markdown).toContain('| native 99% |')
    expect(markdown).toContain("- note ws-rooms: hark's native generator saturated first")
  })

  it('leave out the note where other processes filled the generator\'s core, not the generator', () => {
    const crowded = { ...rooms, sides: [{ ...rooms.sides[0]!, runs: [run(1, driven('native', 5, 'both'))] }] }
    const t = renderTable({ ...results, scenarios: [{ ...crowded, sides: crowded.sides.map((x) => ({ ...x, summary: summarizeRuns(x.runs) })) }] })
    expect(t).not.toContain('generator saturated first')
    // a schedule missed while others took the core is theirs too (other load 3% here: the generator's)
    const late = { ...driven('native', 40, 'generator'), generator: { kind: 'native', cpuPercent: 40, processes: 1, sendShortfall: 0.2 } }
    const starved = { ...late, otherCpuPercent: 150 }
    const table = (x: Measurement) =>
      renderTable({ ...results, scenarios: [{ ...rooms, sides: [{ ...rooms.sides[0]!, runs: [run(1, x)], summary: summarizeRuns([run(1, x)]) }] }] })
    expect(table(late)).toContain("hark's native generator saturated first (generator 40% vs server 60% CPU)")
    expect(table(starved)).not.toContain('generator saturated first')
  })

  it('report each sweep step with its figure, both CPUs and the saturated side, in the sweep\'s unit', () => {
    const { markdown } = renderReport(withRooms)
    expect(markdown).toContain('- **hark**: knee 200 talkers, ended by broke.')
    expect(markdown).toContain('| side | talkers | deliveries/s | p99 ms | delivered | server CPU | generator CPU | saturated | held |')
    expect(markdown).toContain('| hark | 280 | 42.0k | 30.0 | 100.00% | 95% | 40% | server | no: p99 30.0 ms > 15 ms |')
    const t = renderTable({ ...withRooms, scenarios: [{ ...summed, sweepUnit: 'connects/s offered' }] })
    expect(t).toMatch(/ws-rooms\s+hark\s+200\s+connects\/s offered\s+broke/)
  })
})

describe('report and charts', () => {
  it('renders the markdown report with its charts and every run', () => {
    const { markdown, charts } = renderReport(results)
    expect(markdown).toContain('# Hark bench — 2025-01-02')
    expect(markdown).toContain('2 × Test CPU, 24 GiB')
    expect(markdown).toContain('| token-verify | 34.0k verifies/s | fast-jwt: 105.0k verifies/s | 0.32× | 0.32× |')
    expect(markdown).toContain('| fast-jwt | 2 | — |')
    expect(markdown).toContain('![token-verify throughput](charts/token-verify-throughput.svg)')
    expect(Object.keys(charts).sort()).toEqual(['token-verify-latency.svg', 'token-verify-throughput.svg'])
    expect(markdown).toContain('`ws-rooms` — rooms: pending (needs the WebSocket gateway)')
  })

  it('draws well-formed SVG with escaped text', () => {
    const bars = barChart({ title: 'a < b & c', unit: 'x/s', bars: [{ label: 'hark', value: 10, runs: [9, 11] }, { label: 'peer', value: 20 }] })
    expect(bars.startsWith('<svg')).toBe(true)
    expect(bars.trimEnd().endsWith('</svg>')).toBe(true)
    expect(bars).toContain('a &lt; b &amp; c')
    expect(bars.match(/<circle/g)).toHaveLength(2)
    const grouped = groupedBarChart({ title: 't', unit: 'ms', groups: ['p50', 'p99'], series: [{ name: 's', values: [0, null], label: (v) => ms(v, 1) }] })
    expect(grouped.match(/<rect /g)!.length).toBeGreaterThanOrEqual(2)
    expect(grouped).toContain('>&lt;1</text>')
    const line = lineChart({ title: 't', xLabel: 'talkers', yLabel: 'p99', series: [{ name: 's', points: [[10, 1], [20, 5]] }], limit: 4 })
    expect(line).toContain('stroke-dasharray')
    expect(escapeXml('"<>&')).toBe('&quot;&lt;&gt;&amp;')
  })

  it('rounds axis maxima up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceMax(7)).toBe(10)
    expect(niceMax(110_000)).toBe(200_000)
    expect(niceMax(0.3)).toBe(0.5)
    expect(niceMax(0)).toBe(1)
  })
})
