/**
 * Webhook endpoints in the console: the webhooks plugin's own endpoints service (the one behind
 * /api/v1/webhooks and `hark webhook`), behind the session and the role table. Webhooks are in the
 * `operate` row (admin and developer); a viewer gets 403 on every route here, reads included, since
 * the table's `read` row does not name webhooks (an endpoint's URL and delivery errors are a back
 * end's business). The service checks the input (URL and SSRF guard, event types, description,
 * the per-workspace cap); these schemas only keep the shapes strict. Without the webhooks plugin
 * in the engine every route answers 404 `not_found`, saying so.
 */
import type { FastifyInstance } from 'fastify'
import { NotFound } from '../../../core/errors.js'
import { DELIVERIES_LIMIT_DEFAULT, DELIVERIES_LIMIT_MAX, MAX_WEBHOOKS_PER_WORKSPACE, type WebhookEndpoints, type WebhookPatch } from '../../../core/webhooks/endpoints.js'
import { WEBHOOK_EVENT_TYPES } from '../../../core/webhooks/events.js'
import { membershipOf } from '../access.js'
import type { ConsoleServices } from '../services.js'

const WEBHOOK_ID = '^wh_[0-9A-Za-z]{16}$'
const DELIVERY_ID = '^dlv_[0-9A-HJKMNP-TV-Z]{26}$'

const events = { type: ['array', 'null'], items: { type: 'string' } } as const
const description = { type: ['string', 'null'] } as const
const webhookParams = {
  type: 'object',
  properties: { workspaceId: { type: 'string' }, webhookId: { type: 'string', pattern: WEBHOOK_ID } },
  required: ['workspaceId', 'webhookId'],
  additionalProperties: false,
} as const
const deliveryParams = {
  type: 'object',
  properties: { ...webhookParams.properties, deliveryId: { type: 'string', pattern: DELIVERY_ID } },
  required: ['workspaceId', 'webhookId', 'deliveryId'],
  additionalProperties: false,
} as const
const emptyBody = { type: 'object', additionalProperties: false } as const

interface WebhookParams {
  workspaceId: string
  webhookId: string
}

export const webhookRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  /** The webhooks plugin's endpoints service, looked up per call (plugins are built in any order). */
  const endpoints = (): WebhookEndpoints => {
    if (!services.extensions.names('plugin').includes('webhooks')) {
      throw new NotFound({ message: 'webhooks are not available: the webhooks plugin is not registered in this engine' })
    }
    return services.extensions.resolve<{ readonly endpoints: WebhookEndpoints }>('plugin', 'webhooks').endpoints
  }
  const workspaceOf = (request: Parameters<typeof membershipOf>[0]) => membershipOf(request).workspaceId

  app.get('/webhooks', { config: { access: 'operate' } }, async (request) => {
    const service = endpoints()
    return {
      webhooks: service.list(workspaceOf(request)),
      // What the page's events picker offers, the cap it mentions, and the URL rule its hint states.
      eventTypes: WEBHOOK_EVENT_TYPES,
      limit: MAX_WEBHOOKS_PER_WORKSPACE,
      urlRule: service.urlRule(),
    }
  })

  app.post<{ Body: { url: string; events?: string[] | null; description?: string | null } }>(
    '/webhooks',
    {
      config: { access: 'operate' },
      schema: { body: { type: 'object', properties: { url: { type: 'string' }, events, description }, required: ['url'], additionalProperties: false } },
    },
    async (request, reply) => {
      const { webhook, secret } = await endpoints().create(workspaceOf(request), request.body)
      return reply.code(201).send({ ...webhook, secret })
    },
  )

  app.get<{ Params: WebhookParams }>('/webhooks/:webhookId', { config: { access: 'operate' }, schema: { params: webhookParams } }, async (request) =>
    endpoints().get(workspaceOf(request), request.params.webhookId))

  app.patch<{ Params: WebhookParams; Body: WebhookPatch }>(
    '/webhooks/:webhookId',
    {
      config: { access: 'operate' },
      schema: {
        params: webhookParams,
        body: { type: 'object', properties: { url: { type: 'string' }, events, description, enabled: { type: 'boolean' } }, minProperties: 1, additionalProperties: false },
      },
    },
    async (request) => endpoints().update(workspaceOf(request), request.params.webhookId, request.body),
  )

  app.delete<{ Params: WebhookParams }>('/webhooks/:webhookId', { config: { access: 'operate' }, schema: { params: webhookParams } }, async (request) => {
    endpoints().delete(workspaceOf(request), request.params.webhookId)
    return { webhookId: request.params.webhookId, deleted: true }
  })

  app.post<{ Params: WebhookParams }>(
    '/webhooks/:webhookId/rotate-secret',
    { config: { access: 'operate' }, schema: { params: webhookParams, body: emptyBody } },
    async (request) => {
      const { webhook, secret } = endpoints().rotateSecret(workspaceOf(request), request.params.webhookId)
      return { ...webhook, secret }
    },
  )

  app.post<{ Params: WebhookParams }>(
    '/webhooks/:webhookId/test',
    { config: { access: 'operate' }, schema: { params: webhookParams, body: emptyBody } },
    async (request, reply) => reply.code(202).send(endpoints().test(workspaceOf(request), request.params.webhookId)),
  )

  app.get<{ Params: WebhookParams; Querystring: { limit: number; cursor?: string } }>(
    '/webhooks/:webhookId/deliveries',
    {
      config: { access: 'operate' },
      schema: {
        params: webhookParams,
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: DELIVERIES_LIMIT_MAX, default: DELIVERIES_LIMIT_DEFAULT }, cursor: { type: 'string', pattern: DELIVERY_ID } },
          additionalProperties: false,
        },
      },
    },
    async (request) => endpoints().deliveries(workspaceOf(request), request.params.webhookId, request.query),
  )

  app.post<{ Params: WebhookParams & { deliveryId: string } }>(
    '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    { config: { access: 'operate' }, schema: { params: deliveryParams, body: emptyBody } },
    async (request, reply) => reply.code(202).send(endpoints().redeliver(workspaceOf(request), request.params.webhookId, request.params.deliveryId)),
  )
}
