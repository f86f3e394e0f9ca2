/**
 * The console's live feed over server-sent events, against a real engine: presence as terminals
 * come and go, client changes from the console and from the REST API, room membership, who
 * speaks, agents starting and stopping; only the workspace's own events; and a stream that ends
 * when its access does: at once when its user is removed or signs out, when the operator disables
 * the user from the CLI (another process), and when its session expires unused (engine clock).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { RecordingLink, runCli, uplink } from '../../core/test/helpers.js'
import { startConsoleEngine, startConsoleEngineOnManualClock, type ConsoleEngine } from './test/consoleEngine.js'

let t: ConsoleEngine | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

/** An admin and a viewer of workspace acme, both signed in. */
const acme = async (engine: ConsoleEngine) => {
  const admin = await engine.user('admin@example.com')
  const viewer = await engine.user('viewer@example.com')
  const ws = engine.workspace(admin.record.userId, 'acme', [[viewer.record.userId, 'viewer']])
  return { admin, viewer, ws }
}

/** The same, with the viewer's event stream of acme open. */
const acmeWatched = async (engine: ConsoleEngine) => {
  const people = await acme(engine)
  const stream = await people.viewer.client.events(people.ws)
  await stream.next('ready')
  return { ...people, stream }
}

describe('console live events', () => {
  it("tell a workspace's viewers about presence, clients and rooms, and nothing of other workspaces", async () => {
    t = await startConsoleEngine()
    const { admin, viewer, ws } = await acme(t)
    const other = t.workspace(admin.record.userId, 'other')
    const stream = await viewer.client.events(ws)
    expect(stream.status).toBe(200)
    await stream.next('ready')
    const authors: unknown[] = []
    t.engine.host.storage.feed.on(['client.created', 'client.updated'], (c) => c.workspaceId === ws && authors.push(c.by))

    expect((await admin.client.post(`/api/workspaces/${ws}/clients`, { clientId: 'dev-1', room: 'lobby' })).status).toBe(201)
    await stream.next('client', (d) => d.clientId === 'dev-1' && d.change === 'created')
    expect((await admin.client.post(`/api/workspaces/${other}/clients`, { clientId: 'elsewhere', room: 'lobby' })).status).toBe(201)

    const { security, terminals } = t.engine.host
    const issued = await security.tokens.issue(ws, 'dev-1', null)
    const link = new RecordingLink('websocket')
    const session = terminals.open(await security.authenticateTerminal({ token: issued.token }), link)
    await stream.next('presence', (d) => d.clientId === 'dev-1' && d.online === true && d.transport === 'websocket')
    await stream.next('room', (d) => d.room === 'lobby')

    // A change made over the REST API shows too.
    const { apiKey: key, keyId } = security.apiKeys.create(ws, 'test')
    const patched = await fetch(`http://127.0.0.1:${t.engine.ports.rest}/api/v1/clients/dev-1`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ room: 'hall' }),
    })
    expect(patched.status).toBe(200)
    await stream.next('client', (d) => d.clientId === 'dev-1' && d.change === 'updated')
    await stream.next('room', (d) => d.room === 'hall')
    // The change feed says who made each change: the signed-in user, then the API key.
    expect(authors).toEqual([{ type: 'user', userId: admin.record.userId, email: 'admin@example.com' }, { type: 'apiKey', keyId }])

    session.end()
    await stream.next('presence', (d) => d.clientId === 'dev-1' && d.online === false)
    expect(stream.inbox.items.some((e) => JSON.stringify(e.data).includes('elsewhere'))).toBe(false)
    stream.close()
  })

  it('ends the stream of a member who is removed, and of a user who signs out, at once', async () => {
    t = await startConsoleEngine()
    const { admin, viewer, ws } = await acme(t)
    const removed = await viewer.client.events(ws)
    await removed.next('ready')
    const own = await admin.client.events(ws)
    await own.next('ready')
    expect((await admin.client.delete(`/api/workspaces/${ws}/members/${viewer.record.userId}`)).status).toBe(200)
    await removed.next('ended')
    await removed.next('(closed)')
    expect((await viewer.client.events(ws)).status).toBe(404)

    expect((await admin.client.delete('/api/session')).status).toBe(200)
    await own.next('ended')
    await own.next('(closed)')
    expect((await admin.client.events(ws)).status).toBe(401)
  })

  it('tell who starts and stops speaking, and which agents start and stop', async () => {
    t = await startConsoleEngine()
    const { admin, ws, stream } = await acmeWatched(t)
    expect((await admin.client.post(`/api/workspaces/${ws}/clients`, { clientId: 'dev-1', room: 'lobby' })).status).toBe(201)
    const { security, terminals } = t.engine.host
    const link = new RecordingLink('websocket')
    const session = terminals.open(await security.authenticateTerminal({ token: (await security.tokens.issue(ws, 'dev-1', null)).token }), link)
    await stream.next('presence', (d) => d.clientId === 'dev-1' && d.online === true)
    // Its frames count from its `session` event on (before it they are dropped, `early`).
    await link.event('session')

    // Two voiced frames start a talk spurt; it ends after the hangover without voice.
    session.pushAudio(uplink([1], 0x80 | 30), performance.now())
    session.pushAudio(uplink([1], 0x80 | 30), performance.now())
    await stream.next('speaking', (d) => d.room === 'lobby' && d.participantId === 'dev-1' && d.speaking === true)
    await stream.next('speaking', (d) => d.room === 'lobby' && d.participantId === 'dev-1' && d.speaking === false)

    const dispatched = await admin.client.post(`/api/workspaces/${ws}/agents`, { room: 'lobby' })
    expect(dispatched.status).toBe(201)
    const agentId = dispatched.body.agentId as string
    await stream.next('agent', (d) => d.agentId === agentId && d.room === 'lobby' && d.state === 'started')
    expect((await admin.client.delete(`/api/workspaces/${ws}/agents/${agentId}`)).status).toBe(200)
    await stream.next('agent', (d) => d.agentId === agentId && d.state === 'stopped')
    session.end()
    stream.close()
  })

  it('ends the stream of a user the operator disables from the CLI, at the engine\'s next change poll', async () => {
    t = await startConsoleEngine()
    const { stream } = await acmeWatched(t)
    const disabled = await runCli(['user', 'disable', 'viewer@example.com', '--data', t.dir])
    expect(disabled.code).toBe(0)
    await stream.next('ended')
    await stream.next('(closed)')
  })

  it('ends a stream when its session expires unused, on the engine clock; a request meanwhile moves the end', async () => {
    const started = await startConsoleEngineOnManualClock({ console: { sessionIdleSeconds: 120 } })
    t = started.t
    const { clock } = started
    const { admin, viewer, ws, stream } = await acmeWatched(t)
    // An open stream is not a use of the session: only the request at 61 s is (the admin's keeps theirs too).
    clock.advance(61_000)
    expect((await viewer.client.get(`/api/workspaces/${ws}`)).status).toBe(200)
    expect((await admin.client.get(`/api/workspaces/${ws}`)).status).toBe(200)
    clock.advance(59_000)
    // 120 s after sign-in the stream looks again, sees the session now ends at 181 s, and stays open.
    expect((await admin.client.post(`/api/workspaces/${ws}/clients`, { clientId: 'dev-1' })).status).toBe(201)
    await stream.next('client', (d) => d.clientId === 'dev-1')
    expect(stream.inbox.items.some((e) => e.event === 'ended')).toBe(false)
    clock.advance(60_999)
    expect((await admin.client.post(`/api/workspaces/${ws}/clients`, { clientId: 'dev-2' })).status).toBe(201)
    await stream.next('client', (d) => d.clientId === 'dev-2')
    expect(stream.inbox.items.some((e) => e.event === 'ended')).toBe(false)
    clock.advance(1)
    await stream.next('ended')
    await stream.next('(closed)')
    expect((await viewer.client.get(`/api/workspaces/${ws}`)).status).toBe(401)
  })
})
