/**
 * Live control of a running agent: `POST /agents/{id}/say` (speak text now, or after the current
 * reply), `POST /agents/{id}/interrupt` (stop what it is saying), `PATCH /agents/{id}` (new
 * instructions and tool permissions for the turns that follow). What a provider cannot do answers
 * 409 `not_supported`; in a cluster, control is carried out on the node that runs the agent, and
 * an agent on a node that cannot be reached is 409 `agent_elsewhere`. Rules:
 * spec/agents.md, "Live control".
 */
import type { FastifyInstance } from 'fastify'
import { MAX_SAY_CHARS } from '../../core/agentRuntime/agentControl.js'
import type { ToolPermissions } from '../../core/agentRuntime/toolConfig.js'
import { agentView } from '../../core/operations/views.js'
import { principalOf } from './auth.js'
import { agentId } from './agentSchemas.js'
import { bodyErrors, errorResponses } from './schemas.js'
import type { RestServices } from './services.js'

interface AgentParams {
  agentId: string
}

const agentParams = { type: 'object', properties: { agentId }, required: ['agentId'], additionalProperties: false } as const

const conflicts =
  '409 not_supported: the agent’s provider cannot do this (the message says which operation); conflict: the agent is not running; ' +
  'agent_elsewhere: in a cluster, the agent is not on this node and a node where it may run cannot be reached (the message names it); otherwise control is forwarded to the node that runs the agent.'

/** The body fields of PATCH /agents/{id}, shared with the console. */
export const agentUpdateProperties = {
  instructions: { type: 'string', minLength: 1, maxLength: 16_000, description: 'New system instructions, from the next turn on.' },
  tools: {
    type: 'object',
    description:
      'New tool permissions (replacing the old ones whole): allow-lists per source with * wildcards, as in a preset config; {} allows no tool. ' +
      'Checked against the provider’s config schema (an unknown source is refused).',
    additionalProperties: { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 64 },
  },
} as const

export const sayProperties = {
  text: { type: 'string', minLength: 1, maxLength: MAX_SAY_CHARS, description: 'What the agent says, as is.' },
  interrupt: { type: 'boolean', default: false, description: 'Cut the current reply first (true), or speak after it (false).' },
} as const

const accepted = {
  type: 'object',
  properties: { agentId: { type: 'string' }, accepted: { type: 'boolean', const: true } },
  required: ['agentId', 'accepted'],
  additionalProperties: false,
} as const

export const agentControlRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  const { agents } = host

  app.post<{ Params: AgentParams; Body: { text: string; interrupt?: boolean } }>(
    '/agents/:agentId/say',
    {
      schema: {
        operationId: 'agentSay',
        summary: 'Make a running agent say something',
        description:
          'The agent speaks `text` as its own turn: members hear its audio, then `agent.event {kind: "transcript", role: "agent", text}`. ' +
          'With `interrupt: true` the current reply is cut first, as a barge-in; otherwise the text waits for the current reply to end. ' +
          'Answers once the request is accepted, before the audio plays. ' + conflicts,
        tags: ['agents'],
        params: agentParams,
        body: { type: 'object', properties: sayProperties, required: ['text'], additionalProperties: false },
        response: { 202: { description: 'Accepted: the agent says it now or after its current reply.', ...accepted }, ...errorResponses(...bodyErrors, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { workspaceId } = principalOf(request)
      const b = request.body
      const view = await agents.control(workspaceId, request.params.agentId, { op: 'say', text: b.text, interrupt: b.interrupt ?? false })
      return reply.code(202).send({ agentId: view.agentId, accepted: true })
    },
  )

  app.post<{ Params: AgentParams }>(
    '/agents/:agentId/interrupt',
    {
      schema: {
        operationId: 'interruptAgent',
        summary: 'Stop what a running agent is saying',
        description:
          'Cuts the reply being spoken (members get `agent.event {kind: "interrupted"}` and the transcript of what they heard, ' +
          '`truncated: true`), drops a reply being prepared and text waiting to be said. An agent saying nothing is left as it is. ' + conflicts,
        tags: ['agents'],
        params: agentParams,
        response: { 200: { description: 'Done.', $ref: 'Agent#' }, ...errorResponses(400, 404, 409, 503) },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      return agentView(await agents.control(workspaceId, request.params.agentId, { op: 'interrupt' }))
    },
  )

  app.patch<{ Params: AgentParams; Body: { instructions?: string; tools?: ToolPermissions } }>(
    '/agents/:agentId',
    {
      schema: {
        operationId: 'updateAgent',
        summary: 'Change a running agent’s instructions and tool permissions',
        description:
          'Merges `instructions` and `tools` over the running agent’s config and checks the result against its provider’s schema (400 as ' +
          'for dispatch overrides); the turns that follow use them. The preset is not changed. At least one field. ' + conflicts,
        tags: ['agents'],
        params: agentParams,
        body: { type: 'object', properties: agentUpdateProperties, minProperties: 1, additionalProperties: false },
        response: { 200: { description: 'The agent, updated.', $ref: 'Agent#' }, ...errorResponses(...bodyErrors, 404, 409, 503) },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const b = request.body
      const view = await agents.control(workspaceId, request.params.agentId, {
        op: 'update',
        ...(b.instructions !== undefined ? { instructions: b.instructions } : {}),
        ...(b.tools !== undefined ? { tools: b.tools } : {}),
      })
      return agentView(view)
    },
  )
}
