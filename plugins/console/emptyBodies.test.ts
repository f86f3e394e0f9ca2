/**
 * The console API takes an empty body as no body, as the REST API does (issue 33, item 2;
 * core/httpApi/jsonBodies.ts): every route that changes something is called by a signed-in admin
 * with no body at all, then with `Content-Type: application/json` and zero bytes (Content-Length: 0,
 * and chunked with no data), each on a workspace of its own; the answers must be the same, and
 * never `malformed_json`. Real HTTPS to a real engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PASSWORD, startConsoleEngine, type ConsoleEngine } from './test/consoleEngine.js'
import type { ConsoleClient } from './test/consoleClient.js'

let t: ConsoleEngine
let admin: Awaited<ReturnType<ConsoleEngine['user']>>
beforeAll(async () => {
  t = await startConsoleEngine()
  admin = await t.user('ada@example.com')
  await t.createUser('bob@example.com')
})
afterAll(() => t.stop())

const EMPTY: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ['no body, no Content-Type', { 'content-length': '0' }],
  ['application/json, Content-Length: 0', { 'content-type': 'application/json', 'content-length': '0' }],
  ['application/json, chunked, no data', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }],
]

/** Route parameters as well-formed ids of nothing, so a call changes at most its own fresh workspace. */
const PARAMS: Record<string, string> = {
  clientId: 'nobody',
  keyId: `key_${'A'.repeat(16)}`,
  userId: `usr_${'A'.repeat(16)}`,
  invitationId: `inv_${'A'.repeat(16)}`,
  agentId: `ag_${'A'.repeat(16)}`,
  presetId: 'nopreset',
  room: 'lobby',
  webhookId: `wh_${'A'.repeat(16)}`,
  deliveryId: `dlv_${'0'.repeat(26)}`,
  token: 'A'.repeat(43),
}

/** Routes that end the caller's sessions: each variant gets a caller of its own, another user than the admin. */
const ENDS_SESSION = new Set(['DELETE /api/session', 'POST /api/session/end-all'])

describe('the console API: an empty body is no body', () => {
  it('on every route that changes something, whatever Content-Type the empty body carries', async () => {
    const routes = t.plugin.routes.filter((r) => r.method !== 'GET' && !r.url.endsWith('/'))
    expect(routes.length).toBeGreaterThanOrEqual(35)
    let n = 0
    for (const route of routes) {
      const label = `${route.method} ${route.url}`
      const answers: Array<{ status: number; code: string | undefined }> = []
      for (const [, headers] of EMPTY) {
        const workspaceId = t.workspace(admin.record.userId, `empty-${n++}`)
        const path = route.url.replace(/:(\w+)/g, (_m, name: string) => (name === 'workspaceId' ? workspaceId : PARAMS[name]!))
        let caller: ConsoleClient = admin.client
        if (ENDS_SESSION.has(label)) {
          caller = t.client()
          await caller.signIn('bob@example.com', PASSWORD)
        }
        const r = await caller.call(route.method, path, undefined, { raw: '', headers })
        answers.push({ status: r.status, code: r.body?.error?.code })
      }
      expect(answers[0]!.code, label).not.toBe('malformed_json')
      expect(answers[0]!.code, label).not.toBe('unsupported_media_type')
      for (const [i, answer] of answers.entries()) expect([label, EMPTY[i]![0], answer]).toEqual([label, EMPTY[i]![0], answers[0]])
    }
  })

  it('DELETE of a client and an optional-body token issue succeed with Content-Type: application/json and no data', async () => {
    const workspaceId = t.workspace(admin.record.userId, 'real')
    const base = `/api/workspaces/${workspaceId}`
    expect((await admin.client.post(`${base}/clients`, { clientId: 'dev-1', room: 'lobby' })).status).toBe(201)
    const json = { 'content-type': 'application/json', 'content-length': '0' }
    const token = await admin.client.call('POST', `${base}/clients/dev-1/token`, undefined, { raw: '', headers: json })
    expect([token.status, token.body.clientId, token.body.expiresAt]).toEqual([201, 'dev-1', null])
    const deleted = await admin.client.call('DELETE', `${base}/clients/dev-1`, undefined, { raw: '', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } })
    expect(deleted.status).toBe(200)
    expect((await admin.client.get(`${base}/clients/dev-1`)).status).toBe(404)
    // A required body left empty is reported by the field it lacks.
    const created = await admin.client.call('POST', `${base}/clients`, undefined, { raw: '', headers: json })
    expect([created.status, created.body.error]).toEqual([400, { code: 'validation_failed', message: 'field clientId is required' }])
  })
})
