/**
 * The role table of issue 15, cell by cell, against the real console API: every route of the API
 * is listed here with the permission the table gives it; each is called as an admin, a developer
 * and a viewer of the workspace. A role the table allows gets its way (2xx, the action done), a
 * role it does not gets 403 `forbidden` with nothing changed; a signed-in user of another
 * workspace gets 404 as if the workspace did not exist, and nobody signed in gets 401. A route
 * added to the console without a row here fails the first test.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Access } from './access.js'
import type { Role } from '../../core/people/roles.js'
import { nodeIdOf } from '../../core/cluster/nodeId.js'
import { newRecordingId } from '../../core/ids.js'
import { repoRoot } from '../../core/test/helpers.js'
import { webhooksPlugin, type WebhooksPlugin } from '../webhooks/index.js'
import { WebhookReceiver } from '../webhooks/test/receiver.js'
import { startConsoleEngine, type ConsoleEngine } from './test/consoleEngine.js'
import type { ConsoleClient } from './test/consoleClient.js'

interface Fixture {
  workspaceId: string
  keyId: string
  invitationId: string
  targetUserId: string
  agentId: string | null
  webhookId: string
  /** A delivered test event of the webhook (rows that redeliver). */
  deliveryId: string | null
  /** The activation code of a device waiting to be added. */
  code: string
  /** A finished recording of lobby with one track file (p1). */
  recordingId: string
}

interface Row {
  readonly method: string
  /** Under /api/workspaces/{id} ('' is the workspace itself). */
  readonly path: string
  readonly access: Access
  readonly body?: (f: Fixture) => unknown
  /** Placeholders filled from the fixture. */
  readonly needsAgent?: boolean
  readonly needsDelivery?: boolean
  /** What an allowed role gets instead of a success: the fixture's echo agent cannot do it (409 not_supported, past the access check). */
  readonly refusedBeyondAccess?: string
}

