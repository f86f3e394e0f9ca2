/**
 * Usage in the console: the same daily report as GET /api/v1/usage and `hark usage` (the last 90
 * days, minutes and sessions, totals), as JSON for the chart and as CSV to download.
 */
import type { FastifyInstance } from 'fastify'
import { usageReport } from '../../../core/usage/report.js'
import { membershipOf } from '../access.js'
import type { ConsoleServices } from '../services.js'

const range = {
  type: 'object',
  properties: { from: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, to: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } },
  additionalProperties: false,
} as const

export const usageRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const report = (workspaceId: string, q: { from?: string; to?: string }) => usageReport(services.storage, workspaceId, services.clock.now(), q)

  app.get<{ Querystring: { from?: string; to?: string } }>('/usage', { config: { access: 'read' }, schema: { querystring: range } }, async (request) => {
    const r = report(membershipOf(request).workspaceId, request.query)
    return { from: r.from, to: r.to, records: r.records, totals: r.totals }
  })

  app.get<{ Querystring: { from?: string; to?: string } }>('/usage.csv', { config: { access: 'read' }, schema: { querystring: range } }, async (request, reply) => {
    const { workspaceId } = membershipOf(request)
    const r = report(workspaceId, request.query)
    const lines = ['date,minutes,sessions', ...r.records.map((d) => `${d.date},${d.minutes},${d.sessions}`), `total,${r.totals.minutes},${r.totals.sessions}`]
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="hark-usage-${workspaceId}-${r.from}-${r.to}.csv"`)
      .send(lines.join('\r\n') + '\r\n')
  })
}
