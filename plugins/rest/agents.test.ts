import * as Schema from 'effect/Schema'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { echoAgent } from '../../agents/echo/index.js'
import { defineAgentProvider } from '../../core/index.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

const SECRET = 'sk-provider-secret-abcdef'

const thrower = defineAgentProvider('thrower', { isolate: false, create: () => ({
  configSchema: Schema.Struct({}),
  secrets: () => [SECRET],
  start: () => {
    throw new Error(`upstream said no to ${SECRET}`)
  },
}) })

let t: RestEngine
let acme: ReturnType<RestEngine['workspace']>
let other: ReturnType<RestEngine['workspace']>

beforeEach(async () => {
  t = await startRestEngine({ extensions: [echoAgent, thrower], agents: { startTimeoutMs: 2000, maxPerRoom: 2 } })
  acme = t.workspace('acme')
  other = t.workspace('other')
})
afterEach(() => t.stop())

describe('/api/v1/agents', () => {
  it('dispatches, lists, reads and stops agents of the caller’s workspace only', async () => {
    const created = await acme.api.post('/agents', { room: 'lobby' })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      agentId: expect.stringMatching(/^ag_[0-9A-Za-z]{16}$/), room: 'lobby', identity: 'agent@default',
      provider: 'echo', presetId: null, origin: 'api', state: 'running', reason: null, endedAt: null,
    })
    const { agentId } = created.body
    expect((await acme.api.get(`/agents/${agentId}`)).body).toMatchObject({ agentId, state: 'running' })
    expect((await acme.api.get('/agents?room=lobby')).body.agents.map((a: { agentId: string }) => a.agentId)).toEqual([agentId])
    expect((await acme.api.get('/agents?room=elsewhere')).body.agents).toEqual([])
    expect((await acme.api.get('/agents?state=stopped')).body.agents).toEqual([])

    // Another workspace: the agent does not exist for it.
    expect((await other.api.get(`/agents/${agentId}`)).status).toBe(404)
    expect((await other.api.delete(`/agents/${agentId}`)).status).toBe(404)
    expect((await other.api.get('/agents')).body.agents).toEqual([])

    const stopped = await acme.api.delete(`/agents/${agentId}`)
    expect(stopped.status).toBe(200)
    expect(stopped.body).toEqual({ agentId, stopped: true, state: 'stopped', reason: 'stopped by request' })
    expect((await acme.api.delete(`/agents/${agentId}`)).body).toEqual(stopped.body)
    expect((await acme.api.get(`/agents/${agentId}`)).body).toMatchObject({ state: 'stopped', endedAt: expect.any(String) })
    expect((await acme.api.get('/agents?state=stopped')).body.agents).toHaveLength(1)
  })

  it('refuses bad dispatches with the right status, and a failing provider with 502 and no secret', async () => {
    const refusals: Array<[unknown, number, RegExp]> = [
      [{}, 400, /room is required/],
      [{ room: 'bad room' }, 400, /room/],
      [{ room: 'r', extra: 1 }, 400, /unknown field extra/],
      [{ room: 'r', overrides: { silenceMs: 'long' } }, 400, /overrides\.silenceMs/],
      [{ room: 'r', overrides: { shout: true } }, 400, /overrides\.shout is not a setting of the echo provider/],
      [{ room: 'r', overrides: { apiKey: 'sk-x' } }, 400, /overrides\.apiKey is a server-side secret/],
      [{ room: 'r', overrides: [] }, 400, /overrides/],
      [{ room: 'r', presetId: '../etc' }, 400, /presetId/],
      [{ room: 'r', presetId: 'nope' }, 404, /no agent preset nope/],
    ]
    for (const [body, status, message] of refusals) {
      const res = await acme.api.post('/agents', body)
      expect(res.status, JSON.stringify(body)).toBe(status)
      expect(res.body.error.message).toMatch(message)
    }
    expect((await acme.api.get('/agents/ag_x')).status).toBe(400)
    expect((await acme.api.get('/agents/ag_0000000000000000')).status).toBe(404)

    await acme.api.post('/agents', { room: 'r' })
    const twice = await acme.api.post('/agents', { room: 'r' })
    expect(twice.status).toBe(409)
    expect(twice.body.error.message).toMatch(/agent@default is already in room r/)

    await acme.api.post('/agent-presets', { presetId: 'broken', provider: 'thrower' })
    const failed = await acme.api.post('/agents', { room: 'r', presetId: 'broken' })
    expect(failed.status).toBe(502)
    expect(failed.body.error).toMatchObject({ code: 'agent_start_failed', message: expect.stringMatching(/provider failed to start/) })
    expect(JSON.stringify(failed.body)).not.toContain(SECRET)
    const listed = (await acme.api.get('/agents?state=failed')).body.agents
    expect(listed).toEqual([expect.objectContaining({ identity: 'agent@broken', reason: 'provider failed to start' })])

    await acme.api.post('/agent-presets', { presetId: 'third', provider: 'echo' })
    expect((await acme.api.post('/agents', { room: 'r', presetId: 'third' })).status).toBe(201)
    const full = await acme.api.post('/agents', { room: 'r', presetId: 'third' })
    expect(full.status).toBe(409)
  })

  it('lists the providers with their config schemas', async () => {
    const res = await acme.api.get('/agent-providers')
    expect(res.body.providers.map((p: { name: string }) => p.name)).toEqual(['echo', 'thrower'])
    expect(res.body.providers[0].configSchema).toMatchObject({ type: 'object', properties: { silenceMs: { type: 'integer' } } })
  })
})