/** The table: admin-only rows, then admin and developer, then everyone. */
const ROWS: ReadonlyArray<Row> = [
  // API keys: create (value shown once), list, revoke — admin
  { method: 'GET', path: '/api-keys', access: 'apiKeys' },
  { method: 'POST', path: '/api-keys', access: 'apiKeys', body: () => ({ name: 'ci' }) },
  { method: 'DELETE', path: '/api-keys/{keyId}', access: 'apiKeys' },
  // Device passwords: reveal, reset — admin
  { method: 'POST', path: '/clients/dev-1/device-password/reveal', access: 'devicePasswords' },
  { method: 'POST', path: '/clients/dev-1/device-password/reset', access: 'devicePasswords' },
  // Signing secret rotation; members, roles, invitations; workspace rename/delete; audit log — admin
  { method: 'GET', path: '/signing-secret', access: 'administer' },
  { method: 'POST', path: '/signing-secret/rotate', access: 'administer' },
  { method: 'GET', path: '/members', access: 'administer' },
  { method: 'PATCH', path: '/members/{targetUserId}', access: 'administer', body: () => ({ role: 'developer' }) },
  { method: 'DELETE', path: '/members/{targetUserId}', access: 'administer' },
  { method: 'GET', path: '/invitations', access: 'administer' },
  { method: 'POST', path: '/invitations', access: 'administer', body: () => ({ email: 'new@example.com', role: 'viewer' }) },
  { method: 'DELETE', path: '/invitations/{invitationId}', access: 'administer' },
  { method: 'PATCH', path: '', access: 'administer', body: () => ({ name: 'renamed' }) },
  { method: 'DELETE', path: '', access: 'administer' },
  { method: 'GET', path: '/audit', access: 'administer' },
  // Clients, room moves, tokens, ephemeral clients, agents, presets, room default agents — admin, developer
  { method: 'POST', path: '/clients', access: 'operate', body: () => ({ clientId: 'dev-2', room: 'lobby' }) },
  { method: 'PATCH', path: '/clients/dev-1', access: 'operate', body: () => ({ room: 'hall' }) },
  { method: 'DELETE', path: '/clients/dev-1', access: 'operate' },
  { method: 'POST', path: '/clients/dev-1/token', access: 'operate', body: () => ({ ttlSeconds: 60 }) },
  { method: 'POST', path: '/clients/dev-1/token/revoke-all', access: 'operate' },
  { method: 'POST', path: '/clients/ephemeral', access: 'operate', body: () => ({ room: 'lobby' }) },
  { method: 'POST', path: '/rooms/lobby/join', access: 'operate' },
  { method: 'PUT', path: '/rooms/lobby', access: 'operate', body: () => ({ defaultAgent: { presetId: 'greeter' } }) },
  { method: 'POST', path: '/agents', access: 'operate', body: () => ({ room: 'lobby', presetId: 'greeter' }) },
  { method: 'DELETE', path: '/agents/{agentId}', access: 'operate', needsAgent: true },
  { method: 'DELETE', path: '/agents/{agentId}/transcript', access: 'operate', needsAgent: true },
  { method: 'POST', path: '/agents/{agentId}/interrupt', access: 'operate', needsAgent: true },
  { method: 'POST', path: '/agents/{agentId}/say', access: 'operate', needsAgent: true, body: () => ({ text: 'hello' }), refusedBeyondAccess: '409 not_supported' },
  { method: 'PATCH', path: '/agents/{agentId}', access: 'operate', needsAgent: true, body: () => ({ instructions: 'x' }), refusedBeyondAccess: '409 not_supported' },
  { method: 'POST', path: '/agent-presets', access: 'operate', body: () => ({ presetId: 'second', provider: 'echo' }) },
  { method: 'PATCH', path: '/agent-presets/greeter', access: 'operate', body: () => ({ name: 'Greeter' }) },
  { method: 'DELETE', path: '/agent-presets/greeter', access: 'operate' },
  // Webhooks — admin and developer, reads included (the read row does not name them)
  { method: 'GET', path: '/webhooks', access: 'operate' },
  { method: 'POST', path: '/webhooks', access: 'operate', body: () => ({ url: receiver.url, events: ['client.created'] }) },
  { method: 'GET', path: '/webhooks/{webhookId}', access: 'operate' },
  { method: 'PATCH', path: '/webhooks/{webhookId}', access: 'operate', body: () => ({ description: 'changed' }) },
  { method: 'DELETE', path: '/webhooks/{webhookId}', access: 'operate' },
  { method: 'POST', path: '/webhooks/{webhookId}/rotate-secret', access: 'operate' },
  { method: 'POST', path: '/webhooks/{webhookId}/test', access: 'operate' },
  { method: 'GET', path: '/webhooks/{webhookId}/deliveries', access: 'operate' },
  { method: 'POST', path: '/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', access: 'operate', needsDelivery: true },
  // Adding a device by code — admin (the device gets the client's device password)
  { method: 'GET', path: '/devices', access: 'devicePasswords' },
  { method: 'POST', path: '/devices/claim', access: 'devicePasswords', body: (f) => ({ code: f.code, clientId: 'speaker-1', room: 'kitchen' }) },
  // Read clients with online state, rooms, agents, presets, usage — everyone
  { method: 'GET', path: '', access: 'read' },
  { method: 'POST', path: '/leave', access: 'read' },
  { method: 'GET', path: '/clients', access: 'read' },
  { method: 'GET', path: '/clients/dev-1', access: 'read' },
  { method: 'GET', path: '/rooms', access: 'read' },
  { method: 'GET', path: '/rooms/lobby', access: 'read' },
  { method: 'GET', path: '/agents', access: 'read' },
  { method: 'GET', path: '/agents/{agentId}/transcript', access: 'read', needsAgent: true },
  { method: 'GET', path: '/transcripts', access: 'read' },
  { method: 'GET', path: '/agent-providers', access: 'read' },
  { method: 'GET', path: '/agent-presets', access: 'read' },
  { method: 'GET', path: '/agent-presets/greeter', access: 'read' },
  { method: 'GET', path: '/usage', access: 'read' },
  { method: 'GET', path: '/usage.csv', access: 'read' },
  { method: 'GET', path: '/events', access: 'read' },
  // Recordings: metadata for everyone; download (play) and delete — admin, developer
  { method: 'GET', path: '/recordings', access: 'read' },
  { method: 'GET', path: '/recordings/{recordingId}', access: 'read' },
  { method: 'GET', path: '/recordings/{recordingId}/tracks/p1', access: 'operate' },
  { method: 'DELETE', path: '/recordings/{recordingId}', access: 'operate' },
]

