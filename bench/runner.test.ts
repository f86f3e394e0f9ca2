import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { defineScenario, pendingScenario, type Measurement } from './scenario.js'
import type { BenchResults } from './results.js'
import { defaultOptions, listScenarios, runBench, type BenchOptions } from './runner.js'
import { scenarios } from './scenarios/index.js'

const figures = (value: number): Measurement => ({
  value,
  latency: { count: 10, p50Ms: 1, p99Ms: 2, p999Ms: 3, maxMs: 4 },
  deliveryRatio: 1,
  server: { cpuPercent: 50, rssBytes: 2 ** 20, rssPeakBytes: 2 ** 20 },
  generator: { kind: 'node', cpuPercent: 20, processes: 1, sendShortfall: 0 },
  saturated: 'neither',
  saturationReasons: [],
  otherCpuPercent: 0,
  extra: {},
})

const calls: string[] = []
const fake = defineScenario<{ base: number }>({
  name: 'fake',
  description: 'a scenario that measures nothing',
  unit: 'ops/s',
  higherIsBetter: true,
  load: { quick: 3, full: 5, unit: 'things' },
  setup: async () => ({ base: 100 }),
  hark: { name: 'hark', label: 'Hark', measure: async (ctx, f) => (calls.push(`hark${ctx.round}`), figures(f.base + ctx.round)) },
  peers: [
    {
      name: 'peer',
      label: 'Peer',
      measure: async (ctx, f) => {
        calls.push(`peer${ctx.round}`)
        if (ctx.round === 2) throw new Error('peer fell over')
        return figures(2 * f.base)
      },
    },
  ],
})
const waiting = pendingScenario({ name: 'later', description: 'not yet', needs: 'a transport', unit: 'x', higherIsBetter: true })

const io = () => {
  const stdout = new PassThrough()
  const stderr = new PassThrough() as unknown as NodeJS.WriteStream
  let out = ''
  let err = ''
  stdout.on('data', (c) => (out += String(c)))
  ;(stderr as unknown as PassThrough).on('data', (c) => (err += String(c)))
  return { io: { stdout, stderr }, out: () => out, err: () => err }
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  calls.length = 0
})

const opts = (o: Partial<BenchOptions>): BenchOptions => {
  const out = mkdtempSync(join(tmpdir(), 'hark-bench-'))
  dirs.push(out)
  return { ...defaultOptions, progress: false, quick: true, out, ...o }
}
const embedded = { pinSelf: false, handleSignals: false }

