/**
 * Usage reports: one record per UTC day over the last 90 days (or a from/to range inside them),
 * with minutes and sessions, and totals that are the sum of the records. Closed sessions come
 * from the daily folds; open ones are added live (up to now for this process's sessions, up to
 * their last checkpoint for another process's), so the CLI and the REST API agree.
 */
import { ValidationFailed } from '../errors.js'
import type { StorageShape } from '../storage/storage.js'
import { splitByDay, utcDay } from '../storage/usage.js'

export const USAGE_WINDOW_DAYS = 90
const DAY_MS = 86_400_000

export interface UsageRecord {
  /** UTC day, YYYY-MM-DD. */
  readonly date: string
  /** Connected terminal time in minutes, two decimals (rounded from the day's exact milliseconds). */
  readonly minutes: number
  /** Terminal sessions that started that day. */
  readonly sessions: number
}

export interface UsageReport {
  readonly from: string
  readonly to: string
  readonly records: ReadonlyArray<UsageRecord>
  readonly totals: { readonly minutes: number; readonly sessions: number }
}

const round2 = (n: number) => Math.round(n * 100) / 100
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/

const checkDay = (field: string, value: string, first: string, last: string) => {
  if (!DAY_PATTERN.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || utcDay(Date.parse(`${value}T00:00:00Z`)) !== value) {
    throw new ValidationFailed({ field, message: `${field} must be a UTC date YYYY-MM-DD` })
  }
  if (value < first || value > last) {
    throw new ValidationFailed({ field, message: `${field} must be within the last ${USAGE_WINDOW_DAYS} days (${first} to ${last})` })
  }
}

export const usageReport = (
  storage: StorageShape,
  workspaceId: string,
  now: number,
  range: { from?: string; to?: string } = {},
): UsageReport => {
  const last = utcDay(now)
  const first = utcDay(now - (USAGE_WINDOW_DAYS - 1) * DAY_MS)
  const from = range.from ?? first
  const to = range.to ?? last
  checkDay('from', from, first, last)
  checkDay('to', to, first, last)
  if (from > to) throw new ValidationFailed({ field: 'from', message: 'from must not be after to' })

  const byDay = new Map<string, { ms: number; sessions: number }>()
  const add = (day: string, ms: number, sessions: number) => {
    const d = byDay.get(day) ?? { ms: 0, sessions: 0 }
    d.ms += ms
    d.sessions += sessions
    byDay.set(day, d)
  }
  for (const d of storage.usage.days(workspaceId, from, to)) add(d.day, d.milliseconds, d.sessions)
  for (const s of storage.usage.openSessions(workspaceId)) {
    const end = s.node === storage.origin ? now : s.checkpointAt
    for (const [day, ms] of splitByDay(s.startedAt, Math.max(s.startedAt, end))) add(day, ms, 0)
    add(utcDay(s.startedAt), 0, 1)
  }

  const records: UsageRecord[] = []
  for (let t = Date.parse(`${from}T00:00:00Z`); utcDay(t) <= to; t += DAY_MS) {
    const date = utcDay(t)
    const d = byDay.get(date)
    records.push({ date, minutes: d ? round2(d.ms / 60_000) : 0, sessions: d?.sessions ?? 0 })
  }
  return {
    from,
    to,
    records,
    totals: {
      minutes: round2(records.reduce((sum, r) => sum + r.minutes, 0)),
      sessions: records.reduce((sum, r) => sum + r.sessions, 0),
    },
  }
}
