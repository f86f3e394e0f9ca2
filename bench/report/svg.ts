/**
 * Small self-contained SVG charts for the markdown report: horizontal bars (median with each
 * run as a dot), grouped bars (latency percentiles per side) and lines (sweep steps). No
 * scripts, no external fonts; text is escaped.
 */
import { compact } from './format.js'

export const PALETTE = ['#2563eb', '#ea580c', '#16a34a', '#9333ea', '#dc2626', '#0891b2']

export const escapeXml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const svg = (width: number, height: number, body: string[]): string =>
  [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n')

const text = (x: number, y: number, s: string, attrs = '') => `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(s)}</text>`

/** A "nice" axis maximum ≥ v: 1, 2, 2.5 or 5 times a power of ten. */
export const niceMax = (v: number): number => {
  if (!(v > 0)) return 1
  const p = 10 ** Math.floor(Math.log10(v))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p
  return 10 * p
}

export interface Bar {
  readonly label: string
  readonly value: number
  /** Each run's figure, drawn as dots over the bar (shows the spread the median hides). */
  readonly runs?: readonly number[]
}

export const barChart = (opts: { title: string; unit: string; bars: readonly Bar[] }): string => {
  const width = 680
  const left = 200
  const right = 90
  const rowH = 34
  const top = 40
  const height = top + opts.bars.length * rowH + 30
  const max = niceMax(Math.max(...opts.bars.flatMap((b) => [b.value, ...(b.runs ?? [])])))
  const x = (v: number) => left + (v / max) * (width - left - right)
  const body = [text(12, 22, `${opts.title} (${opts.unit})`, 'font-size="14" font-weight="bold"')]
  for (let t = 0; t <= 4; t++) {
    const v = (max * t) / 4
    body.push(`<line x1="${x(v)}" y1="${top - 6}" x2="${x(v)}" y2="${height - 24}" stroke="#e5e7eb"/>`)
    body.push(text(x(v), height - 10, compact(v), 'text-anchor="middle" fill="#6b7280"'))
  }
  opts.bars.forEach((b, i) => {
    const y = top + i * rowH
    const color = PALETTE[i % PALETTE.length]!
    body.push(text(left - 8, y + rowH / 2 + 1, b.label, 'text-anchor="end" dominant-baseline="middle"'))
    body.push(`<rect x="${left}" y="${y + 6}" width="${Math.max(1, x(b.value) - left).toFixed(1)}" height="${rowH - 12}" fill="${color}" opacity="0.85"/>`)
    for (const r of b.runs ?? []) body.push(`<circle cx="${x(r).toFixed(1)}" cy="${y + rowH / 2}" r="3" fill="#111827" opacity="0.7"/>`)
    body.push(text(x(b.value) + 6, y + rowH / 2 + 1, compact(b.value), 'dominant-baseline="middle"'))
  })
  return svg(width, height, body)
}

export interface Series {
  readonly name: string
  readonly values: readonly (number | null)[]
  /** Label of a value (default: compact number), e.g. "<1" under a source's resolution. */
  readonly label?: (v: number) => string
}

/** Bars grouped by category (e.g. p50, p99, p99.9), one colour per series (side). */
export const groupedBarChart = (opts: { title: string; unit: string; groups: readonly string[]; series: readonly Series[] }): string => {
  const width = 680
  const height = 300
  const left = 60
  const top = 40
  const bottom = 60
  const plotH = height - top - bottom
  const all = opts.series.flatMap((s) => s.values.filter((v): v is number => v !== null))
  const max = niceMax(Math.max(0, ...all))
  const y = (v: number) => top + plotH - (v / max) * plotH
  const groupW = (width - left - 20) / Math.max(1, opts.groups.length)
  const barW = Math.min(48, (groupW - 20) / Math.max(1, opts.series.length))
  const body = [text(12, 22, `${opts.title} (${opts.unit})`, 'font-size="14" font-weight="bold"')]
  for (let t = 0; t <= 4; t++) {
    const v = (max * t) / 4
    body.push(`<line x1="${left}" y1="${y(v)}" x2="${width - 20}" y2="${y(v)}" stroke="#e5e7eb"/>`)
    body.push(text(left - 6, y(v) + 4, compact(v), 'text-anchor="end" fill="#6b7280"'))
  }
  opts.groups.forEach((g, gi) => {
    const gx = left + gi * groupW + (groupW - barW * opts.series.length) / 2
    opts.series.forEach((s, si) => {
      const v = s.values[gi]
      if (v === null || v === undefined) return
      const bx = gx + si * barW
      body.push(`<rect x="${bx.toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 4).toFixed(1)}" height="${(top + plotH - y(v)).toFixed(1)}" fill="${PALETTE[si % PALETTE.length]}" opacity="0.85"/>`)
      body.push(text(bx + (barW - 4) / 2, y(v) - 4, (s.label ?? compact)(v), 'text-anchor="middle" font-size="10"'))
    })
    body.push(text(left + gi * groupW + groupW / 2, top + plotH + 18, g, 'text-anchor="middle"'))
  })
  opts.series.forEach((s, si) => {
    const lx = left + si * 170
    body.push(`<rect x="${lx}" y="${height - 22}" width="12" height="12" fill="${PALETTE[si % PALETTE.length]}"/>`)
    body.push(text(lx + 18, height - 12, s.name))
  })
  return svg(width, height, body)
}

export interface LineSeries {
  readonly name: string
  readonly points: readonly (readonly [number, number])[]
}

/** Lines over a numeric x axis (sweep level), with an optional horizontal limit line. */
export const lineChart = (opts: { title: string; xLabel: string; yLabel: string; series: readonly LineSeries[]; limit?: number }): string => {
  const width = 680
  const height = 320
  const left = 60
  const top = 40
  const bottom = 70
  const plotW = width - left - 20
  const plotH = height - top - bottom
  const xs = opts.series.flatMap((s) => s.points.map((p) => p[0]))
  const ys = opts.series.flatMap((s) => s.points.map((p) => p[1]))
  const xMax = niceMax(Math.max(1, ...xs))
  const yMax = niceMax(Math.max(opts.limit ?? 0, ...ys))
  const x = (v: number) => left + (v / xMax) * plotW
  const y = (v: number) => top + plotH - (Math.min(v, yMax) / yMax) * plotH
  const body = [text(12, 22, opts.title, 'font-size="14" font-weight="bold"')]
  for (let t = 0; t <= 4; t++) {
    const yv = (yMax * t) / 4
    const xv = (xMax * t) / 4
    body.push(`<line x1="${left}" y1="${y(yv)}" x2="${width - 20}" y2="${y(yv)}" stroke="#e5e7eb"/>`)
    body.push(text(left - 6, y(yv) + 4, compact(yv), 'text-anchor="end" fill="#6b7280"'))
    body.push(text(x(xv), top + plotH + 16, compact(xv), 'text-anchor="middle" fill="#6b7280"'))
  }
  body.push(text(left + plotW / 2, top + plotH + 34, opts.xLabel, 'text-anchor="middle"'))
  body.push(text(14, top + plotH / 2, opts.yLabel, `transform="rotate(-90 14 ${top + plotH / 2})" text-anchor="middle"`))
  if (opts.limit !== undefined) {
    body.push(`<line x1="${left}" y1="${y(opts.limit)}" x2="${width - 20}" y2="${y(opts.limit)}" stroke="#dc2626" stroke-dasharray="4 3"/>`)
  }
  opts.series.forEach((s, si) => {
    const color = PALETTE[si % PALETTE.length]!
    const d = s.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ')
    if (d) body.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`)
    for (const p of s.points) body.push(`<circle cx="${x(p[0]).toFixed(1)}" cy="${y(p[1]).toFixed(1)}" r="3" fill="${color}"/>`)
    const lx = left + si * 170
    body.push(`<rect x="${lx}" y="${height - 20}" width="12" height="12" fill="${color}"/>`)
    body.push(text(lx + 18, height - 10, s.name))
  })
  return svg(width, height, body)
}
