/** Number formatting shared by the table, the markdown report and the charts. */

/** 48213 → "48.2k", 1234567 → "1.23M", 512 → "512", 0.5 → "0.5". */
export const compact = (n: number): string => {
  const a = Math.abs(n)
  if (a >= 1e9) return `${(n / 1e9).toPrecision(3)}G`
  if (a >= 1e6) return `${(n / 1e6).toPrecision(3)}M`
  if (a >= 1e4) return `${(n / 1e3).toFixed(1)}k`
  if (a >= 100) return n.toFixed(0)
  if (a >= 1) return n.toPrecision(3).replace(/\.?0+$/, '')
  return n === 0 ? '0' : n.toPrecision(2)
}

/** Milliseconds with sensible precision: 0.043 → "0.043", 1.5 → "1.50", 23.4 → "23.4", 512 → "512"; "<1" under the source's resolution. */
export const ms = (v: number | null | undefined, resolutionMs?: number | null): string => {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—'
  // A source that counts whole milliseconds (autocannon) reports 0 for anything under 1 ms.
  if (resolutionMs && v < resolutionMs) return `<${resolutionMs}`
  if (v < 0.1) return v.toFixed(3)
  if (v < 10) return v.toFixed(2)
  if (v < 100) return v.toFixed(1)
  return v.toFixed(0)
}

export const mb = (bytes: number | null | undefined): string =>
  bytes === null || bytes === undefined ? '—' : `${(bytes / (1024 * 1024)).toFixed(0)} MB`

export const pct = (v: number | null | undefined, digits = 0): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '—' : `${v.toFixed(digits)}%`

export const ratioText = (r: number | null): string => (r === null ? '—' : `${r.toFixed(2)}×`)
