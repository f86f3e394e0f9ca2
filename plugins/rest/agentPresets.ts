/**
 * /api/v1/agent-presets: a workspace's saved agents — list (presetId order, cursor pagination),
 * create, read, update, delete. A config is checked against its provider's schema when written
 * (unknown or secret fields are a 400). Running agents keep the config they started with.
 */
import type { FastifyInstance } from 'fastify'
import { createPreset, deletePreset, getPreset, presetView, updatePreset, type PresetValidator } from '../../core/agentRuntime/presets.js'
import type { PresetRecordSetting } from '../../core/storage/agentPresets.js'
import type { RestServices } from './services.js'
import { principalOf } from './auth.js'
import { configObject, presetId, presetRecord, providerName } from './agentSchemas.js'
import { bodyErrors, errorResponses, name } from './schemas.js'

export const PRESET_LIST_LIMIT_DEFAULT = 50
export const PRESET_LIST_LIMIT_MAX = 200

interface ListQuery {
  limit: number
  cursor?: string
}
interface CreateBody {
  presetId: string
  name?: string | null
  provider: string
  config?: Record<string, unknown> | null
  record?: PresetRecordSetting | null
}
interface UpdateBody {
  name?: string | null
  provider?: string
  config?: Record<string, unknown>
  record?: PresetRecordSetting | null
}
interface PresetParams {
  presetId: string
}

const presetParams = {
  type: 'object',
  properties: { presetId },
  required: ['presetId'],
  additionalProperties: false,
} as const

export const agentPresetRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  const { storage, clock, agents } = host
  const validate: PresetValidator = (provider, config) => void agents.validatePreset(provider, config)

  app.get<{ Querystring: ListQuery }>(
    '/agent-presets',
    {
      schema: {
        operationId: 'listAgentPresets',
        summary: 'List agent presets',
        description: 'Presets in ascending presetId order. Pass nextCursor back as cursor for the next page; null on the last.',
        tags: ['agent-presets'],
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: PRESET_LIST_LIMIT_MAX, default: PRESET_LIST_LIMIT_DEFAULT },
            cursor: { ...presetId, description: 'nextCursor of the previous page.' },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'A page of presets.',
            type: 'object',
            properties: {
              presets: { type: 'array', items: { $ref: 'AgentPreset#' } },
              nextCursor: { type: ['string', 'null'] },
            },
            required: ['presets', 'nextCursor'],
            additionalProperties: false,
          },
          ...errorResponses(400),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const { limit, cursor } = request.query
      const rows = storage.agentPresets.list(workspaceId, { after: cursor ?? '', limit: limit + 1 })
      const more = rows.length > limit
      const presets = (more ? rows.slice(0, limit) : rows).map(presetView)
      return { presets, nextCursor: more ? presets[presets.length - 1]!.presetId : null }
    },
  )

  app.post<{ Body: CreateBody }>(
    '/agent-presets',
    {
      schema: {
        operationId: 'createAgentPreset',
        summary: 'Create an agent preset',
        description: "Saves an agent: a provider and a config checked against the provider's schema.",
        tags: ['agent-presets'],
        body: {
          type: 'object',
          properties: {
            presetId: { ...presetId, description: 'Chosen by the caller; "default" is reserved.' },
            name: { ...name, type: ['string', 'null'] },
            provider: providerName,
            config: { ...configObject, type: ['object', 'null'] },
            record: presetRecord,
          },
          required: ['presetId', 'provider'],
          additionalProperties: false,
        },
        response: { 201: { description: 'The created preset.', $ref: 'AgentPreset#' }, ...errorResponses(...bodyErrors, 409) },
      },
    },
    async (request, reply) => {
      const { workspaceId } = principalOf(request)
      const view = createPreset(storage, validate, workspaceId, request.body, clock.now())
      return reply.code(201).send(view)
    },
  )

  app.get<{ Params: PresetParams }>(
    '/agent-presets/:presetId',
    {
      schema: {
        operationId: 'getAgentPreset',
        summary: 'Agent preset detail',
        tags: ['agent-presets'],
        params: presetParams,
        response: { 200: { description: 'The preset.', $ref: 'AgentPreset#' }, ...errorResponses(400, 404) },
      },
    },
    async (request) => getPreset(storage, principalOf(request).workspaceId, request.params.presetId),
  )

  app.patch<{ Params: PresetParams; Body: UpdateBody }>(
    '/agent-presets/:presetId',
    {
      schema: {
        operationId: 'updateAgentPreset',
        summary: 'Update an agent preset',
        description: 'Sets the fields present; config replaces the whole config, record: null stops recording. A new provider or config is checked again.',
        tags: ['agent-presets'],
        params: presetParams,
        body: {
          type: 'object',
          properties: { name: { ...name, type: ['string', 'null'] }, provider: providerName, config: configObject, record: presetRecord },
          minProperties: 1,
          additionalProperties: false,
        },
        response: { 200: { description: 'The updated preset.', $ref: 'AgentPreset#' }, ...errorResponses(...bodyErrors, 404) },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      return updatePreset(storage, validate, workspaceId, request.params.presetId, request.body, clock.now())
    },
  )

  app.delete<{ Params: PresetParams }>(
    '/agent-presets/:presetId',
    {
      schema: {
        operationId: 'deleteAgentPreset',
        summary: 'Delete an agent preset',
        description: 'Running agents started from it carry on; a room default agent naming it is skipped from then on.',
        tags: ['agent-presets'],
        params: presetParams,
        response: {
          200: {
            description: 'Deletion result.',
            type: 'object',
            properties: { presetId: { type: 'string' }, deleted: { type: 'boolean', const: true } },
            required: ['presetId', 'deleted'],
            additionalProperties: false,
          },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => deletePreset(storage, principalOf(request).workspaceId, request.params.presetId),
  )
}