const ALLOWED: Record<Access, ReadonlyArray<Role>> = {
  public: ['admin', 'developer', 'viewer'],
  user: ['admin', 'developer', 'viewer'],
  read: ['admin', 'developer', 'viewer'],
  operate: ['admin', 'developer'],
  apiKeys: ['admin'],
  devicePasswords: ['admin'],
  administer: ['admin'],
}

let t: ConsoleEngine
let receiver: WebhookReceiver
let devices = 0
const callers = {} as Record<Role | 'outsider', ConsoleClient> & { userIds: Record<Role | 'outsider' | 'target' | 'spare', string> }
let anonymous: ConsoleClient

beforeAll(async () => {
  // The receiver is plain http on 127.0.0.1: allowed only with webhooks.allowPrivateNetworks.
  t = await startConsoleEngine({ extensions: [webhooksPlugin], webhooks: { allowPrivateNetworks: true } })
  receiver = await WebhookReceiver.start()
  receiver.verify = 'signature'
  const ids = {} as Record<Role | 'outsider' | 'target' | 'spare', string>
  for (const role of ['admin', 'developer', 'viewer', 'outsider'] as const) {
    const u = await t.user(`${role}@example.com`)
    callers[role] = u.client
    ids[role] = u.record.userId
  }
  ids.target = (await t.createUser('target@example.com')).userId
  ids.spare = (await t.createUser('spare-admin@example.com')).userId
  callers.userIds = ids
  anonymous = t.client()
  // The outsider has a workspace of their own, so "not a member" is not "no workspace at all".
  t.workspace(ids.outsider, 'elsewhere')
}, 60_000)

afterAll(async () => {
  await t?.stop()
  await receiver?.close()
})

/** A workspace where the three roles are members and every placeholder exists. */
const fixture = async (withAgent: boolean, withDelivery = false): Promise<Fixture> => {
  const { userIds } = callers
  const { people, engine } = t
  const host = engine.host
  // A second admin, so that the first one may leave.
  const workspaceId = t.workspace(userIds.admin, 'acme', [
    [userIds.developer, 'developer'],
    [userIds.viewer, 'viewer'],
    [userIds.target, 'viewer'],
    [userIds.spare, 'admin'],
  ])
  const now = host.clock.now()
  host.storage.clients.insert({
    workspaceId, clientId: 'dev-1', name: null, kind: null, room: 'lobby', ephemeral: false, expiresAt: null,
    tokensNotBefore: now, createdAt: now, updatedAt: now,
  })
  host.storage.agentPresets.insert({ workspaceId, presetId: 'greeter', name: null, provider: 'echo', config: {}, createdAt: now, updatedAt: now })
  const keyId = host.security.apiKeys.create(workspaceId, 'fixture').keyId
  const invitationId = people.invite(workspaceId, { email: 'invited@example.com', role: 'viewer' }, { userId: userIds.admin, label: 'admin@example.com', ip: null }).invitation.invitationId
  const agentId = withAgent ? (await host.agents.dispatch(workspaceId, 'lobby', { presetId: 'greeter', overrides: null })).agentId : null
  // Its conversation is on record (the transcript routes).
  await host.agents.transcripts!.flush()
  const webhooks = host.resolve<WebhooksPlugin>('plugin', 'webhooks')
  const created = await webhooks.endpoints.create(workspaceId, { url: receiver.url, events: ['client.deleted'] })
  receiver.secrets.push(created.secret)
  let deliveryId: string | null = null
  if (withDelivery) {
    // A test event, delivered (only a settled delivery can be redelivered).
    const sent = webhooks.endpoints.test(workspaceId, created.webhook.webhookId)
    await new Promise<void>((resolve) => {
      const off = webhooks.worker!.onAttempt((a) => {
        if (a.delivery.deliveryId === sent.deliveryId && a.state === 'delivered') {
          off()
          resolve()
        }
      })
    })
    // Redelivery reads the row, and outcomes are written in batches (at once only when the worker is
    // idle; other fixtures' endpoints may keep it busy): wait until this one is committed.
    await webhooks.worker!.whenIdle()
    await host.storage.batch(() => null)
    deliveryId = sent.deliveryId
  }
  const pending = host.security.deviceEnrollment.announce({ deviceId: `aa:bb:cc:00:00:${(++devices).toString(16).padStart(2, '0')}`, instanceId: `uuid-${devices}`, kind: 'xiaozhi' })
  if (pending.state !== 'pending') throw new Error('the fixture device should wait with a code')
  // A finished recording, as a recorder leaves one: its row and its track file on this node.
  const recordingId = newRecordingId(now)
  const dir = join(host.settings.dataDir, 'recordings', workspaceId, recordingId)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'p1.opus'), Buffer.from('OggS fixture bytes'))
  const nodeId = nodeIdOf(host.settings.cluster.nodeId, host.settings.dataDir)
  host.storage.recordings.insert({ recordingId, workspaceId, room: 'lobby', tracks: 'per-participant', nodeId, dir, startedAt: now, startedBy: 'api' })
  const trackList = [{ name: 'p1', participantId: 'dev-1', kind: 'terminal' as const, file: 'p1.opus', bytes: 18, durationMs: 1000 }]
  host.storage.recordings.end(recordingId, { status: 'finished', endedAt: now + 1000, durationMs: 1000, sizeBytes: 18, trackList, failure: null })
  return { workspaceId, keyId, invitationId, targetUserId: userIds.target, agentId, webhookId: created.webhook.webhookId, deliveryId, code: pending.code, recordingId }
}