describe('/api/v1/agent-presets', () => {
  it('creates, pages, reads, updates and deletes presets, validated against the provider schema', async () => {
    const created = await acme.api.post('/agent-presets', { presetId: 'greeter', name: 'Greeter', provider: 'echo', config: { silenceMs: 300 } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ presetId: 'greeter', name: 'Greeter', provider: 'echo', config: { silenceMs: 300 } })
    await acme.api.post('/agent-presets', { presetId: 'alpha', provider: 'echo' })
    const page1 = await acme.api.get('/agent-presets?limit=1')
    expect(page1.body).toMatchObject({ presets: [{ presetId: 'alpha', config: {} }], nextCursor: 'alpha' })
    const page2 = await acme.api.get('/agent-presets?limit=1&cursor=alpha')
    expect(page2.body).toMatchObject({ presets: [{ presetId: 'greeter' }], nextCursor: null })
    expect((await other.api.get('/agent-presets')).body.presets).toEqual([])
    expect((await other.api.get('/agent-presets/greeter')).status).toBe(404)

    const refusals: Array<[unknown, number, RegExp]> = [
      [{ presetId: 'greeter', provider: 'echo' }, 409, /already exists/],
      [{ presetId: 'default', provider: 'echo' }, 400, /reserved/],
      [{ presetId: 'x', provider: 'nobody' }, 400, /no agent provider named nobody/],
      [{ presetId: 'x', provider: 'echo', config: { token: 't' } }, 400, /config\.token is a server-side secret/],
      [{ presetId: 'x', provider: 'echo', config: { silenceMs: 1 } }, 400, /config\.silenceMs/],
      [{ presetId: 'x' }, 400, /provider is required/],
    ]
    for (const [body, status, message] of refusals) {
      const res = await acme.api.post('/agent-presets', body)
      expect(res.status, JSON.stringify(body)).toBe(status)
      expect(res.body.error.message).toMatch(message)
    }

    const updated = await acme.api.patch('/agent-presets/greeter', { config: { silenceMs: 900 }, name: null })
    expect(updated.body).toMatchObject({ presetId: 'greeter', name: null, config: { silenceMs: 900 } })
    expect((await acme.api.patch('/agent-presets/greeter', {})).status).toBe(400)
    expect((await acme.api.patch('/agent-presets/greeter', { config: { loud: 1 } })).status).toBe(400)
    expect((await acme.api.patch('/agent-presets/greeter', { provider: 'thrower' })).body.error.message).toMatch(/config\.silenceMs is not a setting of the thrower provider/)
    expect((await other.api.patch('/agent-presets/greeter', { name: 'x' })).status).toBe(404)
    expect((await acme.api.get('/agent-presets/greeter')).body).toEqual(updated.body)

    // A dispatch from the preset, with overrides over it.
    const agent = await acme.api.post('/agents', { room: 'hall', presetId: 'greeter', overrides: { minSpeechMs: 50 } })
    expect(agent.body).toMatchObject({ identity: 'agent@greeter', presetId: 'greeter', name: 'echo' })

    expect((await acme.api.delete('/agent-presets/greeter')).body).toEqual({ presetId: 'greeter', deleted: true })
    expect((await acme.api.delete('/agent-presets/greeter')).status).toBe(404)
    // The agent started from it carries on.
    expect((await acme.api.get(`/agents/${agent.body.agentId}`)).body.state).toBe('running')
  })
})

