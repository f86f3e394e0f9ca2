/**
 * Devices that activate by code (xiaozhi-esp32 firmware and the like): "Add device by code" binds
 * the device showing a 6-digit code to a client of the workspace (core's device enrollment claim
 * through `claimDevice`, the call `hark xiaozhi activate` makes, audited), and the list of devices
 * bound here. Admin only (`devicePasswords`): a claim hands the device the client's device password.
 * The code, client id and room are checked by the enrollment itself (400 for a malformed code,
 * 404 for a code nobody waits with: unknown, expired or used, 409 for a client that has another device).
 */
import type { FastifyInstance } from 'fastify'
import { claimDevice } from '../../../core/operations/credentials.js'
import { isoTime } from '../../../core/operations/views.js'
import { actorOf, membershipOf } from '../access.js'
import type { ConsoleServices } from '../services.js'

const nullableString = { type: ['string', 'null'] } as const

export const deviceRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  app.get('/devices', { config: { access: 'devicePasswords' } }, async (request) => ({
    devices: services.security.deviceEnrollment.bindings(membershipOf(request).workspaceId).map((b) => ({
      deviceId: b.deviceId, clientId: b.clientId, kind: b.kind, info: b.info, boundAt: isoTime(b.boundAt),
    })),
  }))

  app.post<{ Body: { code: string; clientId: string; room?: string | null; name?: string | null } }>(
    '/devices/claim',
    {
      config: { access: 'devicePasswords' },
      schema: {
        body: {
          type: 'object',
          properties: { code: { type: 'string' }, clientId: { type: 'string' }, room: nullableString, name: nullableString },
          required: ['code', 'clientId'],
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const r = claimDevice(services, membershipOf(request).workspaceId, request.body, actorOf(request))
      return { deviceId: r.deviceId, clientId: r.clientId, kind: r.kind, room: r.room, clientCreated: r.clientCreated, boundAt: isoTime(r.boundAt) }
    },
  )
}
