/**
 * /api/v1/webhooks: a workspace's webhook endpoints over REST — create (201 with the `whsec_…`
 * signing secret, shown this once), list, read, update (URL, event types, description, enabled),
 * delete, rotate the secret (the old one signs alongside for 24 h), send a test event, read the
 * delivery history and redeliver. Registered inside the REST API's scope (API key, rate limit,
 * validation, error envelope, OpenAPI). The rules are in spec/webhooks.md.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ApiScope } from '../../core/extension.js'
import {
  DELIVERIES_LIMIT_DEFAULT,
  DELIVERIES_LIMIT_MAX,
  DESCRIPTION_MAX,
  MAX_WEBHOOKS_PER_WORKSPACE,
  type WebhookEndpoints,
  type WebhookPatch,
} from '../../core/webhooks/endpoints.js'
import { WEBHOOK_EVENT_TYPES } from '../../core/webhooks/events.js'
import { MAX_URL_LENGTH } from '../../core/webhooks/urlGuard.js'

export const WEBHOOK_ID_PATTERN = '^wh_[0-9A-Za-z]{16}$'
export const DELIVERY_ID_PATTERN = '^dlv_[0-9A-HJKMNP-TV-Z]{26}$'

const url = { type: 'string', minLength: 1, maxLength: MAX_URL_LENGTH, description: 'https URL (http only with webhooks.allowPrivateNetworks).' } as const
const events = {
  type: 'array',
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length * 2,
  description: 'Event types delivered to this endpoint; omitted or null = every type.',
} as const
const description = { type: 'string', maxLength: DESCRIPTION_MAX } as const
const isoOrNull = { type: ['string', 'null'], format: 'date-time' } as const

const webhookProperties = {
  webhookId: { type: 'string', pattern: WEBHOOK_ID_PATTERN },
  url: { type: 'string' },
  events: { type: ['array', 'null'], items: { type: 'string' }, description: 'null = every type.' },
  description: { type: ['string', 'null'] },
  enabled: { type: 'boolean', description: 'false after 3 days of failed attempts, or when disabled by request.' },
  disabledReason: { type: ['string', 'null'] },
  previousSecretExpiresAt: { ...isoOrNull, description: 'Until then the secret before the last rotation signs too.' },
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
} as const
const webhookRequired = Object.keys(webhookProperties)

const webhook = (what: string) => ({
  description: what,
  type: 'object',
  properties: webhookProperties,
  required: webhookRequired,
  additionalProperties: false,
})
const webhookWithSecret = (what: string) => ({
  description: what,
  type: 'object',
  properties: {
    ...webhookProperties,
    secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret (Standard Webhooks, whsec_ + base64); shown only here.' },
  },
  required: [...webhookRequired, 'secret'],
  additionalProperties: false,
})

const delivery = {
  type: 'object',
  properties: {
    deliveryId: { type: 'string', pattern: DELIVERY_ID_PATTERN },
    eventId: { type: 'string', description: 'The webhook-id header; the same on every attempt and redelivery.' },
    type: { type: 'string' },
    resource: { type: 'string' },
    sequence: { type: 'integer', minimum: 1 },
    status: { type: 'string', enum: ['pending', 'delivered', 'dead'] },
    attempts: { type: 'integer', minimum: 0 },
    createdAt: { type: 'string', format: 'date-time' },
    lastAttemptAt: isoOrNull,
    responseStatus: { type: ['integer', 'null'], description: 'HTTP status of the last attempt; null without an answer.' },
    latencyMs: { type: ['integer', 'null'] },
    error: { type: ['string', 'null'], description: 'Why the last attempt failed.' },
    nextAttemptAt: { ...isoOrNull, description: 'When a pending delivery is tried next.' },
    completedAt: isoOrNull,
  },
  required: [
    'deliveryId', 'eventId', 'type', 'resource', 'sequence', 'status', 'attempts', 'createdAt', 'lastAttemptAt',
    'responseStatus', 'latencyMs', 'error', 'nextAttemptAt', 'completedAt',
  ],
  additionalProperties: false,
} as const

const idParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: WEBHOOK_ID_PATTERN } },
  required: ['id'],
  additionalProperties: false,
} as const
const deliveryParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: WEBHOOK_ID_PATTERN }, deliveryId: { type: 'string', pattern: DELIVERY_ID_PATTERN } },
  required: ['id', 'deliveryId'],
  additionalProperties: false,
} as const
const noBody = { type: 'object', properties: {}, additionalProperties: false, description: 'No fields; may be omitted.' } as const

interface IdParams {
  id: string
}

/** The routes, inside the REST API's scope: `api` names each request's workspace and the error responses. */
export const webhookRoutes = (endpoints: WebhookEndpoints, api: ApiScope) => async (app: FastifyInstance) => {
  const { errorResponses, bodyErrors } = api
  const workspaceOf = (request: FastifyRequest) => api.caller(request).workspaceId
  app.get(
    '/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints',
        description: `Every endpoint of the workspace (at most ${MAX_WEBHOOKS_PER_WORKSPACE}), oldest first.`,
        tags: ['webhooks'],
        response: {
          200: {
            description: 'The endpoints.',
            type: 'object',
            properties: { webhooks: { type: 'array', items: webhook('An endpoint.') } },
            required: ['webhooks'],
            additionalProperties: false,
          },
          ...errorResponses(),
        },
      },
    },
    async (request) => ({ webhooks: endpoints.list(workspaceOf(request)) }),
  )

  app.post<{ Body: { url: string; events?: string[] | null; description?: string | null } }>(
    '/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        summary: 'Create a webhook endpoint',
        description:
          `Events of the chosen types are POSTed to the URL, signed the Standard Webhooks way with the returned secret. ` +
          `The URL must be https and its host must resolve to public addresses only (unless webhooks.allowPrivateNetworks). ` +
          `A workspace has at most ${MAX_WEBHOOKS_PER_WORKSPACE} endpoints (400 limit_exceeded beyond).`,
        tags: ['webhooks'],
        body: {
          type: 'object',
          properties: { url, events: { ...events, type: ['array', 'null'] }, description: { ...description, type: ['string', 'null'] } },
          required: ['url'],
          additionalProperties: false,
        },
        response: { 201: webhookWithSecret('The endpoint, with its signing secret (shown only here and on rotation).'), ...errorResponses(...bodyErrors) },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request)
      const { webhook: view, secret } = await endpoints.create(workspaceId, request.body)
      return reply.code(201).send({ ...view, secret })
    },
  )

  app.get<{ Params: IdParams }>(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhook',
        summary: 'A webhook endpoint',
        tags: ['webhooks'],
        params: idParams,
        response: { 200: webhook('The endpoint.'), ...errorResponses(400, 404) },
      },
    },
    async (request) => endpoints.get(workspaceOf(request), request.params.id),
  )

  app.patch<{ Params: IdParams; Body: WebhookPatch }>(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhook',
        summary: 'Update a webhook endpoint',
        description:
          'Sets the URL (checked like on create), the event types (null = every type), the description, or enabled. ' +
          'Enabling an endpoint the engine disabled resumes its pending deliveries.',
        tags: ['webhooks'],
        params: idParams,
        body: {
          type: 'object',
          properties: {
            url,
            events: { ...events, type: ['array', 'null'] },
            description: { ...description, type: ['string', 'null'] },
            enabled: { type: 'boolean' },
          },
          minProperties: 1,
          additionalProperties: false,
        },
        response: { 200: webhook('The updated endpoint.'), ...errorResponses(...bodyErrors, 404) },
      },
    },
    async (request) => endpoints.update(workspaceOf(request), request.params.id, request.body),
  )

  app.delete<{ Params: IdParams }>(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint',
        description: 'Its pending deliveries are dropped.',
        tags: ['webhooks'],
        params: idParams,
        response: {
          200: {
            description: 'Deletion result.',
            type: 'object',
            properties: { webhookId: { type: 'string' }, deleted: { type: 'boolean', const: true } },
            required: ['webhookId', 'deleted'],
            additionalProperties: false,
          },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      endpoints.delete(workspaceOf(request), request.params.id)
      return { webhookId: request.params.id, deleted: true }
    },
  )

  app.post<{ Params: IdParams }>(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description:
          'A new secret signs from now on; for 24 h every message also carries a signature by the previous one ' +
          '(webhook-signature holds both), so a receiver can switch at its own pace.',
        tags: ['webhooks'],
        params: idParams,
        body: noBody,
        response: { 200: webhookWithSecret('The endpoint with its new secret.'), ...errorResponses(...bodyErrors, 404) },
      },
    },
    async (request) => {
      const { webhook: view, secret } = endpoints.rotateSecret(workspaceOf(request), request.params.id)
      return { ...view, secret }
    },
  )

  app.post<{ Params: IdParams }>(
    '/webhooks/:id/test',
    {
      schema: {
        operationId: 'testWebhook',
        summary: 'Send a test event',
        description: 'Queues a webhook.test event for this endpoint alone; follow it in the deliveries.',
        tags: ['webhooks'],
        params: idParams,
        body: noBody,
        response: {
          202: {
            description: 'Queued.',
            type: 'object',
            properties: { eventId: { type: 'string' }, deliveryId: { type: 'string', pattern: DELIVERY_ID_PATTERN } },
            required: ['eventId', 'deliveryId'],
            additionalProperties: false,
          },
          ...errorResponses(...bodyErrors, 404, 409),
        },
      },
    },
    async (request, reply) => reply.code(202).send(endpoints.test(workspaceOf(request), request.params.id)),
  )

  app.get<{ Params: IdParams; Querystring: { limit: number; cursor?: string } }>(
    '/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'Recent deliveries of an endpoint',
        description:
          'Newest first: status, attempts, the last attempt’s response status, latency and error, and the next retry. ' +
          'Completed deliveries are kept 7 days. Pass nextCursor back as cursor for older ones.',
        tags: ['webhooks'],
        params: idParams,
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: DELIVERIES_LIMIT_MAX, default: DELIVERIES_LIMIT_DEFAULT },
            cursor: { type: 'string', pattern: DELIVERY_ID_PATTERN, description: 'nextCursor of the previous page.' },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'A page of deliveries.',
            type: 'object',
            properties: { deliveries: { type: 'array', items: delivery }, nextCursor: { type: ['string', 'null'] } },
            required: ['deliveries', 'nextCursor'],
            additionalProperties: false,
          },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => endpoints.deliveries(workspaceOf(request), request.params.id, request.query),
  )

  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhookDelivery',
        summary: 'Redeliver an event',
        description:
          'Sends a delivered or dead-lettered delivery’s event again, as a new delivery (same webhook-id) with a fresh ' +
          '24 h retry budget, in its place by sequence number. 409 while the delivery is still pending.',
        tags: ['webhooks'],
        params: deliveryParams,
        body: noBody,
        response: { 202: { ...delivery, description: 'The new delivery.' }, ...errorResponses(...bodyErrors, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(endpoints.redeliver(workspaceOf(request), request.params.id, request.params.deliveryId)),
  )
}
