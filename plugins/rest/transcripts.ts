/**
 * Agents' conversations: GET /api/v1/agents/{agentId}/transcript (the turns in order, paged; the
 * agent may have ended long ago), GET /api/v1/transcripts (find conversations by room, terminal
 * and time), DELETE /api/v1/agents/{agentId}/transcript (erasure, audited). Another workspace's
 * transcript is a 404 like a missing one. Rules: spec/records.md.
 */
import type { FastifyInstance } from 'fastify'
import {
  eraseTranscript, findTranscripts, readTranscript, TRANSCRIPT_CURSOR_PATTERN, TRANSCRIPTS_LIMIT_DEFAULT, TRANSCRIPTS_LIMIT_MAX,
  TURNS_LIMIT_DEFAULT, TURNS_LIMIT_MAX,
} from '../../core/transcripts/operations.js'
import { TOOL_CALL_SCHEMA } from '../../core/webhooks/events.js'
import type { RestServices } from './services.js'
import { principalOf } from './auth.js'
import { agentId } from './agentSchemas.js'
import { anyClientId, errorResponses, room } from './schemas.js'

const time = { type: 'string', format: 'date-time' } as const
const timeOrNull = { type: ['string', 'null'], format: 'date-time' } as const
const strOrNull = { type: ['string', 'null'] } as const
const cursor = { type: 'string', pattern: TRANSCRIPT_CURSOR_PATTERN, description: 'nextCursor of the previous page.' } as const

const transcriptProperties = {
  agentId: { type: 'string' },
  room: { type: 'string' },
  identity: { type: 'string', description: 'The agent in the room: agent@<presetId>, or agent@default.' },
  provider: { type: 'string' },
  presetId: strOrNull,
  startedAt: time,
  endedAt: { ...timeOrNull, description: 'null while the agent runs.' },
  turns: { type: 'integer', minimum: 0, description: 'Turns recorded so far.' },
} as const

export const transcriptSchemas = [
  {
    $id: 'Transcript',
    description: 'An agent run’s conversation, without its turns.',
    type: 'object',
    properties: transcriptProperties,
    required: Object.keys(transcriptProperties),
    additionalProperties: false,
  },
  {
    $id: 'TranscriptTurn',
    description: 'One turn: speech (a terminal, the room or the agent) or a tool call of the agent.',
    type: 'object',
    properties: {
      seq: { type: 'integer', minimum: 1, description: 'Its place in the conversation (1, 2, 3 …).' },
      kind: { type: 'string', enum: ['speech', 'tool_call'] },
      role: { type: 'string', enum: ['user', 'agent'] },
      speaker: { type: 'string', description: 'The agent’s identity, a terminal’s client id, or room (mixed input of several terminals).' },
      clientId: { ...strOrNull, description: 'The terminal that spoke, when known.' },
      text: { ...strOrNull, description: 'What was said (a cut reply: what the room heard); null without text (echo, tool calls).' },
      startedAt: time,
      endedAt: time,
      interrupted: { type: 'boolean', description: 'An agent reply cut by a barge-in.' },
      interruptedBy: { ...strOrNull, description: 'The terminal that talked over it, when known.' },
      tool: { ...TOOL_CALL_SCHEMA, type: ['object', 'null'], description: 'The call, for kind tool_call.' },
    },
    required: ['seq', 'kind', 'role', 'speaker', 'clientId', 'text', 'startedAt', 'endedAt', 'interrupted', 'interruptedBy', 'tool'],
    additionalProperties: false,
  },
]

const agentParams = { type: 'object', properties: { agentId }, required: ['agentId'], additionalProperties: false } as const

export const transcriptRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  const { storage, clock } = host

  app.get<{ Params: { agentId: string }; Querystring: { cursor?: string; limit: number } }>(
    '/agents/:agentId/transcript',
    {
      schema: {
        operationId: 'getAgentTranscript',
        summary: 'An agent’s conversation, turn by turn',
        description:
          'The turns in order, written as the conversation goes (the turn in progress is not there yet); readable while the ' +
          'agent runs and after it ended, until erased or past agents.transcriptRetentionDays. Pass nextCursor back as ' +
          'cursor for the next page; it is null on the last page (of the turns so far).',
        tags: ['transcripts'],
        params: agentParams,
        querystring: {
          type: 'object',
          properties: { cursor, limit: { type: 'integer', minimum: 1, maximum: TURNS_LIMIT_MAX, default: TURNS_LIMIT_DEFAULT } },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'The conversation and a page of its turns.',
            type: 'object',
            properties: {
              ...transcriptProperties,
              textHidden: { type: 'boolean', description: 'Always false here (a console viewer gets true: text and tool calls withheld).' },
              items: { type: 'array', items: { $ref: 'TranscriptTurn#' } },
              nextCursor: strOrNull,
            },
            required: [...Object.keys(transcriptProperties), 'textHidden', 'items', 'nextCursor'],
            additionalProperties: false,
          },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => readTranscript(storage, principalOf(request).workspaceId, request.params.agentId, request.query, true),
  )

  app.delete<{ Params: { agentId: string } }>(
    '/agents/:agentId/transcript',
    {
      schema: {
        operationId: 'deleteAgentTranscript',
        summary: 'Erase an agent’s conversation',
        description:
          'Deletes the conversation and every turn of it, and writes an audit entry (transcript.deleted, by this API key). ' +
          'A running agent’s later turns start a conversation again. Webhooks already delivered are not recalled.',
        tags: ['transcripts'],
        params: agentParams,
        response: {
          200: {
            description: 'Erased.',
            type: 'object',
            properties: { agentId: { type: 'string' }, deleted: { type: 'boolean', const: true } },
            required: ['agentId', 'deleted'],
            additionalProperties: false,
          },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const { workspaceId, keyId } = principalOf(request)
      return eraseTranscript(storage, clock, { userId: null, label: `api key ${keyId}`, ip: request.ip }, workspaceId, request.params.agentId)
    },
  )

  app.get<{ Querystring: { room?: string; clientId?: string; from?: string; to?: string; cursor?: string; limit: number } }>(
    '/transcripts',
    {
      schema: {
        operationId: 'listTranscripts',
        summary: 'Find conversations',
        description:
          'Conversations of the workspace, newest first. Filters combine with AND: room; clientId (a terminal that spoke in ' +
          'it, as its turns name it); from/to (it started at or after from, before to; ISO 8601 with a time zone).',
        tags: ['transcripts'],
        querystring: {
          type: 'object',
          properties: {
            room: { ...room, description: 'Only conversations in this room.' },
            clientId: { ...anyClientId, description: 'Only conversations where this terminal spoke.' },
            from: { type: 'string', maxLength: 40, description: 'Started at or after (ISO 8601 date-time).' },
            to: { type: 'string', maxLength: 40, description: 'Started before (ISO 8601 date-time).' },
            cursor,
            limit: { type: 'integer', minimum: 1, maximum: TRANSCRIPTS_LIMIT_MAX, default: TRANSCRIPTS_LIMIT_DEFAULT },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'A page of conversations.',
            type: 'object',
            properties: { items: { type: 'array', items: { $ref: 'Transcript#' } }, nextCursor: strOrNull },
            required: ['items', 'nextCursor'],
            additionalProperties: false,
          },
          ...errorResponses(400),
        },
      },
    },
    async (request) => findTranscripts(storage, principalOf(request).workspaceId, request.query),
  )
}
