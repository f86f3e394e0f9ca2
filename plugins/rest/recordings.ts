/**
 * Room recordings (spec/records.md#recordings): POST/DELETE /rooms/{room}/recordings start and
 * stop one, PUT/GET /rooms/{room}/recording-setting records every session of a room by itself,
 * /recordings lists and reads them, /recordings/{id}/tracks/{track} downloads an Ogg Opus file
 * (HTTP Range through @fastify/send, which @fastify/static serves files with), DELETE erases one.
 * Downloads and deletions are audited (the API key is the actor).
 */
import send from '@fastify/send'
import { basename, dirname } from 'node:path'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { NotFound, ValidationFailed } from '../../core/errors.js'
import { recordAudit, type Actor } from '../../core/people/audit.js'
import { recordingView } from '../../core/recordings/view.js'
import type { RecordingStatus, RecordingTracksSetting } from '../../core/storage/recordings.js'
import { principalOf } from './auth.js'
import { agentId } from './agentSchemas.js'
import { bodyErrors, errorResponses, room } from './schemas.js'
import type { RestServices } from './services.js'

export const RECORDING_LIST_LIMIT_DEFAULT = 50
export const RECORDING_LIST_LIMIT_MAX = 200
const RECORDING_ID = { type: 'string', pattern: '^rec_[0-9A-Z]{26}$' } as const
const TRACK = { type: 'string', pattern: '^(mixed|p[1-9][0-9]{0,4})$', description: 'mixed, or p1, p2 … (one per participant).' } as const
const TRACKS = { type: 'string', enum: ['mixed', 'per-participant', 'both'] } as const

export const recordingSchemas = [
  {
    $id: 'Recording',
    description: 'A room recording: Ogg Opus files (RFC 7845), one per track.',
    type: 'object',
    properties: {
      recordingId: { type: 'string' },
      room: { type: 'string' },
      tracks: { ...TRACKS, description: 'What it records: the room mix, one track per participant, or both.' },
      status: { type: 'string', enum: ['recording', 'finished', 'failed'] },
      startedAt: { type: 'string', format: 'date-time' },
      endedAt: { type: ['string', 'null'], format: 'date-time' },
      durationMs: { type: ['integer', 'null'], description: 'Null while it records.' },
      sizeBytes: { type: 'integer', description: 'Bytes of every file (0 while it records).' },
      startedBy: {
        type: 'string',
        description: 'api (POST …/recordings), room (the room’s recording setting) or agent:<agentId> (an agent whose preset records).',
      },
      failure: { type: ['string', 'null'], description: 'Why a failed recording stopped (the disk floor, a write error).' },
      participants: {
        type: 'array',
        description: 'Everyone heard on a per-participant track (a terminal by client id, an agent by identity).',
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, kind: { type: ['string', 'null'], enum: ['terminal', 'agent', null] } },
          required: ['id', 'kind'],
          additionalProperties: false,
        },
      },
      files: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            track: TRACK,
            participantId: { type: ['string', 'null'], description: 'Null for the mixed track.' },
            bytes: { type: 'integer' },
            durationMs: { type: 'integer' },
          },
          required: ['track', 'participantId', 'bytes', 'durationMs'],
          additionalProperties: false,
        },
      },
    },
    required: ['recordingId', 'room', 'tracks', 'status', 'startedAt', 'endedAt', 'durationMs', 'sizeBytes', 'startedBy', 'failure', 'participants', 'files'],
    additionalProperties: false,
  },
] as const

/** The API key as the audit log's actor. */
const apiKeyActor = (request: FastifyRequest): Actor => ({ userId: null, label: `apikey:${principalOf(request).keyId}`, ip: request.ip })

const recordingParams = { type: 'object', properties: { id: RECORDING_ID }, required: ['id'], additionalProperties: false } as const
const roomParams = { type: 'object', properties: { room }, required: ['room'], additionalProperties: false } as const
const settingResponse = {
  description: 'The room’s recording setting.',
  type: 'object',
  properties: { room: { type: 'string' }, tracks: { type: ['string', 'null'], enum: ['mixed', 'per-participant', 'both', null] } },
  required: ['room', 'tracks'],
  additionalProperties: false,
} as const

interface ListQuery {
  room?: string
  agentId?: string
  status?: RecordingStatus
  from?: string
  to?: string
  limit: number
  cursor?: string
}