describe('/api/v1/rooms/{room}', () => {
  it('stores a default agent that comes with the first terminal and goes with the last', async () => {
    expect((await acme.api.get('/rooms/lobby')).body).toEqual({ room: 'lobby', defaultAgent: null, participants: [], agents: [] })
    await acme.api.post('/agent-presets', { presetId: 'host', name: 'Host', provider: 'echo' })
    expect((await acme.api.put('/rooms/lobby', { defaultAgent: { presetId: 'missing' } })).status).toBe(404)
    expect((await acme.api.put('/rooms/lobby', { defaultAgent: { presetId: 'host', overrides: { url: 'x' } } })).status).toBe(400)
    expect((await acme.api.put('/rooms/lobby', { defaultAgent: { stopDelaySeconds: -1 } })).status).toBe(400)
    expect((await acme.api.put('/rooms/lobby', {})).status).toBe(400)

    const put = await acme.api.put('/rooms/lobby', { defaultAgent: { presetId: 'host', stopDelaySeconds: 0 } })
    expect(put.body).toEqual({
      room: 'lobby', defaultAgent: { presetId: 'host', overrides: null, stopDelaySeconds: 0 }, participants: [], agents: [],
    })
    expect((await other.api.get('/rooms/lobby')).body.defaultAgent).toBeNull()

    acme.addClient('dev-1', 'lobby')
    const dev = await t.connect(acme.workspaceId, 'dev-1')
    const joined = await dev.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    expect(joined.participant).toMatchObject({ id: 'agent@host', name: 'Host' })
    const room = (await acme.api.get('/rooms/lobby')).body
    expect(room.participants.map((p: { id: string; kind: string; transport: string | null }) => [p.id, p.kind, p.transport])).toEqual([
      ['dev-1', 'terminal', 'test'],
      ['agent@host', 'agent', null],
    ])
    expect(room.agents).toEqual([expect.objectContaining({ identity: 'agent@host', origin: 'default', state: 'running' })])

    // Clearing the setting stops it at once; setting it again brings it back while dev-1 is there.
    await acme.api.put('/rooms/lobby', { defaultAgent: null })
    await dev.link.event('agent.stopped', (e) => e.identity === 'agent@host')
    await acme.api.put('/rooms/lobby', { defaultAgent: { stopDelaySeconds: 0 } })
    await dev.link.event('participant.joined', (e) => e.participant.id === 'agent@default')
    const [running] = t.engine.host.agents.live(acme.workspaceId, 'lobby')
    dev.session.end()
    await running!.ended
    expect((await acme.api.get('/rooms/lobby')).body).toMatchObject({ participants: [], agents: [] })
    expect((await acme.api.get(`/agents/${running!.agentId}`)).body).toMatchObject({ state: 'stopped', reason: 'room empty' })
  })
})
