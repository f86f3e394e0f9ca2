/**
 * What a receiver gets, for the OpenAPI document: the REST plugin puts these entries in its
 * top-level `webhooks` section (through services.apiRoutes); spec/webhooks.md explains them.
 */
import { WEBHOOK_EVENT_TYPES, webhookEventSpecs } from '../../core/webhooks/events.js'

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type, the request a receiver gets (the
 * body's schema with its `data`, and the Standard Webhooks headers). spec/webhooks.md explains them.
 */
export const webhookDocuments = (): Record<string, unknown> =>
  Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const spec = webhookEventSpecs[type]
      const header = (description: string) => ({ required: true, schema: { type: 'string' }, description })
      return [
        type,
        {
          post: {
            operationId: `webhook_${type.replace(/[._]/g, '_')}`,
            summary: spec.summary,
            tags: ['webhooks'],
            parameters: [
              { name: 'webhook-id', in: 'header', ...header('The event id (also the body’s id); the same on every retry: deduplicate on it.') },
              { name: 'webhook-timestamp', in: 'header', ...header('Unix seconds of this attempt; signed.') },
              { name: 'webhook-signature', in: 'header', ...header('Space-separated v1,<base64 HMAC-SHA256> signatures (two during a secret rotation).') },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      id: { type: 'string' },
                      type: { type: 'string', const: type },
                      timestamp: { type: 'string', format: 'date-time', description: 'When it happened.' },
                      workspaceId: { type: 'string' },
                      resource: { type: 'string', description: 'client:<id>, room:<name>, agent:<id> or webhook:<id>.' },
                      sequence: { type: 'integer', minimum: 1, description: 'Counts the events of the resource, in the order they happened.' },
                      data: spec.data,
                    },
                    required: ['id', 'type', 'timestamp', 'workspaceId', 'resource', 'sequence', 'data'],
                    additionalProperties: false,
                  },
                  example: { type, data: spec.example },
                },
              },
            },
            responses: {
              '2XX': { description: 'Delivered. Anything else (or no answer within 10 s) is retried.' },
            },
          },
        },
      ]
    }),
  )

