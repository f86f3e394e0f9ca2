/**
 * Usage over REST: daily metered minutes and sessions of the caller's workspace for the last 90
 * days (or a from/to range inside them), with totals equal to the sum of the records. The same
 * report as `hark usage`; definitions in spec/usage.md.
 */
import type { FastifyInstance } from 'fastify'
import type { RestServices } from './services.js'
import { USAGE_WINDOW_DAYS, usageReport } from '../../core/usage/report.js'
import { principalOf } from './auth.js'
import { errorResponses } from './schemas.js'

const day = (description: string) =>
  ({ type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description }) as const

export const usageRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  app.get<{ Querystring: { from?: string; to?: string } }>(
    '/usage',
    {
      schema: {
        operationId: 'getUsage',
        summary: 'Read daily usage',
        description:
          `One record per UTC day for the last ${USAGE_WINDOW_DAYS} days (today included), or for from..to inside ` +
          'them, and totals that are the sum of the records. Minutes are connected terminal time, two decimals; ' +
          'a session is counted on the day it started, its time split across the days it spans; live sessions ' +
          'are included up to now. AI agents never count. See spec/usage.md.',
        tags: ['usage'],
        querystring: {
          type: 'object',
          properties: {
            from: day(`First UTC day (YYYY-MM-DD), within the last ${USAGE_WINDOW_DAYS} days; default the oldest.`),
            to: day('Last UTC day (YYYY-MM-DD), not after today; default today.'),
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'Daily records and totals.',
            type: 'object',
            properties: {
              records: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    date: { type: 'string', format: 'date', description: 'UTC day.' },
                    minutes: { type: 'number', minimum: 0, description: 'Connected terminal minutes that day, two decimals.' },
                    sessions: { type: 'integer', minimum: 0, description: 'Terminal sessions that started that day.' },
                  },
                  required: ['date', 'minutes', 'sessions'],
                  additionalProperties: false,
                },
              },
              totals: {
                type: 'object',
                properties: { minutes: { type: 'number', minimum: 0 }, sessions: { type: 'integer', minimum: 0 } },
                required: ['minutes', 'sessions'],
                additionalProperties: false,
              },
            },
            required: ['records', 'totals'],
            additionalProperties: false,
          },
          ...errorResponses(400),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const report = usageReport(host.storage, workspaceId, host.clock.now(), request.query)
      return { records: report.records, totals: report.totals }
    },
  )
}
