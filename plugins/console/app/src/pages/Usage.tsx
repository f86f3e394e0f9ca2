/**
 * Usage: minutes and sessions per day over the last 90 days, drawn with uPlot, the totals, the
 * same figures as a table, and the CSV download (GET …/usage.csv, the session cookie rides along).
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import { get } from '../api'
import { DataTable, Empty, ErrorText, Link, PageTitle, useAction } from '../ui'
import type { PageProps } from './page'

interface UsageReport {
  readonly from: string
  readonly to: string
  readonly records: ReadonlyArray<{ date: string; minutes: number; sessions: number }>
  readonly totals: { minutes: number; sessions: number }
}

export const UsagePage = ({ workspace }: PageProps) => {
  const ws = workspace.workspaceId
  const [report, setReport] = useState<UsageReport | null>(null)
  const chart = useRef<HTMLDivElement>(null)
  const load = useAction()
  useEffect(() => void load.run(async () => setReport(await get<UsageReport>(`/workspaces/${ws}/usage`))), [ws])
  useEffect(() => {
    const el = chart.current
    if (!report || !el) return
    const x = report.records.map((r) => Date.parse(`${r.date}T00:00:00Z`) / 1000)
    const plot = new uPlot(
      {
        width: Math.max(320, Math.min(el.clientWidth || 880, 1100)),
        height: 300,
        scales: { x: { time: true }, minutes: { auto: true }, sessions: { auto: true } },
        axes: [
          { stroke: '#333', grid: { stroke: '#e4e4e4' } },
          { scale: 'minutes', label: 'Minutes', stroke: '#1f5fbf', grid: { stroke: '#e4e4e4' } },
          { scale: 'sessions', label: 'Sessions', side: 1, stroke: '#8a4b00', grid: { show: false } },
        ],
        series: [
          { label: 'Day' },
          { label: 'Minutes', scale: 'minutes', stroke: '#1f5fbf', fill: 'rgba(31, 95, 191, 0.12)', width: 2 },
          { label: 'Sessions', scale: 'sessions', stroke: '#8a4b00', width: 2, dash: [6, 4] },
        ],
      },
      [x, report.records.map((r) => r.minutes), report.records.map((r) => r.sessions)],
      el,
    )
    return () => plot.destroy()
  }, [report])
  return (
    <>
      <PageTitle workspace={workspace.name}>Usage</PageTitle>
      <ErrorText error={load.error} />
      {report && (
        <>
          <p>
            {report.from} to {report.to} (UTC days): <strong>{report.totals.minutes.toLocaleString()}</strong> minutes,{' '}
            <strong>{report.totals.sessions.toLocaleString()}</strong> sessions. Agents are never counted.
          </p>
          {report.totals.sessions === 0 && (
            <Empty>
              <p>
                No usage yet: minutes are counted while terminals are connected. Connect a device or an app as one of the{' '}
                <Link href={`/w/${ws}/clients`}>clients</Link> and its sessions show here.
              </p>
            </Empty>
          )}
          <figure>
            <div ref={chart} class="chart" role="img" aria-label={`Minutes and sessions per day, ${report.from} to ${report.to}`} />
            <figcaption>Minutes (solid, left axis) and sessions (dashed, right axis) per day.</figcaption>
          </figure>
          <p>
            <a href={`/api/workspaces/${ws}/usage.csv`} download>
              Download CSV
            </a>
          </p>
          <details>
            <summary>Days with usage</summary>
            <DataTable caption="Daily usage" columns={['Day', 'Minutes', 'Sessions']}>
              {report.records
                .filter((r) => r.minutes > 0 || r.sessions > 0)
                .map((r) => (
                  <tr key={r.date}>
                    <td>{r.date}</td>
                    <td>{r.minutes}</td>
                    <td>{r.sessions}</td>
                  </tr>
                ))}
            </DataTable>
          </details>
        </>
      )}
    </>
  )
}
