/**
 * Rooms and agents in the console, through the same core operations as the REST API: occupied
 * rooms with who is in them (transport, agents, default agent), one room, its default agent;
 * joining a room from the browser (an ephemeral client of kind `console` mapped to the room, and
 * where the gateway listens: the browser then speaks WebRTC to the gateway itself); agents
 * (dispatch, list, stop, and live control — say, interrupt, update — audited), the providers'
 * config schemas, and presets.
 */
import type { FastifyInstance } from 'fastify'
import { MAX_SAY_CHARS } from '../../../core/agentRuntime/agentControl.js'
import { createPreset, deletePreset, getPreset, presetView, updatePreset, type PresetValidator } from '../../../core/agentRuntime/presets.js'
import { agentId, AGENT_STATES, configObject, name, presetId, providerName, room, roomSettingsBody } from '../../../core/httpApi/fields.js'
import { getRoom, listRooms, putRoomSettings, type DefaultAgentInput } from '../../../core/operations/rooms.js'
import { createEphemeralClient } from '../../../core/operations/tokens.js'
import { agentView } from '../../../core/operations/views.js'
import { recordAudit } from '../../../core/people/audit.js'
import { actorOf, changeAuthorOf, membershipOf } from '../access.js'
import type { ConsoleServices } from '../services.js'

/** How long the ephemeral client of a browser joining a room lives (its token with it). */
export const JOIN_TTL_SECONDS = 3600
export const ROOM_PAGE_MAX = 500

const roomParams = {
  type: 'object',
  properties: { workspaceId: { type: 'string' }, room },
  required: ['workspaceId', 'room'],
  additionalProperties: false,
} as const
const withWorkspace = (key: string, schema: object) => ({
  type: 'object',
  properties: { workspaceId: { type: 'string' }, [key]: schema },
  required: ['workspaceId', key],
  additionalProperties: false,
})
const nullableObject = { ...configObject, type: ['object', 'null'] }