describe('runner', () => {
  it('alternates sides, keeps failed runs, takes medians and ratios, and writes every output', async () => {
    const o = opts({ rounds: 3, json: join(tmpdir(), `hark-bench-${process.pid}.json`) })
    dirs.push(o.json!)
    const t = io()
    const code = await runBench(o, t.io, [fake, waiting], embedded)
    expect(calls).toEqual(['hark1', 'peer1', 'hark2', 'peer2', 'hark3', 'peer3'])
    expect(code).toBe(0)
    const r = JSON.parse(readFileSync(join(o.out!, 'results.json'), 'utf8')) as BenchResults
    expect(JSON.parse(readFileSync(o.json!, 'utf8'))).toEqual(r)
    const [sc] = r.scenarios
    expect(sc!.sides[0]!.summary!.value).toBe(102)
    expect(sc!.sides[1]!.runs[1]!.error).toBe('peer fell over')
    expect(sc!.sides[1]!.summary!.runs).toBe(2)
    expect(sc!.ratios).toEqual([{ peer: 'peer', ratio: 102 / 200, perCpuRatio: 102 / 200 }])
    expect(sc!.load).toEqual({ level: 3, unit: 'things' })
    expect(r.pending).toEqual([{ name: 'later', description: 'not yet', needs: 'a transport' }])
    expect(t.out()).toMatch(/fake\s+102 ops\/s\s+peer 200 ops\/s\s+0\.51×/)
    expect(readdirSync(o.out!).sort()).toEqual(['charts', 'logs', 'report.md', 'results.json'])
  })

  it('refuses unknown scenarios and says what a pending one needs', async () => {
    const t = io()
    expect(await runBench(opts({ scenarios: ['nope'] }), t.io, [fake, waiting], embedded)).toBe(2)
    expect(t.err()).toContain('unknown scenario nope')
    const t2 = io()
    expect(await runBench(opts({ scenarios: ['later'] }), t2.io, [fake, waiting], embedded)).toBe(0)
    expect(t2.err()).toContain('later is pending (needs a transport)')
    expect(calls).toEqual([])
  })

  it('runs only peers with --peers-only', async () => {
    const t = io()
    await runBench(opts({ peersOnly: true, rounds: 1 }), t.io, [fake], embedded)
    expect(calls).toEqual(['peer1'])
    expect(t.out()).toContain('fake: peers only (Hark side skipped by --peers-only), no ratio')
  })

  it('leaves a full-only peer out of a --quick run, and measures it in a full one', async () => {
    const sided = defineScenario<undefined>({
      name: 'sided',
      description: 'a peer that only full runs measure',
      unit: 'ops/s',
      higherIsBetter: true,
      hark: { name: 'hark', label: 'Hark', measure: async () => (calls.push('hark'), figures(1)) },
      peers: [
        { name: 'judge', label: 'Judge', measure: async () => (calls.push('judge'), figures(2)) },
        { name: 'extra', label: 'Extra', fullOnly: true, measure: async () => (calls.push('extra'), figures(3)) },
      ],
    })
    await runBench(opts({ rounds: 1 }), io().io, [sided], embedded)
    expect(calls.splice(0)).toEqual(['hark', 'judge'])
    await runBench(opts({ rounds: 1, quick: false }), io().io, [sided], embedded)
    expect(calls).toEqual(['hark', 'judge', 'extra'])
  })

  it('lists every scenario with its status', () => {
    const text = listScenarios(scenarios)
    expect(text).toMatch(/^token-verify\s+ready/m)
    expect(text).toMatch(/^rest-token\s+ready/m)
    expect(text).toMatch(/^rest-detail\s+ready/m)
    for (const name of ['ws-rooms', 'mqtt-rooms', 'webrtc-peers', 'idle-memory', 'connect-storm', 'agent-latency']) expect(text).toMatch(new RegExp(`^${name}\\s+ready`, 'm'))
    expect(text).not.toMatch(/pending/)
  })

  it("puts a scenario's figures across sides (its compare) in results.json, the console table and the report", async () => {
    const compared = defineScenario<undefined>({
      name: 'compared',
      description: 'two sides and a figure that needs both',
      unit: 'ops/s',
      higherIsBetter: true,
      hark: { name: 'hark', label: 'Hark', measure: async () => ({ ...figures(10), extra: { costUs: 3 } }) },
      peers: [{ name: 'peer', label: 'Peer', measure: async () => ({ ...figures(10), extra: { costUs: 2 } }) }],
      compare: (sides) => {
        const cost = (name: string) => sides.find((s) => s.name === name)!.runs[0]!.measurement!.extra.costUs!
        return [`cost hark ÷ peer ${(cost('hark') / cost('peer')).toFixed(2)}×`]
      },
    })
    const o = opts({ rounds: 1 })
    const t = io()
    expect(await runBench(o, t.io, [compared], embedded)).toBe(0)
    const r = JSON.parse(readFileSync(join(o.out!, 'results.json'), 'utf8')) as BenchResults
    expect(r.scenarios[0]!.notes).toEqual(['cost hark ÷ peer 1.50×'])
    expect(t.out()).toContain('compared: cost hark ÷ peer 1.50×')
    expect(readFileSync(join(o.out!, 'report.md'), 'utf8')).toContain('- cost hark ÷ peer 1.50×')
  })
})