const timeOf = (field: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const t = Date.parse(value)
  if (Number.isNaN(t)) throw new ValidationFailed({ field, message: `query parameter ${field} is not a date-time` })
  return t
}

export const recordingRoutes = (host: RestServices) => async (app: FastifyInstance) => {
  const { recordings } = host

  app.post<{ Params: { room: string }; Body: { tracks: RecordingTracksSetting } }>(
    '/rooms/:room/recordings',
    {
      schema: {
        operationId: 'startRecording',
        summary: 'Start recording a room',
        description:
          'Records the room (open on this node: someone is in it) into Ogg Opus files until DELETE, until its last ' +
          'member leaves, or until the disk goes below recordings.minFreeMb. Every member hears room.recording. ' +
          'A room recorded only for agents whose preset records: that recording is kept until DELETE or the room closes (200).',
        tags: ['recordings'],
        params: roomParams,
        body: { type: 'object', properties: { tracks: TRACKS }, required: ['tracks'], additionalProperties: false },
        response: {
          200: { description: 'The recording agents had started, kept from now on (its tracks as they are).', $ref: 'Recording#' },
          201: { description: 'The recording, started.', $ref: 'Recording#' },
          ...errorResponses(...bodyErrors, 409),
        },
      },
    },
    async (request, reply) => {
      const r = await recordings.startOrAdopt(principalOf(request).workspaceId, request.params.room, request.body.tracks)
      return reply.code(r.adopted ? 200 : 201).send(recordingView(r.record))
    },
  )

  app.delete<{ Params: { room: string } }>(
    '/rooms/:room/recordings',
    {
      schema: {
        operationId: 'stopRecording',
        summary: 'Stop recording a room',
        description: 'Ends the room’s running recording: its files are finished (end of stream) and written before the answer.',
        tags: ['recordings'],
        params: roomParams,
        response: { 200: { description: 'The recording, finished.', $ref: 'Recording#' }, ...errorResponses(400, 404) },
      },
    },
    async (request) => recordingView(await recordings.stopRecording(principalOf(request).workspaceId, request.params.room)),
  )

  app.get<{ Params: { room: string } }>(
    '/rooms/:room/recording-setting',
    {
      schema: {
        operationId: 'getRoomRecordingSetting',
        summary: 'A room’s recording setting',
        tags: ['recordings'],
        params: roomParams,
        response: { 200: settingResponse, ...errorResponses(400) },
      },
    },
    async (request) => ({ room: request.params.room, tracks: recordings.autoRecordOf(principalOf(request).workspaceId, request.params.room) }),
  )

  app.put<{ Params: { room: string }; Body: { tracks: RecordingTracksSetting | null } }>(
    '/rooms/:room/recording-setting',
    {
      schema: {
        operationId: 'putRoomRecordingSetting',
        summary: 'Record every session of a room',
        description:
          'tracks: every session of the room (from its first terminal to its last leaving) is recorded with these ' +
          'tracks, from the next session on; null: not by itself.',
        tags: ['recordings'],
        params: roomParams,
        body: {
          type: 'object',
          properties: { tracks: { type: ['string', 'null'], enum: ['mixed', 'per-participant', 'both', null] } },
          required: ['tracks'],
          additionalProperties: false,
        },
        response: { 200: settingResponse, ...errorResponses(...bodyErrors) },
      },
    },
    async (request) => {
      const { room: name } = request.params
      recordings.setAutoRecord(principalOf(request).workspaceId, name, request.body.tracks)
      return { room: name, tracks: request.body.tracks }
    },
  )

  app.get<{ Querystring: ListQuery }>(
    '/recordings',
    {
      schema: {
        operationId: 'listRecordings',
        summary: 'List recordings',
        description: 'Newest first. Filters: room, status, started from/to (date-time), agentId (started by that agent). Pass nextCursor back as cursor.',
        tags: ['recordings'],
        querystring: {
          type: 'object',
          properties: {
            room,
            agentId: { ...agentId, description: 'Recordings that agent started (its preset records): startedBy agent:<agentId>.' },
            status: { type: 'string', enum: ['recording', 'finished', 'failed'] },
            from: { type: 'string', format: 'date-time', description: 'Started at or after.' },
            to: { type: 'string', format: 'date-time', description: 'Started before.' },
            limit: { type: 'integer', minimum: 1, maximum: RECORDING_LIST_LIMIT_MAX, default: RECORDING_LIST_LIMIT_DEFAULT },
            cursor: { ...RECORDING_ID, description: 'nextCursor of the previous page.' },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'A page of recordings.',
            type: 'object',
            properties: { recordings: { type: 'array', items: { $ref: 'Recording#' } }, nextCursor: { type: ['string', 'null'] } },
            required: ['recordings', 'nextCursor'],
            additionalProperties: false,
          },
          ...errorResponses(400),
        },
      },
    },
    async (request) => {
      const q = request.query
      const page = recordings.list(principalOf(request).workspaceId, {
        room: q.room, agentId: q.agentId, status: q.status, from: timeOf('from', q.from), to: timeOf('to', q.to), before: q.cursor, limit: q.limit + 1,
      })
      const more = page.length > q.limit
      const items = more ? page.slice(0, q.limit) : page
      return { recordings: items.map(recordingView), nextCursor: more ? items.at(-1)!.recordingId : null }
    },
  )

  app.get<{ Params: { id: string } }>(
    '/recordings/:id',
    {
      schema: {
        operationId: 'getRecording',
        summary: 'A recording',
        tags: ['recordings'],
        params: recordingParams,
        response: { 200: { description: 'The recording.', $ref: 'Recording#' }, ...errorResponses(400, 404) },
      },
    },
    async (request) => recordingView(recordings.get(principalOf(request).workspaceId, request.params.id)),
  )

  app.get<{ Params: { id: string; track: string } }>(
    '/recordings/:id/tracks/:track',
    {
      schema: {
        operationId: 'downloadRecordingTrack',
        summary: 'Download a track (Ogg Opus)',
        description:
          'The track’s file, audio/ogg. Range requests (bytes=…) answer 206 with Content-Range, so a broken download ' +
          'resumes; a track of a running recording can be read up to its last written second. Audited (recording.downloaded).',
        tags: ['recordings'],
        params: {
          type: 'object',
          properties: { id: RECORDING_ID, track: TRACK },
          required: ['id', 'track'],
          additionalProperties: false,
        },
        response: {
          200: { description: 'The whole file.', content: { 'audio/ogg': { schema: { type: 'string', format: 'binary' } } } },
          206: { description: 'The range asked for.', content: { 'audio/ogg': { schema: { type: 'string', format: 'binary' } } } },
          416: { description: 'range_not_satisfiable: the range starts past the end of the file.', $ref: 'Error#' },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request, reply) => {
      const { workspaceId } = principalOf(request)
      const { path } = recordings.trackFile(workspaceId, request.params.id, request.params.track)
      const sent = await send(request.raw, basename(path), { root: dirname(path), acceptRanges: true, cacheControl: false, etag: true, dotfiles: 'deny' })
      if (sent.type === 'error' && sent.statusCode === 416) {
        sent.stream.destroy()
        return reply.code(416).headers({ 'content-range': sent.headers['content-range'] ?? '' }).send({ error: { code: 'range_not_satisfiable', message: 'the range is past the end of the file' } })
      }
      if (sent.type !== 'file') {
        sent.stream.destroy()
        throw new NotFound({ message: `recording ${request.params.id} has no file for track ${request.params.track}` })
      }
      recordAudit(host.storage, host.clock, apiKeyActor(request), {
        action: 'recording.downloaded', workspaceId, target: request.params.id,
        detail: { track: request.params.track, range: request.headers.range ?? null },
      })
      reply.code(sent.statusCode).headers({ ...sent.headers, 'content-type': 'audio/ogg' })
      return reply.send(sent.stream)
    },
  )

  app.delete<{ Params: { id: string } }>(
    '/recordings/:id',
    {
      schema: {
        operationId: 'deleteRecording',
        summary: 'Delete a recording and its files',
        description: 'A running recording is stopped first. Audited (recording.deleted).',
        tags: ['recordings'],
        params: recordingParams,
        response: {
          200: {
            description: 'Deleted.',
            type: 'object',
            properties: { recordingId: { type: 'string' }, deleted: { type: 'boolean', const: true } },
            required: ['recordingId', 'deleted'],
            additionalProperties: false,
          },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request)
      const r = await recordings.delete(workspaceId, request.params.id)
      recordAudit(host.storage, host.clock, apiKeyActor(request), { action: 'recording.deleted', workspaceId, target: r.recordingId, detail: { room: r.room } })
      return { recordingId: r.recordingId, deleted: true }
    },
  )
}
