/**
 * /api/v1/rooms/{room}: a room's settings — so far its default agent — and who is in it now.
 * PUT validates the default agent like a dispatch (the preset must exist, overrides must fit the
 * provider's schema) and records a `room.updated` change, which starts, swaps or stops the room's
 * default agent at once when terminals are in the room. Rules: spec/agents.md.
 */
import type { FastifyInstance } from 'fastify'
import type { EngineHost } from '../../core/host.js'
import type { DefaultAgentSetting } from '../../core/storage/roomSettings.js'
import { principalOf } from './auth.js'
import { configObject, presetId } from './agentSchemas.js'
import { agentView } from './agentView.js'
import { bodyErrors, errorResponses, room } from './schemas.js'

interface RoomParams {
  room: string
}
interface PutBody {
  defaultAgent: { presetId?: string | null; overrides?: Record<string, unknown> | null; stopDelaySeconds?: number | null } | null
}

const roomParams = {
  type: 'object',
  properties: { room },
  required: ['room'],
  additionalProperties: false,
} as const

export const roomRoutes = (host: EngineHost) => async (app: FastifyInstance) => {
  const { storage, terminals, agents, clock } = host

  const view = (workspaceId: string, r: string) => ({
    room: r,
    defaultAgent: storage.roomSettings.get(workspaceId, r)?.defaultAgent ?? null,
    participants: (terminals.roomView(workspaceId, r)?.participants ?? []).map((p) => ({
      id: p.id, kind: p.kind, name: p.name, sourceId: p.sourceId, transport: p.transport,
    })),
    agents: agents.list(workspaceId, { room: r, live: true }).map(agentView),
  })

  app.get<{ Params: RoomParams }>(
    '/rooms/:room',
    {
      schema: {
        operationId: 'getRoom',
        summary: 'Room settings and participants',
        description: 'Any room name answers: a room without settings or members has defaultAgent null and no participants.',
        tags: ['rooms'],
        params: roomParams,
        response: { 200: { description: 'The room.', $ref: 'Room#' }, ...errorResponses(400) },
      },
    },
    async (request) => view(principalOf(request).workspaceId, request.params.room),
  )

  app.put<{ Params: RoomParams; Body: PutBody }>(
    '/rooms/:room',
    {
      schema: {
        operationId: 'putRoom',
        summary: 'Set room settings',
        description:
          'Sets the room default agent (null clears it): dispatched when the first terminal joins, stopped ' +
          'stopDelaySeconds after the last one leaves. Applies at once to an occupied room.',
        tags: ['rooms'],
        params: roomParams,
        body: {
          type: 'object',
          properties: {
            defaultAgent: {
              type: ['object', 'null'],
              properties: {
                presetId: { ...presetId, type: ['string', 'null'] },
                overrides: { ...configObject, type: ['object', 'null'] },
                stopDelaySeconds: { type: ['integer', 'null'], minimum: 0, maximum: 86_400 },
              },
              additionalProperties: false,
            },
          },
          required: ['defaultAgent'],
          additionalProperties: false,
        },
        response: { 200: { description: 'The room.', $ref: 'Room#' }, ...errorResponses(...bodyErrors, 404) },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const r = request.params.room
      const d = request.body.defaultAgent
      let setting: DefaultAgentSetting | null = null
      if (d !== null) {
        setting = { presetId: d.presetId ?? null, overrides: d.overrides ?? null, stopDelaySeconds: d.stopDelaySeconds ?? null }
        agents.resolve(workspaceId, setting)
      }
      const now = clock.now()
      storage.transaction(() => {
        storage.roomSettings.put({ workspaceId, room: r, defaultAgent: setting }, now)
        storage.recordChange('room.updated', workspaceId, r, now)
      })
      return view(workspaceId, r)
    },
  )
}