export const roomRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const { agents, storage, clock } = services

  app.get<{ Querystring: { limit: number; after?: string } }>(
    '/rooms',
    {
      config: { access: 'read' },
      schema: {
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: ROOM_PAGE_MAX, default: 100 }, after: room },
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const page = listRooms(services, membershipOf(request).workspaceId, request.query.after ?? null, request.query.limit)
      return { rooms: page.rooms, nextAfter: page.last }
    },
  )

  app.get<{ Params: { room: string } }>('/rooms/:room', { config: { access: 'read' }, schema: { params: roomParams } }, async (request) =>
    getRoom(services, membershipOf(request).workspaceId, request.params.room))

  app.put<{ Params: { room: string }; Body: { defaultAgent: DefaultAgentInput | null } }>(
    '/rooms/:room',
    {
      config: { access: 'operate' },
      schema: {
        params: roomParams,
        body: roomSettingsBody,
      },
    },
    async (request) => putRoomSettings(services, membershipOf(request).workspaceId, request.params.room, request.body.defaultAgent, changeAuthorOf(request)),
  )

  app.post<{ Params: { room: string } }>(
    '/rooms/:room/join',
    { config: { access: 'operate' }, schema: { params: roomParams, body: { type: 'object', additionalProperties: false } } },
    async (request, reply) => {
      const joined = await createEphemeralClient(services, membershipOf(request).workspaceId, {
        room: request.params.room,
        kind: 'console',
        ttlSeconds: Math.min(JOIN_TTL_SECONDS, services.settings.security.maxTokenTtlSeconds),
      }, changeAuthorOf(request))
      // The browser reaches the gateway on the host it reached the console on, at the gateway's port.
      return reply.code(201).send({ ...joined, gateway: { port: services.listeners.port('gateway') ?? null } })
    },
  )

  // ---- agents ----

  app.get<{ Querystring: { room?: string; state?: (typeof AGENT_STATES)[number] } }>(
    '/agents',
    {
      config: { access: 'read' },
      schema: { querystring: { type: 'object', properties: { room, state: { type: 'string', enum: [...AGENT_STATES] } }, additionalProperties: false } },
    },
    async (request) => {
      const { room: r, state } = request.query
      const list = agents.list(membershipOf(request).workspaceId, { room: r ?? null }).filter((a) => state === undefined || a.state === state)
      return { agents: list.map(agentView) }
    },
  )

  app.post<{ Body: { room: string; presetId?: string | null; overrides?: Record<string, unknown> | null } }>(
    '/agents',
    {
      config: { access: 'operate' },
      schema: {
        body: {
          type: 'object',
          properties: { room, presetId: { ...presetId, type: ['string', 'null'] }, overrides: nullableObject },
          required: ['room'],
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      const b = request.body
      const view = await agents.dispatch(membershipOf(request).workspaceId, b.room, { presetId: b.presetId ?? null, overrides: b.overrides ?? null })
      return reply.code(201).send(agentView(view))
    },
  )

  app.delete<{ Params: { agentId: string } }>(
    '/agents/:agentId',
    { config: { access: 'operate' }, schema: { params: withWorkspace('agentId', agentId) } },
    async (request) => agentView(await agents.stop(membershipOf(request).workspaceId, request.params.agentId)),
  )

  // Live control, as the REST API's (spec/agents.md), audited: who made an agent say, stop or change what.
  app.post<{ Params: { agentId: string }; Body: { text: string; interrupt?: boolean } }>(
    '/agents/:agentId/say',
    {
      config: { access: 'operate' },
      schema: {
        params: withWorkspace('agentId', agentId),
        body: {
          type: 'object',
          properties: { text: { type: 'string', minLength: 1, maxLength: MAX_SAY_CHARS }, interrupt: { type: 'boolean' } },
          required: ['text'],
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      const { workspaceId } = membershipOf(request)
      const { text, interrupt = false } = request.body
      const view = await agents.control(workspaceId, request.params.agentId, { op: 'say', text, interrupt })
      recordAudit(storage, clock, actorOf(request), { action: 'agent.said', workspaceId, target: view.agentId, detail: { chars: text.length, interrupt } })
      return reply.code(202).send({ agentId: view.agentId, accepted: true })
    },
  )

  app.post<{ Params: { agentId: string } }>(
    '/agents/:agentId/interrupt',
    { config: { access: 'operate' }, schema: { params: withWorkspace('agentId', agentId) } },
    async (request) => {
      const { workspaceId } = membershipOf(request)
      const view = await agents.control(workspaceId, request.params.agentId, { op: 'interrupt' })
      recordAudit(storage, clock, actorOf(request), { action: 'agent.interrupted', workspaceId, target: view.agentId })
      return agentView(view)
    },
  )

  app.patch<{ Params: { agentId: string }; Body: { instructions?: string; tools?: Record<string, string[]> } }>(
    '/agents/:agentId',
    {
      config: { access: 'operate' },
      schema: {
        params: withWorkspace('agentId', agentId),
        body: {
          type: 'object',
          properties: {
            instructions: { type: 'string', minLength: 1, maxLength: 16_000 },
            tools: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 64 } },
          },
          minProperties: 1,
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const { workspaceId } = membershipOf(request)
      const { instructions, tools } = request.body
      const view = await agents.control(workspaceId, request.params.agentId, {
        op: 'update',
        ...(instructions !== undefined ? { instructions } : {}),
        ...(tools !== undefined ? { tools } : {}),
      })
      recordAudit(storage, clock, actorOf(request), {
        action: 'agent.updated',
        workspaceId,
        target: view.agentId,
        detail: { instructions: instructions !== undefined, tools: tools === undefined ? null : JSON.stringify(tools).slice(0, 500) },
      })
      return agentView(view)
    },
  )

  // The default provider: what a dispatch without a preset runs (the page's overrides hint follows it).
  app.get('/agent-providers', { config: { access: 'read' } }, async () => ({ providers: agents.providers(), defaultProvider: services.settings.agents.defaultProvider }))

  // ---- presets ----

  const validate: PresetValidator = (provider, config) => void agents.validatePreset(provider, config)
  const presetParams = { schema: { params: withWorkspace('presetId', presetId) } }

  app.get('/agent-presets', { config: { access: 'read' } }, async (request) => ({
    presets: storage.agentPresets.list(membershipOf(request).workspaceId, { after: '', limit: 1000 }).map(presetView),
  }))

  app.post<{ Body: { presetId: string; name?: string | null; provider: string; config?: Record<string, unknown> | null } }>(
    '/agent-presets',
    {
      config: { access: 'operate' },
      schema: {
        body: {
          type: 'object',
          properties: { presetId, name: { ...name, type: ['string', 'null'] }, provider: providerName, config: nullableObject },
          required: ['presetId', 'provider'],
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => reply.code(201).send(createPreset(storage, validate, membershipOf(request).workspaceId, request.body, clock.now())),
  )

  app.get<{ Params: { presetId: string } }>('/agent-presets/:presetId', { config: { access: 'read' }, ...presetParams }, async (request) =>
    getPreset(storage, membershipOf(request).workspaceId, request.params.presetId))

  app.patch<{ Params: { presetId: string }; Body: { name?: string | null; provider?: string; config?: Record<string, unknown> } }>(
    '/agent-presets/:presetId',
    {
      config: { access: 'operate' },
      schema: {
        params: withWorkspace('presetId', presetId),
        body: {
          type: 'object',
          properties: { name: { ...name, type: ['string', 'null'] }, provider: providerName, config: configObject },
          minProperties: 1,
          additionalProperties: false,
        },
      },
    },
    async (request) => updatePreset(storage, validate, membershipOf(request).workspaceId, request.params.presetId, request.body, clock.now()),
  )

  app.delete<{ Params: { presetId: string } }>('/agent-presets/:presetId', { config: { access: 'operate' }, ...presetParams }, async (request) =>
    deletePreset(storage, membershipOf(request).workspaceId, request.params.presetId))
}
