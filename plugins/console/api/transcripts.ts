/**
 * Agents' conversations in the console, through the same core operations as the REST API: one
 * agent's transcript, finding conversations, erasure. Admins and developers read the text (each
 * full-text read is an audit entry, `transcript.read`) and erase (`transcript.deleted`); a viewer
 * gets the same answers with the text and tool calls withheld (spec/records.md).
 */
import type { FastifyInstance } from 'fastify'
import { agentId, anyClientId, room } from '../../../core/httpApi/fields.js'
import { recordAudit } from '../../../core/people/audit.js'
import { allows } from '../../../core/people/roles.js'
import {
  eraseTranscript, findTranscripts, readTranscript, TRANSCRIPT_CURSOR_PATTERN, TRANSCRIPTS_LIMIT_DEFAULT, TRANSCRIPTS_LIMIT_MAX,
  TURNS_LIMIT_DEFAULT, TURNS_LIMIT_MAX,
} from '../../../core/transcripts/operations.js'
import { actorOf, membershipOf } from '../access.js'
import type { ConsoleServices } from '../services.js'

const agentParams = {
  type: 'object',
  properties: { workspaceId: { type: 'string' }, agentId },
  required: ['workspaceId', 'agentId'],
  additionalProperties: false,
} as const
const cursor = { type: 'string', pattern: TRANSCRIPT_CURSOR_PATTERN } as const

export const transcriptRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const { storage, clock } = services

  app.get<{ Params: { agentId: string }; Querystring: { cursor?: string; limit: number } }>(
    '/agents/:agentId/transcript',
    {
      config: { access: 'read' },
      schema: {
        params: agentParams,
        querystring: {
          type: 'object',
          properties: { cursor, limit: { type: 'integer', minimum: 1, maximum: TURNS_LIMIT_MAX, default: TURNS_LIMIT_DEFAULT } },
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const { workspaceId, role } = membershipOf(request)
      const withText = allows(role, 'operate')
      const page = readTranscript(storage, workspaceId, request.params.agentId, request.query, withText)
      if (withText) recordAudit(storage, clock, actorOf(request), { action: 'transcript.read', workspaceId, target: request.params.agentId, detail: { turns: page.items.length } })
      return page
    },
  )

  app.delete<{ Params: { agentId: string } }>(
    '/agents/:agentId/transcript',
    { config: { access: 'operate' }, schema: { params: agentParams } },
    async (request) => eraseTranscript(storage, clock, actorOf(request), membershipOf(request).workspaceId, request.params.agentId),
  )

  app.get<{ Querystring: { room?: string; clientId?: string; from?: string; to?: string; cursor?: string; limit: number } }>(
    '/transcripts',
    {
      config: { access: 'read' },
      schema: {
        querystring: {
          type: 'object',
          properties: {
            room,
            clientId: anyClientId,
            from: { type: 'string', maxLength: 40 },
            to: { type: 'string', maxLength: 40 },
            cursor,
            limit: { type: 'integer', minimum: 1, maximum: TRANSCRIPTS_LIMIT_MAX, default: TRANSCRIPTS_LIMIT_DEFAULT },
          },
          additionalProperties: false,
        },
      },
    },
    async (request) => findTranscripts(storage, membershipOf(request).workspaceId, request.query),
  )
}
