/**
 * The table printed on stdout: one row per scenario and peer — Hark's figure, the peer's, the
 * ratio (> 1: Hark better), p50/p99, CPU, RSS and which side saturated — then goals, sweep knees
 * and pending scenarios.
 */
import type { BenchResults, ScenarioRecord, SideRecord } from '../results.js'
import { compact, mb, ms, pct, ratioText } from './format.js'
import { generatorNotes, goalVerdicts, verdictWord } from './goals.js'

/** Pad columns to their widest cell; the first row is the header, underlined. */
export const formatColumns = (rows: readonly (readonly string[])[]): string => {
  const widths: number[] = []
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)))
  const line = (r: readonly string[]) =>
    r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ').trimEnd()
  const [head, ...body] = rows
  if (!head) return ''
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n')
}

const figure = (s: SideRecord | undefined, unit: string, hark: ScenarioRecord['hark'] = 'measured'): string => {
  if (!s) return hark === 'skipped' ? 'skipped' : 'pending'
  if (!s.summary) return `failed (${s.runs.find((r) => r.error)?.error ?? 'no run'})`.slice(0, 60)
  return `${compact(s.summary.value)} ${unit}`
}

const pair = (a: string, b: string) => `${a} · ${b}`
const lat = (s: SideRecord | undefined) => (s?.summary ? `${ms(s.summary.p50Ms, s.summary.latencyResolutionMs)}/${ms(s.summary.p99Ms, s.summary.latencyResolutionMs)}` : '—')
const cpu = (s: SideRecord | undefined) => pct(s?.summary?.serverCpuPercent)
const rss = (s: SideRecord | undefined) => mb(s?.summary?.serverRssBytes)
const sat = (s: SideRecord | undefined) => s?.summary?.saturated ?? '—'
const gen = (s: SideRecord | undefined) => s?.summary?.generatorKind ?? '—'

export const scenarioRows = (sc: ScenarioRecord): string[][] => {
  const hark = sc.sides.find((s) => s.role === 'hark')
  const peers = sc.sides.filter((s) => s.role === 'peer')
  if (sc.error && sc.sides.every((s) => !s.summary)) return [[sc.name, `failed: ${sc.error}`.slice(0, 70), '', '', '', '', '', '', '']]
  // A scenario without a peer (nothing comparable runs here) still gets its row.
  if (peers.length === 0 && hark) {
    return [[sc.name, figure(hark, sc.unit, sc.hark), '(no peer)', '—', pair(lat(hark), '—'), pair(cpu(hark), '—'), pair(rss(hark), '—'), pair(sat(hark), '—'), pair(gen(hark), '—')]]
  }
  return peers.map((p, i) => [
    i === 0 ? sc.name : '',
    i === 0 ? figure(hark, sc.unit, sc.hark) : '',
    `${p.name} ${figure(p, sc.unit)}`,
    ratioText(sc.ratios.find((r) => r.peer === p.name)?.ratio ?? null),
    pair(hark ? lat(hark) : '—', lat(p)),
    pair(hark ? cpu(hark) : '—', cpu(p)),
    pair(hark ? rss(hark) : '—', rss(p)),
    pair(hark ? sat(hark) : '—', sat(p)),
    pair(hark ? gen(hark) : '—', gen(p)),
  ])
}

export const renderTable = (r: BenchResults): string => {
  const out: string[] = []
  const header = ['scenario', 'Hark', 'peer', 'ratio', 'p50/p99 ms (Hark · peer)', 'CPU (Hark · peer)', 'RSS (Hark · peer)', 'saturated (Hark · peer)', 'generator']
  const rows = r.scenarios.flatMap(scenarioRows)
  if (rows.length > 0) out.push(formatColumns([header, ...rows]))
  else out.push('No scenario ran.')
  out.push('ratio: Hark ÷ peer, > 1 means Hark does better; figures are medians of the A B A B runs.')
  for (const sc of r.scenarios) {
    const hs = sc.sides.find((s) => s.role === 'hark')?.summary
    for (const p of sc.sides.filter((s) => s.role === 'peer')) {
      const r2 = sc.ratios.find((x) => x.peer === p.name)?.perCpuRatio ?? null
      if (hs?.perServerCpuSecond && p.summary?.perServerCpuSecond && r2 !== null) {
        out.push(`per server CPU-second: ${sc.name} Hark ${compact(hs.perServerCpuSecond)} vs ${p.name} ${compact(p.summary.perServerCpuSecond)} ${sc.unit.replace(/\/s$/, '')} → ${ratioText(r2)}`)
      }
    }
    for (const n of sc.notes ?? []) out.push(`${sc.name}: ${n}`)
    for (const g of goalVerdicts(sc)) out.push(`${g.text} — ${verdictWord(g)}`)
    out.push(...generatorNotes(sc))
    const other = Math.max(...sc.sides.map((s) => s.summary?.otherCpuPercent ?? 0))
    if (other >= 10) out.push(`note ${sc.name}: other processes on the machine used up to ${other.toFixed(0)}% of a core during its runs (median per side): figures are noisier`)
    if (sc.hark !== 'measured') out.push(`${sc.name}: peers only (Hark side ${sc.hark === 'pending' ? 'pending' : 'skipped by --peers-only'}), no ratio`)
  }
  const sweeps = r.scenarios.filter((s) => s.sweep)
  if (sweeps.length > 0) {
    const rows2 = sweeps.flatMap((sc) =>
      Object.entries(sc.sweep!).map(([side, res]) => [
        sc.name,
        side,
        res.knee === null ? `< ${res.steps[0]?.level ?? '?'}` : `${res.knee}`,
        sc.sweepUnit ?? sc.load?.unit ?? '',
        res.endedBy + (res.steps.at(-1)?.reason ? ` (${res.steps.at(-1)!.reason})` : ''),
      ]),
    )
    out.push('', formatColumns([['sweep', 'side', 'knee', 'of', 'ended by'], ...rows2]))
  }
  if (r.pending.length > 0) {
    out.push('', 'pending:')
    for (const p of r.pending) out.push(`  ${p.name.padEnd(14)} pending (needs ${p.needs})`)
  }
  return out.join('\n')
}
