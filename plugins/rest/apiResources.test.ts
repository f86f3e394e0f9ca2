/**
 * A resource another extension adds to the REST API (core/apiRoutes.ts), written as an embedder
 * writes one: it imports only the extension entry, and learns who calls each request — the
 * workspace of the API key and the change author — from the scope it is registered in, not from
 * the REST plugin's modules. Its operations are documented with the API's own error responses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { definePlugin, services, type ApiScope, type EnginePlugin } from '../../core/extension.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

/** An embedder's plugin serving GET /api/v1/notes/whoami: who calls, as the scope says. */
const notesPlugin = definePlugin('notes', {
  create: (resolve): EnginePlugin => {
    resolve(services.apiRoutes).add({
      name: 'notes',
      tags: [{ name: 'notes', description: 'An embedder’s resource.' }],
      register: (app, api: ApiScope) => {
        app.get(
          '/notes/whoami',
          { schema: { operationId: 'whoAmI', tags: ['notes'], response: { 200: { type: 'object', additionalProperties: true }, ...api.errorResponses(404) } } },
          async (request) => api.caller(request),
        )
        app.post(
          '/notes',
          { schema: { operationId: 'createNote', tags: ['notes'], body: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false }, response: api.errorResponses(...api.bodyErrors) } },
          async (request, reply) => reply.code(201).send({ workspaceId: api.caller(request).workspaceId }),
        )
      },
    })
    return {}
  },
})

let t: RestEngine
beforeAll(async () => {
  t = await startRestEngine({ extensions: [notesPlugin] })
})
afterAll(() => t?.stop())

const call = (method: string, path: string, key: string | null, body?: unknown) =>
  fetch(`${t.base}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

describe("an extension's REST resource", () => {
  it("learns each caller's workspace and API key from its scope", async () => {
    const acme = t.workspace('acme')
    const other = t.workspace('other')
    for (const w of [acme, other]) {
      const res = await call('GET', '/notes/whoami', w.apiKey)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ workspaceId: w.workspaceId, author: { type: 'apiKey', keyId: w.keyId } })
    }
    const created = await call('POST', '/notes', acme.apiKey, { text: 'hi' })
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({ workspaceId: acme.workspaceId })
  })

  it('is behind the API key, the validation and the error envelope of the API', async () => {
    const res = await call('GET', '/notes/whoami', null)
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_api_key' } })
    const bad = await call('POST', '/notes', t.workspace('third').apiKey, { text: 1 })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { code: 'validation_failed' } })
  })

  it('is documented with the error responses of every other operation', async () => {
    const doc = (await (await call('GET', '/openapi.json', null)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    expect(Object.keys(doc.paths['/api/v1/notes/whoami']!.get!.responses).sort()).toEqual(['200', '401', '404', '408', '429', '431', '500', '503'])
    expect(Object.keys(doc.paths['/api/v1/notes']!.post!.responses).sort()).toEqual(['400', '401', '408', '413', '415', '429', '431', '500', '503'])
    expect(doc.paths['/api/v1/notes/whoami']!.get!.responses['401']).toEqual(doc.paths['/api/v1/clients']!.get!.responses['401'])
  })
})
