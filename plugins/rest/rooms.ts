/**
 * /api/v1/rooms: the rooms of the workspace that have live members right now, and one room with
 * its participants (terminals connected over any transport, and agents), its live agents and its
 * settings. A room exists while someone is in it, so a room nobody is in answers with no
 * participants rather than 404. Its settings — so far the room default agent — are stored by
 * room name (PUT /rooms/{room}): validated like a dispatch, and applied at once to an occupied room
 * through the `room.updated` change (spec/agents.md).
 */
import type { FastifyInstance } from 'fastify'
import type { RestServices } from './services.js'
import { ValidationFailed } from '../../core/errors.js'
import { isRoomName } from '../../core/naming.js'
import { getRoom, listRooms, putRoomSettings } from '../../core/operations/rooms.js'
import { authorOf, principalOf } from './auth.js'
import { roomSettingsBody } from '../../core/httpApi/fields.js'
import { bodyErrors, errorResponses, room } from './schemas.js'

export const ROOM_LIST_LIMIT_DEFAULT = 50
export const ROOM_LIST_LIMIT_MAX = 200
const ROOM_CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,200}$'

/** Response schemas of this file, added to the REST scope beside the shared ones. */
export const roomSchemas = [
  {
    $id: 'Participant',
    description: 'A member of a room: a connected terminal or an agent.',
    type: 'object',
    properties: {
      id: { type: 'string', description: 'clientId of a terminal, identity of an agent.' },
      kind: { type: 'string', enum: ['terminal', 'agent'] },
      name: { type: ['string', 'null'] },
      sourceId: {
        type: 'integer',
        minimum: 1,
        maximum: 65535,
        description: 'Source id in the downlink audio header of this member’s frames (spec/terminal-protocol.md).',
      },
      transport: { type: ['string', 'null'], description: 'mqtt, websocket or webrtc for a terminal; null for an agent.' },
      connectedAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'When the terminal’s session opened; null for an agent.',
      },
      speaking: {
        type: 'boolean',
        description: 'Its talk spurt is on now: the room announced speaking.started for it and not yet speaking.stopped.',
      },
    },
    required: ['id', 'kind', 'name', 'sourceId', 'transport', 'connectedAt', 'speaking'],
    additionalProperties: false,
  },
  {
    $id: 'Room',
    description: 'A room: who is in it now (in the order they joined), its live agents and its settings.',
    type: 'object',
    properties: {
      room: { type: 'string' },
      participants: { type: 'array', items: { $ref: 'Participant#' } },
      agents: { type: 'array', items: { $ref: 'Agent#' }, description: 'Live (starting or running) agents of the room.' },
      defaultAgent: {
        anyOf: [{ $ref: 'DefaultAgent#' }, { type: 'null' }],
        description: 'The room default agent setting (PUT /rooms/{room}); null when none.',
      },
    },
    required: ['room', 'participants', 'agents', 'defaultAgent'],
    additionalProperties: false,
  },
] as const

interface ListQuery {
  limit: number
  cursor?: string
}
interface PutBody {
  defaultAgent: { presetId?: string | null; overrides?: Record<string, unknown> | null; stopDelaySeconds?: number | null } | null
}

const encodeRoomCursor = (lastRoom: string): string => Buffer.from(lastRoom, 'utf8').toString('base64url')

const decodeRoomCursor = (cursor: string): string => {
  const lastRoom = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!isRoomName(lastRoom)) throw new ValidationFailed({ field: 'cursor', message: 'query parameter cursor is not a cursor this API returned' })
  return lastRoom
}

export const roomRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  app.get<{ Querystring: ListQuery }>(
    '/rooms',
    {
      schema: {
        operationId: 'listRooms',
        summary: 'List rooms with live members',
        description:
          'Rooms of the workspace that have at least one member now (a connected terminal or an agent), in ' +
          'ascending name order, each with its participants. Pass nextCursor back as cursor for the next page.',
        tags: ['rooms'],
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: ROOM_LIST_LIMIT_MAX, default: ROOM_LIST_LIMIT_DEFAULT },
            cursor: { type: 'string', pattern: ROOM_CURSOR_PATTERN, description: 'nextCursor of the previous page.' },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'A page of occupied rooms.',
            type: 'object',
            properties: {
              rooms: { type: 'array', items: { $ref: 'Room#' } },
              nextCursor: { type: ['string', 'null'] },
            },
            required: ['rooms', 'nextCursor'],
            additionalProperties: false,
          },
          ...errorResponses(400),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const { limit, cursor } = request.query
      const page = listRooms(host, workspaceId, cursor === undefined ? null : decodeRoomCursor(cursor), limit)
      return { rooms: page.rooms, nextCursor: page.last === null ? null : encodeRoomCursor(page.last) }
    },
  )

  app.get<{ Params: { room: string } }>(
    '/rooms/:room',
    {
      schema: {
        operationId: 'getRoom',
        summary: 'A room and its live members',
        description:
          'Who is in the room now. Rooms are not stored: a valid room name nobody is in answers 200 with no ' +
          'participants.',
        tags: ['rooms'],
        params: { type: 'object', properties: { room }, required: ['room'], additionalProperties: false },
        response: { 200: { description: 'The room.', $ref: 'Room#' }, ...errorResponses(400) },
      },
    },
    async (request) => getRoom(host, principalOf(request).workspaceId, request.params.room),
  )

  app.put<{ Params: { room: string }; Body: PutBody }>(
    '/rooms/:room',
    {
      schema: {
        operationId: 'putRoom',
        summary: 'Set room settings',
        description:
          'Sets the room default agent (null clears it): dispatched when the first terminal joins, stopped ' +
          'stopDelaySeconds after the last one leaves. The preset and overrides are checked like a dispatch. ' +
          'Applies at once to an occupied room (starts, swaps or stops its default agent).',
        tags: ['rooms'],
        params: { type: 'object', properties: { room }, required: ['room'], additionalProperties: false },
        body: roomSettingsBody,
        response: { 200: { description: 'The room.', $ref: 'Room#' }, ...errorResponses(...bodyErrors, 404) },
      },
    },
    async (request) => putRoomSettings(host, principalOf(request).workspaceId, request.params.room, request.body.defaultAgent, authorOf(request)),
  )
}