const fill = (path: string, f: Fixture) =>
  `/api/workspaces/${f.workspaceId}${path}`
    .replace('{keyId}', f.keyId)
    .replace('{invitationId}', f.invitationId)
    .replace('{targetUserId}', f.targetUserId)
    .replace('{agentId}', f.agentId ?? 'ag_0000000000000000')
    .replace('{webhookId}', f.webhookId)
    .replace('{deliveryId}', f.deliveryId ?? 'dlv_00000000000000000000000000')
    .replace('{recordingId}', f.recordingId)

/** Open the event stream and read its head, then hang up. */
const openEvents = (client: ConsoleClient, path: string): Promise<{ status: number; type: string; first: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(client.base + path)
    const req = httpsRequest(
      { host: url.hostname, port: url.port, path: url.pathname, headers: { cookie: `__Host-hark_session=${client.sessionId}` }, ca: t.engine.host.tls.cert },
      (res) => {
        res.setEncoding('utf8')
        let first = ''
        const done = () => {
          resolve({ status: res.statusCode!, type: String(res.headers['content-type']), first })
          req.destroy()
        }
        res.on('data', (d: string) => {
          first += d
          if (first.includes('event: ready') || res.statusCode !== 200) done()
        })
        res.on('end', done)
      },
    )
    req.on('error', (e) => (e.message === 'socket hang up' ? undefined : reject(e)))
    req.end()
  })

