/**
 * /api/v1/agents: dispatch an agent into a room (answers once it runs), list a workspace's agents
 * (filter by room and state), read one with its state, stop one (answers once it left its room);
 * and /api/v1/agent-providers: the registered providers with the JSON Schema of their config.
 * Another workspace's agent is a 404 like a missing one. Rules: spec/agents.md.
 */
import type { FastifyInstance } from 'fastify'
import type { RestServices } from './services.js'
import { NotFound } from '../../core/errors.js'
import { principalOf } from './auth.js'
import { agentId, AGENT_STATES, configObject, presetId } from './agentSchemas.js'
import { agentView } from '../../core/operations/views.js'
import { bodyErrors, errorResponses, room } from './schemas.js'

interface DispatchBody {
  room: string
  presetId?: string | null
  overrides?: Record<string, unknown> | null
}
interface AgentParams {
  agentId: string
}
interface ListQuery {
  room?: string
  state?: (typeof AGENT_STATES)[number]
}

const agentParams = {
  type: 'object',
  properties: { agentId },
  required: ['agentId'],
  additionalProperties: false,
} as const

export const agentRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  const { agents } = host

  app.post<{ Body: DispatchBody }>(
    '/agents',
    {
      schema: {
        operationId: 'dispatchAgent',
        summary: 'Dispatch an agent into a room',
        description:
          'Starts an agent from a preset (or, without presetId, the platform default) with overrides merged over ' +
          "its config and checked against the provider's schema, and answers once it has joined the room. A " +
          'provider that fails to start answers 502 with the reason; the failed agent stays readable.',
        tags: ['agents'],
        body: {
          type: 'object',
          properties: {
            room,
            presetId: { ...presetId, type: ['string', 'null'], description: 'A saved agent of the workspace; omitted or null: the platform default.' },
            overrides: { ...configObject, type: ['object', 'null'] },
          },
          required: ['room'],
          additionalProperties: false,
        },
        response: {
          201: { description: 'The agent, running in the room.', $ref: 'Agent#' },
          ...errorResponses(...bodyErrors, 404, 409, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const { workspaceId } = principalOf(request)
      const b = request.body
      const view = await agents.dispatch(workspaceId, b.room, { presetId: b.presetId ?? null, overrides: b.overrides ?? null })
      return reply.code(201).send(agentView(view))
    },
  )

  app.get<{ Querystring: ListQuery }>(
    '/agents',
    {
      schema: {
        operationId: 'listAgents',
        summary: 'List agents',
        description:
          'Agents of the workspace, newest first: running ones, and ended ones for 10 minutes (at most 200). ' +
          'Filters combine with AND. In a cluster, the agents of every node; 503 cluster_unavailable when a node does not answer.',
        tags: ['agents'],
        querystring: {
          type: 'object',
          properties: {
            room: { ...room, description: 'Only agents of this room.' },
            state: { type: 'string', enum: [...AGENT_STATES], description: 'Only agents in this state.' },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'The agents.',
            type: 'object',
            properties: { agents: { type: 'array', items: { $ref: 'Agent#' } } },
            required: ['agents'],
            additionalProperties: false,
          },
          ...errorResponses(400, 503),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const { room: r, state } = request.query
      const list = (await agents.listAll(workspaceId, { room: r ?? null })).filter((a) => state === undefined || a.state === state)
      return { agents: list.map(agentView) }
    },
  )

  app.get<{ Params: AgentParams }>(
    '/agents/:agentId',
    {
      schema: {
        operationId: 'getAgent',
        summary: 'Agent detail with state',
        tags: ['agents'],
        params: agentParams,
        response: { 200: { description: 'The agent.', $ref: 'Agent#' }, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const view = await agents.find(workspaceId, request.params.agentId)
      if (!view) throw new NotFound({ message: `no agent ${request.params.agentId} in this workspace` })
      return agentView(view)
    },
  )

  app.delete<{ Params: AgentParams }>(
    '/agents/:agentId',
    {
      schema: {
        operationId: 'stopAgent',
        summary: 'Stop an agent',
        description:
          'Stops the agent and answers once it has left its room (members got participant.left and agent.stopped). ' +
          'Stopping an agent that already ended answers the same.',
        tags: ['agents'],
        params: agentParams,
        response: {
          200: {
            description: 'The agent is stopped.',
            type: 'object',
            properties: {
              agentId: { type: 'string' },
              stopped: { type: 'boolean', const: true },
              state: { type: 'string', enum: ['stopped', 'failed'], description: 'failed when it had failed before.' },
              reason: { type: 'string' },
            },
            required: ['agentId', 'stopped', 'state', 'reason'],
            additionalProperties: false,
          },
          ...errorResponses(400, 404, 503),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const view = await agents.stopAnywhere(workspaceId, request.params.agentId)
      return { agentId: view.agentId, stopped: true, state: view.state, reason: view.reason ?? 'stopped' }
    },
  )

  app.get(
    '/agent-providers',
    {
      schema: {
        operationId: 'listAgentProviders',
        summary: 'Agent providers and their config schemas',
        description: 'What a preset config and dispatch overrides may hold, per provider (JSON Schema draft 2020-12).',
        tags: ['agents'],
        response: {
          200: {
            description: 'The registered providers.',
            type: 'object',
            properties: {
              providers: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string' },
                    description: { type: ['string', 'null'] },
                    configSchema: { type: 'object', additionalProperties: true },
                  },
                  required: ['name', 'description', 'configSchema'],
                  additionalProperties: false,
                },
              },
            },
            required: ['providers'],
            additionalProperties: false,
          },
          ...errorResponses(),
        },
      },
    },
    async () => ({ providers: agents.providers() }),
  )
}
