/**
 * Recordings in the console (spec/records.md#recordings): everyone who may read the workspace sees
 * the list and each recording's metadata; admins and developers may also download (play) a track
 * and delete a recording — a viewer gets 403 — and each download and deletion lands in the audit
 * log under the signed-in user.
 */
import send from '@fastify/send'
import { basename, dirname } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { NotFound } from '../../../core/errors.js'
import { recordAudit } from '../../../core/people/audit.js'
import { recordingView } from '../../../core/recordings/view.js'
import { actorOf, membershipOf } from '../access.js'
import type { ConsoleServices } from '../services.js'

const id = { type: 'string', pattern: '^rec_[0-9A-Z]{26}$' } as const
const track = { type: 'string', pattern: '^(mixed|p[1-9][0-9]{0,4})$' } as const

export const recordingRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const { recordings } = services

  app.get<{ Querystring: { room?: string; cursor?: string } }>(
    '/recordings',
    {
      config: { access: 'read' },
      schema: {
        querystring: { type: 'object', properties: { room: { type: 'string', maxLength: 200 }, cursor: id }, additionalProperties: false },
      },
    },
    async (request) => {
      const limit = 50
      const page = recordings.list(membershipOf(request).workspaceId, { room: request.query.room, before: request.query.cursor, limit: limit + 1 })
      const items = page.slice(0, limit)
      return { recordings: items.map(recordingView), nextCursor: page.length > limit ? items.at(-1)!.recordingId : null }
    },
  )

  app.get<{ Params: { recordingId: string } }>(
    '/recordings/:recordingId',
    { config: { access: 'read' }, schema: { params: { type: 'object', properties: { recordingId: id }, required: ['recordingId'] } } },
    async (request) => recordingView(recordings.get(membershipOf(request).workspaceId, request.params.recordingId)),
  )

  app.get<{ Params: { recordingId: string; track: string } }>(
    '/recordings/:recordingId/tracks/:track',
    {
      config: { access: 'operate' },
      schema: { params: { type: 'object', properties: { recordingId: id, track }, required: ['recordingId', 'track'] } },
    },
    async (request, reply) => {
      const { workspaceId } = membershipOf(request)
      const { recordingId } = request.params
      const { path } = recordings.trackFile(workspaceId, recordingId, request.params.track)
      const sent = await send(request.raw, basename(path), { root: dirname(path), acceptRanges: true, cacheControl: false, dotfiles: 'deny' })
      if (sent.type !== 'file' && sent.statusCode !== 416) {
        sent.stream.destroy()
        throw new NotFound({ message: `recording ${recordingId} has no file for track ${request.params.track}` })
      }
      recordAudit(services.storage, services.clock, actorOf(request), {
        action: 'recording.downloaded', workspaceId, target: recordingId, detail: { track: request.params.track, range: request.headers.range ?? null },
      })
      reply.code(sent.statusCode).headers({ ...sent.headers, 'content-type': sent.type === 'file' ? 'audio/ogg' : sent.headers['content-type'] ?? 'text/plain' })
      return reply.send(sent.stream)
    },
  )

  app.delete<{ Params: { recordingId: string } }>(
    '/recordings/:recordingId',
    { config: { access: 'operate' }, schema: { params: { type: 'object', properties: { recordingId: id }, required: ['recordingId'] } } },
    async (request) => {
      const { workspaceId } = membershipOf(request)
      const r = await recordings.delete(workspaceId, request.params.recordingId)
      recordAudit(services.storage, services.clock, actorOf(request), { action: 'recording.deleted', workspaceId, target: r.recordingId, detail: { room: r.room } })
      return { recordingId: r.recordingId, deleted: true }
    },
  )
}
