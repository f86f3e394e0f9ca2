/**
 * The markdown report (report.md) and its SVG charts, rendered from the raw results: summary
 * table, then per scenario its sides, every run, the saturation verdicts and the charts; the
 * pending scenarios; how the figures were taken and how to reproduce them.
 */
import type { BenchResults, ScenarioRecord } from '../results.js'
import { generatorNotes, goalVerdicts, verdictWord } from './goals.js'
import { compact, mb, ms, pct, ratioText } from './format.js'
import { machineLine } from './machine.js'
import { barChart, groupedBarChart, lineChart } from './svg.js'

const md = (rows: readonly (readonly string[])[]): string => {
  const [head, ...body] = rows
  if (!head) return ''
  const esc = (c: string) => c.replace(/\|/g, '\\|')
  return [
    `| ${head.map(esc).join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...body.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n')
}

const summaryRows = (r: BenchResults): string[][] =>
  r.scenarios.flatMap((sc) => {
    const hark = sc.sides.find((s) => s.role === 'hark')
    const val = (s: typeof hark) => (s?.summary ? `${compact(s.summary.value)} ${sc.unit}` : s ? 'failed' : sc.hark)
    const lat = (s: typeof hark) => (s?.summary ? `${ms(s.summary.p50Ms, s.summary.latencyResolutionMs)} / ${ms(s.summary.p99Ms, s.summary.latencyResolutionMs)}` : '—')
    const peers = sc.sides.filter((s) => s.role === 'peer')
    // A scenario without a peer (nothing comparable runs here) still gets its row.
    const none = { name: '(no peer)', role: 'peer', runs: [], summary: null } as unknown as (typeof peers)[number]
    return (peers.length > 0 ? peers : hark ? [none] : [])
      .map((p) => [
        sc.name,
        val(hark),
        p === none ? p.name : `${p.name}: ${val(p)}`,
        ratioText(sc.ratios.find((x) => x.peer === p.name)?.ratio ?? null),
        ratioText(sc.ratios.find((x) => x.peer === p.name)?.perCpuRatio ?? null),
        `${lat(hark)} · ${lat(p)}`,
        `${pct(hark?.summary?.serverCpuPercent)} · ${pct(p.summary?.serverCpuPercent)}`,
        `${mb(hark?.summary?.serverRssBytes)} · ${mb(p.summary?.serverRssBytes)}`,
        `${hark?.summary?.saturated ?? '—'} · ${p.summary?.saturated ?? '—'}`,
        `${hark?.summary?.generatorKind ?? '—'} · ${p.summary?.generatorKind ?? '—'}`,
      ])
  })

const slug = (s: string) => s.replace(/[^a-z0-9-]+/gi, '-').toLowerCase()

const scenarioSection = (sc: ScenarioRecord, charts: Record<string, string>): string[] => {
  const out: string[] = [`## ${sc.name}`, '', sc.description + '.', '']
  if (sc.error) out.push(`**Failed:** ${sc.error}`, '')
  out.push(
    `- Unit: ${sc.unit} (${sc.higherIsBetter ? 'higher' : 'lower'} is better); ratio = Hark ÷ peer, oriented so > 1 means Hark does better.`,
    `- Load: ${sc.load ? `${sc.load.level} ${sc.load.unit}` : 'n/a'}; ${sc.timing.warmupMs / 1000} s warm-up + ${sc.timing.durationMs / 1000} s measured per run; ${sc.rounds} round(s), sides alternating.`,
  )
  if (sc.goal) out.push(`- Goal: ${sc.goal.text}.`)
  for (const n of generatorNotes(sc)) out.push(`- ${n}`)
  if (sc.hark !== 'measured') out.push(`- Hark side ${sc.hark === 'pending' ? 'pending' : 'skipped (--peers-only)'}: peers only, no ratio.`)
  out.push('', 'Sides:', '')
  for (const s of sc.sides) out.push(`- **${s.name}** — ${s.label}`)
  out.push('')
  const measured = sc.sides.filter((s) => s.summary)
  if (measured.length > 0) {
    const tput = `${slug(sc.name)}-throughput.svg`
    charts[tput] = barChart({
      title: `${sc.name}: median of runs`,
      unit: sc.unit,
      bars: measured.map((s) => ({
        label: s.name,
        value: s.summary!.value,
        runs: s.runs.flatMap((r) => (r.measurement ? [r.measurement.value] : [])),
      })),
    })
    out.push(`![${sc.name} throughput](charts/${tput})`, '')
    if (measured.some((s) => s.summary!.p50Ms !== null)) {
      const latf = `${slug(sc.name)}-latency.svg`
      charts[latf] = groupedBarChart({
        title: `${sc.name}: latency (median of runs)`,
        unit: 'ms',
        groups: ['p50', 'p99', 'p99.9'],
        series: measured.map((s) => ({
          name: s.name,
          values: [s.summary!.p50Ms, s.summary!.p99Ms, s.summary!.p999Ms],
          label: (v: number) => ms(v, s.summary!.latencyResolutionMs),
        })),
      })
      out.push(`![${sc.name} latency](charts/${latf})`, '')
    }
  }
  const rows: string[][] = [['side', 'round', sc.unit, 'p50 ms', 'p99 ms', 'p99.9 ms', 'delivered', 'server CPU', 'server RSS', 'per server CPU-s', 'generator (CPU)', 'other load', 'saturated', 'why / error']]
  for (const s of sc.sides) {
    for (const r of s.runs) {
      const m = r.measurement
      rows.push(
        m
          ? [
              s.name, String(r.round), compact(m.value), ms(m.latency?.p50Ms, m.latency?.resolutionMs), ms(m.latency?.p99Ms, m.latency?.resolutionMs), ms(m.latency?.p999Ms, m.latency?.resolutionMs),
              m.deliveryRatio === null ? '—' : pct(m.deliveryRatio * 100, 2), pct(m.server.cpuPercent), mb(m.server.rssBytes),
              m.server.cpuPercent >= 1 && sc.unit.endsWith('/s') ? compact(m.value / (m.server.cpuPercent / 100)) : '—',
              m.generator ? `${m.generator.kind} ${pct(m.generator.cpuPercent)}` : '—', pct(m.otherCpuPercent), m.saturated, m.saturationReasons.join('; '),
            ]
          : [s.name, String(r.round), '—', '—', '—', '—', '—', '—', '—', '—', '—', '—', '—', r.error ?? ''],
      )
    }
    if (s.summary) {
      const m = s.summary
      rows.push([
        `**${s.name} median**`, '', compact(m.value), ms(m.p50Ms, m.latencyResolutionMs), ms(m.p99Ms, m.latencyResolutionMs), ms(m.p999Ms, m.latencyResolutionMs),
        m.deliveryRatio === null ? '—' : pct(m.deliveryRatio * 100, 2), pct(m.serverCpuPercent), mb(m.serverRssBytes),
        m.perServerCpuSecond === null ? '—' : compact(m.perServerCpuSecond),
        m.generatorKind ? `${m.generatorKind} ${pct(m.generatorCpuPercent)}` : pct(m.generatorCpuPercent), pct(m.otherCpuPercent), String(m.saturated), '',
      ])
    }
  }
  out.push(md(rows), '')
  if (sc.notes && sc.notes.length > 0) out.push(...sc.notes.map((n) => `- ${n}`), '')
  if (sc.sweep) {
    out.push('### Sweep', '')
    const unit = sc.sweepUnit ?? sc.load?.unit ?? ''
    const srows: string[][] = [['side', unit || 'level', sc.unit, 'p99 ms', 'delivered', 'server CPU', 'generator CPU', 'saturated', 'held']]
    for (const [side, res] of Object.entries(sc.sweep)) {
      for (const st of res.steps) {
        srows.push([
          side, String(st.level), st.value === undefined || st.value === null ? '—' : compact(st.value), ms(st.p99Ms),
          st.deliveryRatio === null ? '—' : pct(st.deliveryRatio * 100, 2), pct(st.serverCpuPercent), pct(st.generatorCpuPercent),
          st.saturated ?? (st.generatorSaturated ? 'generator' : '—'), st.held ? 'yes' : `no: ${st.reason}`,
        ])
      }
      out.push(`- **${side}**: knee ${res.knee === null ? `below ${res.steps[0]?.level ?? '?'}` : res.knee} ${unit}, ended by ${res.endedBy}.`)
    }
    out.push('', md(srows), '')
    const sw = `${slug(sc.name)}-sweep.svg`
    charts[sw] = lineChart({
      title: `${sc.name}: p99 latency by load`,
      xLabel: sc.sweepUnit ?? sc.load?.unit ?? 'load',
      yLabel: 'p99 ms',
      series: Object.entries(sc.sweep).map(([side, res]) => ({
        name: side,
        points: res.steps.filter((s) => s.p99Ms !== null).map((s) => [s.level, s.p99Ms!] as const),
      })),
    })
    out.push(`![${sc.name} sweep](charts/${sw})`, '')
  }
  return out
}

export const renderReport = (r: BenchResults): { markdown: string; charts: Record<string, string> } => {
  const charts: Record<string, string> = {}
  const out: string[] = [
    `# Hark bench — ${r.startedAt.slice(0, 10)}`,
    '',
    `- Machine: ${machineLine(r.machine)} (host ${r.machine.hostname})`,
    `- Cores: ${r.cores}`,
    `- Mode: ${r.mode.quick ? 'quick' : 'full'}${r.mode.sweep ? ', sweep' : ''}${r.mode.peersOnly ? ', peers only' : ''}; run ${r.startedAt} → ${r.finishedAt}${r.gitCommit ? `; commit ${r.gitCommit}` : ''}`,
    '',
    '## Summary',
    '',
  ]
  const rows = summaryRows(r)
  out.push(
    rows.length > 0
      ? md([['scenario', 'Hark', 'peer', 'ratio', 'ratio per server CPU-s', 'p50 / p99 ms (Hark · peer)', 'CPU (Hark · peer)', 'RSS (Hark · peer)', 'saturated (Hark · peer)', 'generator (Hark · peer)'], ...rows])
      : 'No scenario ran.',
    '',
  )
  for (const sc of r.scenarios) {
    for (const g of goalVerdicts(sc)) out.push(`- ${g.text.replace(/^goal/, 'Goal')} — **${verdictWord(g)}**.`)
  }
  out.push('')
  for (const sc of r.scenarios) out.push(...scenarioSection(sc, charts))
  if (r.pending.length > 0) {
    out.push('## Pending', '')
    for (const p of r.pending) out.push(`- \`${p.name}\` — ${p.description}: pending (needs ${p.needs}).`)
    out.push('')
  }
  out.push(
    '## How these figures were taken',
    '',
    '- Hark, each peer and each load generator run as separate processes on 127.0.0.1; the server under test is pinned to one core and the generators (and the runner) to the others with `taskset`.',
    '- CPU is the change in utime + stime from `/proc/<pid>/stat` over the measured window (all threads), in % of one core; RSS is VmRSS from `/proc/<pid>/status` at the end of the window.',
    '- Latency comes from the send time written inside each frame (CLOCK_MONOTONIC, shared by all processes) and is recorded into HDR histograms (hdr-histogram-js) by the receivers; token-verify times each call; HTTP latency is autocannon\'s.',
    '- "other load" is CPU the machine spent during the window outside the measured processes and the runner (from /proc/stat): other sessions or daemons sharing the cores. Pinning cannot keep them off the server\'s core; a high figure makes that run noisier.',
    '- "per server CPU-second" divides a rate by the share of its core the server actually got (value ÷ CPU%/100). When other processes take CPU from the server\'s core, this ratio is steadier than the raw one; when neither side is saturated (a fixed offered load), it is the cost ratio.',
    '- Sides alternate A B A B within one invocation and every figure is the median of the runs, so a noisy machine weighs on every side alike.',
    '- "saturated": server = its process used ≥ 90% of its core, or its core was ≥ 90% busy counting other processes; generator = the same for the generators\' cores, or they sent less than 98% of the frames scheduled. A ratio measured while the generator saturated measures the generator.',
    '- "generator" says what drove each run: `native` (bench/native, C with OpenSSL and epoll, one thread per generator core), `node` (the room worker, for WebRTC and `--generator node`) or `autocannon` (HTTP). Over TLS the generator spends about what the server does per message, so one generator core cannot outpace one server core: where the generator saturated, judge by the figure per server CPU-second (the cost ratio).',
    '',
    '## Reproduce',
    '',
    '```sh',
    'npm ci',
    `npm run bench -- ${r.mode.quick ? '--quick ' : ''}${r.mode.sweep ? '--sweep ' : ''}${r.mode.peersOnly ? '--peers-only ' : ''}${r.scenarios.map((s) => s.name).join(' ')}`.trimEnd(),
    '```',
    '',
  )
  return { markdown: out.join('\n'), charts }
}