describe('the console role table', () => {
  it('lists every route of the console API with the access the issue gives it', () => {
    const workspaceRoutes = t.plugin.routes
      .filter((r) => r.url.startsWith('/api/workspaces/:workspaceId') && !r.url.endsWith('/'))
      .map((r) => `${r.method} ${r.url.slice('/api/workspaces/:workspaceId'.length)} ${r.access}`)
      .sort()
    const expected = ROWS.map((r) => `${r.method} ${r.path.replace('/tracks/p1', '/tracks/:track').replace('dev-1', ':clientId').replace('lobby', ':room').replace('greeter', ':presetId').replace(/\{(\w+)\}/g, ':$1').replace(':targetUserId', ':userId')} ${r.access}`).sort()
    expect(workspaceRoutes).toEqual(expected)
    // Outside a workspace: only signing in, sessions, the user's workspaces and invitations.
    expect(t.plugin.routes.filter((r) => !r.url.startsWith('/api/workspaces/:workspaceId')).map((r) => `${r.method} ${r.url} ${r.access}`).sort()).toEqual([
      'DELETE /api/session user',
      'GET /api/invitations/:token public',
      'GET /api/session user',
      'GET /api/workspaces user',
      'POST /api/account/password user',
      'POST /api/invitations/:token/accept user',
      'POST /api/invitations/:token/register public',
      'POST /api/session public',
      'POST /api/session/end-all user',
      'POST /api/workspaces user',
    ])
  })

  it('is documented in spec/console.md: every route, with its access, and nothing else', () => {
    const spec = readFileSync(join(repoRoot, 'spec/console.md'), 'utf8')
    const documented = [...spec.matchAll(/^\| `([A-Z]+)` \| `(\/api[^`]*)` \| (\w+) \|/gm)].map((m) => `${m[1]} ${m[2]!.replace(/\{(\w+)\}/g, ':$1')} ${m[3]}`)
    const served = t.plugin.routes.filter((r) => !r.url.endsWith('/')).map((r) => `${r.method} ${r.url} ${r.access}`)
    expect(documented.sort()).toEqual(served.sort())
  })

  for (const row of ROWS) {
    it(`${row.method} ${row.path || '/'}: ${ALLOWED[row.access].join(', ')} may; others 403, outsiders 404, anonymous 401`, async () => {
      // Refusals first, on one workspace, which must come out of them unchanged.
      const f = await fixture(row.needsAgent === true, row.needsDelivery === true)
      const before = JSON.stringify(await snapshot(f.workspaceId))
      for (const role of ['admin', 'developer', 'viewer'] as const) {
        if (ALLOWED[row.access].includes(role)) continue
        const r = await callers[role].call(row.method, fill(row.path, f), row.body?.(f))
        expect([role, r.status, r.body?.error?.code]).toEqual([role, 403, 'forbidden'])
      }
      const outsider = await callers.outsider.call(row.method, fill(row.path, f), row.body?.(f))
      expect([outsider.status, outsider.body?.error?.code]).toEqual([404, 'workspace_not_found'])
      const nobody = await anonymous.call(row.method, fill(row.path, f), row.body?.(f))
      expect([nobody.status, nobody.body?.error?.code]).toEqual([401, 'unauthenticated'])
      expect(JSON.stringify(await snapshot(f.workspaceId))).toBe(before)

      // Each allowed role on a workspace of its own: the action is done.
      for (const role of ALLOWED[row.access]) {
        const mine = await fixture(row.needsAgent === true, row.needsDelivery === true)
        const path = fill(row.path, mine)
        if (row.path === '/events') {
          const stream = await openEvents(callers[role], path)
          expect([role, stream.status, stream.type]).toEqual([role, 200, 'text/event-stream; charset=utf-8'])
          continue
        }
        const unchanged = JSON.stringify(await snapshot(mine.workspaceId))
        const r = await callers[role].call(row.method, path, row.body?.(mine))
        if (row.refusedBeyondAccess !== undefined) {
          expect([role, `${r.status} ${r.body?.error?.code}`]).toEqual([role, row.refusedBeyondAccess])
          continue
        }
        expect([role, r.status < 300 ? 'ok' : `${r.status} ${r.text}`]).toEqual([role, 'ok'])
        if (row.method !== 'GET') expect(JSON.stringify(await snapshot(mine.workspaceId)), `${role} changed something`).not.toBe(unchanged)
      }
    }, 60_000)
  }

  it('transcripts: admins and developers read the text (each read audited), a viewer who spoke when only', async () => {
    const f = await fixture(true)
    const { agents, storage } = t.engine.host
    const log = agents.transcripts!.conversation({
      workspaceId: f.workspaceId, agentId: f.agentId!, room: 'lobby', identity: 'agent@greeter', provider: 'echo', presetId: 'greeter', startedAt: Date.now(),
    })
    const at = Date.now()
    log.turn({ seq: 1, kind: 'speech', role: 'user', speaker: 'dev-1', clientId: 'dev-1', text: 'my card number is secret', startedAt: at - 500, endedAt: at, interrupted: false, interruptedBy: null, tool: null })
    log.turn({
      seq: 2, kind: 'tool_call', role: 'agent', speaker: 'agent@greeter', clientId: null, text: null, startedAt: at, endedAt: at + 30, interrupted: false, interruptedBy: null,
      tool: { name: 'lookup', source: 'backend', arguments: { card: 'secret' }, result: 'ok', error: null, latencyMs: 30 },
    })
    await agents.transcripts!.flush()
    const path = fill('/agents/{agentId}/transcript', f)
    const reads = () => storage.auditEvents.ofWorkspace(f.workspaceId, { limit: 50 }).filter((e) => e.action === 'transcript.read').length
    for (const role of ['admin', 'developer'] as const) {
      const before = reads()
      const r = await callers[role].call('GET', path)
      expect(r.body).toMatchObject({ textHidden: false, turns: 2, items: [{ text: 'my card number is secret' }, { tool: { name: 'lookup', arguments: { card: 'secret' } } }] })
      expect(reads()).toBe(before + 1)
    }
    const before = reads()
    const viewer = await callers.viewer.call('GET', path)
    expect(viewer.body).toMatchObject({ textHidden: true, turns: 2, items: [{ seq: 1, speaker: 'dev-1', text: null, tool: null }, { seq: 2, kind: 'tool_call', text: null, tool: null }] })
    expect(viewer.text).not.toContain('secret')
    expect(reads()).toBe(before)
    expect((await callers.viewer.call('GET', fill('/transcripts?room=lobby', f))).body.items).toEqual([expect.objectContaining({ agentId: f.agentId, turns: 2 })])
    // Bad input answers 400, not the conversation.
    expect((await callers.admin.call('GET', `${path}?cursor=${Buffer.from('x').toString('base64url')}`)).status).toBe(400)
    expect((await callers.admin.call('GET', fill('/transcripts?from=soon', f))).status).toBe(400)
  }, 60_000)
})

/** What a change could touch in a workspace: its rows and its live agents. */
const snapshot = async (workspaceId: string) => {
  const { storage, agents, security } = t.engine.host
  return {
    workspace: storage.workspaces.get(workspaceId),
    members: storage.memberships.members(workspaceId).map((m) => [m.userId, m.role]),
    invitations: storage.invitations.list(workspaceId).map((i) => [i.invitationId, i.revokedAt]),
    keys: security.apiKeys.list(workspaceId).map((k) => [k.keyId, k.revokedAt]),
    secrets: storage.signingSecrets.live(workspaceId, Date.now()).map((s) => s.kid),
    clients: storage.clients.list(workspaceId, { limit: 100 }).map((c) => [c.clientId, c.room, c.tokensNotBefore]),
    tokens: storage.issuedTokens.mintedSince(workspaceId, 'dev-1', 0),
    passwords: storage.devicePasswords.get(workspaceId, 'dev-1')?.lookupHash ?? null,
    presets: storage.agentPresets.list(workspaceId, { after: '', limit: 100 }).map((p) => [p.presetId, p.name]),
    rooms: storage.roomSettings.get(workspaceId, 'lobby'),
    agents: agents.list(workspaceId).map((a) => [a.agentId, a.state]),
    transcripts: storage.transcripts.list(workspaceId, { room: null, clientId: null, from: null, to: null, before: null, limit: 100 }).map((x) => x.agentId),
    webhooks: storage.webhookEndpoints.list(workspaceId).map((w) => [
      w.webhookId, w.url, w.description, w.events, w.enabled, w.secretEnc,
      storage.webhookOutbox.list(workspaceId, w.webhookId, { limit: 100 }).map((d) => d.deliveryId),
    ]),
    devices: storage.deviceEnrollments.listBindings(workspaceId, { limit: 100 }).map((b) => [b.deviceId, b.clientId]),
    recordings: storage.recordings.list(workspaceId, { limit: 100 }).map((r) => r.recordingId),
    // A download changes nothing but the audit log.
    downloads: storage.auditEvents.ofWorkspace(workspaceId, { limit: 100 }).filter((e) => e.action === 'recording.downloaded').length,
    // Changes that only reach live sessions (revoking every token of a client) show in the change log.
    changeLog: storage.changes.lastId(),
    // Live control of an agent changes no row: it is audited.
    audit: storage.auditEvents.ofWorkspace(workspaceId, { limit: 1000 }).length,
  }
}
