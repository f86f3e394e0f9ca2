import { readFileSync } from 'node:fs'
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ANY_CLIENT_ID_PATTERN, CLIENT_ID_PATTERN } from './schemas.js'
import { SPEC_FILE } from './test/api.js'
import { webhooksPlugin } from '../webhooks/index.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
beforeAll(async () => {
  // The document is the default composition's: the webhooks plugin adds its resource to the API.
  t = await startRestEngine({ extensions: [webhooksPlugin] })
})
afterAll(() => t.stop())

interface Operation {
  operationId?: string
  summary?: string
  security?: unknown[]
  parameters?: Array<{ name: string; in: string; schema: { pattern?: string } }>
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, { pattern?: string }> } }> }
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> }

const checkedIn = () => JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as Doc

describe('OpenAPI document', () => {
  it('is served without an API key and equals spec/openapi.json (regenerate: npm run spec:openapi)', async () => {
    const res = await t.anonymous.get('/openapi.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.body, 'spec/openapi.json is stale: run `npm run spec:openapi`').toEqual(checkedIn())
  })

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(checkedIn() as unknown as Record<string, unknown>)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('describes every operation with an id, the error envelope and the rate-limit headers', () => {
    const doc = checkedIn()
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => ({ path, m, op })))
    expect(operations.map(({ m, path }) => `${m.toUpperCase()} ${path}`).sort()).toEqual([
      'DELETE /api/v1/agent-presets/{presetId}',
      'DELETE /api/v1/agents/{agentId}',
      'DELETE /api/v1/agents/{agentId}/transcript',
      'DELETE /api/v1/clients/{id}',
      'DELETE /api/v1/recordings/{id}',
      'DELETE /api/v1/rooms/{room}/recordings',
      'DELETE /api/v1/webhooks/{id}',
      'GET /api/v1/agent-presets',
      'GET /api/v1/agent-presets/{presetId}',
      'GET /api/v1/agent-providers',
      'GET /api/v1/agents',
      'GET /api/v1/agents/{agentId}',
      'GET /api/v1/agents/{agentId}/transcript',
      'GET /api/v1/clients',
      'GET /api/v1/clients/{id}',
      'GET /api/v1/openapi.json',
      'GET /api/v1/recordings',
      'GET /api/v1/recordings/{id}',
      'GET /api/v1/recordings/{id}/tracks/{track}',
      'GET /api/v1/rooms',
      'GET /api/v1/rooms/{room}',
      'GET /api/v1/rooms/{room}/recording-setting',
      'GET /api/v1/transcripts',
      'GET /api/v1/usage',
      'GET /api/v1/webhooks',
      'GET /api/v1/webhooks/{id}',
      'GET /api/v1/webhooks/{id}/deliveries',
      'HEAD /api/v1/agent-presets',
      'HEAD /api/v1/agent-presets/{presetId}',
      'HEAD /api/v1/agent-providers',
      'HEAD /api/v1/agents',
      'HEAD /api/v1/agents/{agentId}',
      'HEAD /api/v1/agents/{agentId}/transcript',
      'HEAD /api/v1/clients',
      'HEAD /api/v1/clients/{id}',
      'HEAD /api/v1/openapi.json',
      'HEAD /api/v1/recordings',
      'HEAD /api/v1/recordings/{id}',
      'HEAD /api/v1/recordings/{id}/tracks/{track}',
      'HEAD /api/v1/rooms',
      'HEAD /api/v1/rooms/{room}',
      'HEAD /api/v1/rooms/{room}/recording-setting',
      'HEAD /api/v1/transcripts',
      'HEAD /api/v1/usage',
      'HEAD /api/v1/webhooks',
      'HEAD /api/v1/webhooks/{id}',
      'HEAD /api/v1/webhooks/{id}/deliveries',
      'PATCH /api/v1/agent-presets/{presetId}',
      'PATCH /api/v1/agents/{agentId}',
      'PATCH /api/v1/clients/{id}',
      'PATCH /api/v1/webhooks/{id}',
      'POST /api/v1/agent-presets',
      'POST /api/v1/agents',
      'POST /api/v1/agents/{agentId}/interrupt',
      'POST /api/v1/agents/{agentId}/say',
      'POST /api/v1/clients',
      'POST /api/v1/clients/ephemeral',
      'POST /api/v1/clients/{id}/token',
      'POST /api/v1/clients/{id}/token/revoke-all',
      'POST /api/v1/rooms/{room}/recordings',
      'POST /api/v1/tokens/revoke',
      'POST /api/v1/webhooks',
      'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      'POST /api/v1/webhooks/{id}/rotate-secret',
      'POST /api/v1/webhooks/{id}/test',
      'PUT /api/v1/rooms/{room}',
      'PUT /api/v1/rooms/{room}/recording-setting',
    ])
    for (const { path, m, op } of operations) {
      expect(op.operationId, `${m} ${path}`).toMatch(/^[a-z][A-Za-z]+$/)
      expect(op.summary, `${m} ${path}`).toBeTruthy()
      if (path.endsWith('/openapi.json')) continue
      for (const status of ['401', '408', '429', '431', '500', '503']) {
        expect(op.responses[status]?.content?.['application/json'], `${m} ${path} ${status}`).toEqual({
          schema: { $ref: '#/components/schemas/Error' },
        })
      }
      expect(Object.keys(op.responses['429']!.headers ?? {}).sort()).toEqual([
        'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after',
      ])
      if (op.requestBody) for (const status of ['400', '413', '415']) expect(op.responses[status], `${m} ${path} ${status}`).toBeDefined()
    }
    const doc2 = doc.paths['/api/v1/clients']!
    expect(doc2.post!.requestBody!.content['application/json']!.schema.properties!.clientId!.pattern).toBe(CLIENT_ID_PATTERN)
    expect(doc.paths['/api/v1/clients/{id}']!.get!.parameters!.find((p) => p.name === 'id')!.schema.pattern).toBe(ANY_CLIENT_ID_PATTERN)
    expect(doc.paths['/api/v1/openapi.json']!.get!.security).toEqual([])
  })
})
