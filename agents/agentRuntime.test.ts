import { Writable } from 'node:stream'
import * as Schema from 'effect/Schema'
import { ManualClock } from '../core/clock.js'
import { afterEach, describe, expect, it } from 'vitest'
import { echoAgent } from './echo/index.js'
import { AgentFailure, type AgentSession } from '../core/agentProvider.js'
import type { Engine } from '../core/engine.js'
import { AgentStartFailed, Conflict, NotFound, ValidationFailed } from '../core/errors.js'
import { defineAgentProvider, type Extension } from '../core/index.js'
import { createLogger } from '../core/log.js'
import { concat, DownlinkDecoder, rms, silence, tone, UplinkEncoder } from '../core/test/speech.js'
import { Inbox, RecordingLink, seedWorkspace, startTestEngine, uplink } from '../core/test/helpers.js'

const SECRET = 'sk-live-very-secret-key'
const ENDPOINT = 'wss://provider.internal.example:7443/v1'

/** Providers that misbehave in every way a provider can. */
const misbehaving: Extension[] = [
  defineAgentProvider('thrower', { isolate: false, create: () => ({
    configSchema: Schema.Struct({}),
    secrets: () => [SECRET, ENDPOINT],
    start: () => {
      throw new Error(`cannot reach ${ENDPOINT} with ${SECRET}`)
    },
  }) }),
  defineAgentProvider('crasher', { isolate: false, create: () => ({
    configSchema: Schema.Struct({}),
    secrets: () => [SECRET],
    start: (): AgentSession => ({
      onAudio: () => {
        throw new TypeError(`crashed holding ${SECRET}`)
      },
    }),
  }) }),
  defineAgentProvider('timebomb', { isolate: false, create: () => ({
    configSchema: Schema.Struct({}),
    start: (): AgentSession => {
      // Thrown from the provider's own timer and socket-like promise: no try/catch of ours is on the stack.
      setTimeout(() => {
        throw new Error('late boom')
      }, 5)
      return {}
    },
  }) }),
  defineAgentProvider('rejectlater', { isolate: false, create: () => ({
    configSchema: Schema.Struct({}),
    start: (): AgentSession => ({
      onEvent: () => {
        setImmediate(() => void Promise.reject(new Error('rejected later')))
      },
    }),
  }) }),
  defineAgentProvider('hanger', { isolate: false, create: () => ({
    configSchema: Schema.Struct({}),
    start: () => new Promise<AgentSession>(() => {}),
  }) }),
  defineAgentProvider('quitter', { isolate: false, create: () => ({
    configSchema: Schema.Struct({}),
    secrets: () => [SECRET],
    start: (ctx) => ({
      onEvent: (e) => {
        if (e.type === 'speaking.started') ctx.fail(`quota exceeded for ${SECRET}`)
      },
    }),
  }) }),
  defineAgentProvider('rejecter', { isolate: false, create: () => ({
    configSchema: Schema.Struct({}),
    start: async () => {
      throw new AgentFailure('upstream refused the session')
    },
  }) }),
  defineAgentProvider('listener', { isolate: false, create: () => ({
    configSchema: Schema.Struct({}),
    start: (): AgentSession => ({
      onSourceAudio: (pcm, from) => heard.push({ from: from.id, kind: from.kind, samples: pcm.length, level: rms(pcm) }),
    }),
  }) }),
  defineAgentProvider('tuned', { isolate: false, create: () => ({
    configSchema: Schema.Struct({ voice: Schema.optionalKey(Schema.String), speed: Schema.optionalKey(Schema.Number) }),
    start: () => ({}),
  }) }),
]

/** What the `listener` provider heard, per decoded packet. */
const heard = new Inbox<{ from: string; kind: string; samples: number; level: number }>()

let t: Awaited<ReturnType<typeof startTestEngine>>
let engine: Engine
let seed: ReturnType<typeof seedWorkspace>
let logged: string[]

const start = async (extra: Parameters<typeof startTestEngine>[0] = {}, clock?: ManualClock) => {
  logged = []
  const sink = new Writable({ write: (chunk, _enc, cb) => (logged.push(String(chunk)), cb()) })
  t = await startTestEngine(
    { extensions: [echoAgent, ...misbehaving], agents: { startTimeoutMs: 500, stopTimeoutMs: 500 }, ...extra },
    { logger: createLogger('debug', sink), ...(clock ? { clock } : {}) },
  )
  engine = t.engine
  seed = seedWorkspace(engine)
}
afterEach(() => t.stop())

const connect = async (clientId: string, room = 'lobby') => {
  if (!engine.host.storage.clients.get(seed.workspaceId, clientId)) seed.addClient(clientId, room)
  const { token } = await engine.host.security.tokens.issue(seed.workspaceId, clientId, null)
  const link = new RecordingLink()
  const session = engine.host.terminals.open(await engine.host.security.authenticateTerminal({ token }), link)
  await link.event('session')
  return { link, session }
}

/** Send speech (a tone) then silence, as a terminal would: one uplink frame per 20 ms of audio. */
const speak = (session: { pushAudio(u: Uint8Array): void }, speechMs = 400, silenceMs = 800) => {
  const encoder = new UplinkEncoder()
  for (const frame of encoder.frames(concat(tone(speechMs), silence(silenceMs)))) session.pushAudio(frame)
}

describe('agents in rooms', () => {
  it('echo joins as an agent participant, plays each utterance back as Opus, and leaves on stop', async () => {
    await start()
    const a = await connect('a')
    const view = await engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    expect(view).toMatchObject({ room: 'lobby', identity: 'agent@default', provider: 'echo', state: 'running', origin: 'api' })
    const joined = await a.link.event('participant.joined')
    expect(joined.participant).toMatchObject({ id: 'agent@default', kind: 'agent', name: 'echo' })
    expect(await a.link.event('agent.started')).toMatchObject({ agentId: view.agentId, identity: 'agent@default' })

    speak(a.session, 400, 800)
    const echoed = await a.link.event('agent.event')
    expect(echoed.event).toMatchObject({ kind: 'echo' })
    expect(Number(echoed.event.durationMs)).toBeGreaterThanOrEqual(400)

    // The echo comes back from the agent's source, as real Opus, about as long as the speech.
    const decoder = new DownlinkDecoder()
    const expectedFrames = Math.floor(400 / 20)
    await a.link.frames.next(() => a.link.frames.items.length >= expectedFrames, 5000, 'echoed frames')
    const decoded = a.link.frames.items.map((f) => decoder.decode(f))
    expect(new Set(decoded.map((d) => d.sourceId))).toEqual(new Set([joined.participant.sourceId]))
    expect(rms(concat(...decoded.map((d) => d.pcm)))).toBeGreaterThan(0.05)

    const metrics = await engine.host.metrics.metrics()
    expect(metrics).toMatch(/hark_agents\{state="running"\} 1/)
    expect(Number(/hark_agent_frames_sent_total (\d+)/.exec(metrics)![1])).toBeGreaterThanOrEqual(expectedFrames)

    const stopped = await engine.host.agents.stop(seed.workspaceId, view.agentId)
    expect(stopped).toMatchObject({ state: 'stopped', reason: 'stopped by request' })
    expect(await a.link.event('participant.left')).toMatchObject({ participant: { id: 'agent@default', kind: 'agent' } })
    expect(await a.link.event('agent.stopped')).toMatchObject({ agentId: view.agentId, reason: 'stopped by request' })
    expect(engine.host.agents.get(seed.workspaceId, view.agentId)).toMatchObject({ state: 'stopped' })
    expect(engine.host.terminals.roomView(seed.workspaceId, 'lobby')!.participants.map((p) => p.id)).toEqual(['a'])
  })

  it('a provider that throws, crashes, hangs or quits fails alone: the room and the engine carry on', async () => {
    // Agent timeouts run on the engine's clock: the hanging start times out when the test says so
    // (a minute of it, far longer than the test runs in real time).
    const clock = new ManualClock(Date.now())
    await start({ agents: { startTimeoutMs: 60_000, stopTimeoutMs: 500 } }, clock)
    const a = await connect('a')
    const b = await connect('b')

    // Throwing at start: the dispatch fails with a public reason, no secret in it.
    engine.host.storage.agentPresets.insert({
      workspaceId: seed.workspaceId, presetId: 'bad', name: null, provider: 'thrower', config: {}, createdAt: 1, updatedAt: 1,
    })
    const e1 = await engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'bad' }).catch((e) => e)
    expect(e1).toBeInstanceOf(AgentStartFailed)
    expect(e1.message).toMatch(/provider failed to start/)
    expect(await a.link.event('agent.stopped', (e) => e.identity === 'agent@bad')).toMatchObject({ reason: 'provider failed to start' })

    // An AgentFailure's own reason reaches the room.
    for (const [presetId, provider] of [['crash', 'crasher'], ['hang', 'hanger'], ['quit', 'quitter'], ['refuse', 'rejecter']] as const) {
      engine.host.storage.agentPresets.insert({
        workspaceId: seed.workspaceId, presetId, name: null, provider, config: {}, createdAt: 1, updatedAt: 1,
      })
    }
    const e2 = await engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'refuse' }).catch((e) => e)
    expect(e2).toBeInstanceOf(AgentStartFailed)
    expect(e2.message).toMatch(/upstream refused the session/)

    // Hanging at start: the start timeout fails it.
    const hanging = engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'hang' }).catch((e) => e)
    clock.advance(59_999)
    expect(engine.host.agents.list(seed.workspaceId, { live: true }).map((x) => x.identity)).toContain('agent@hang')
    clock.advance(1)
    const e3 = await hanging
    expect(e3).toBeInstanceOf(AgentStartFailed)
    expect(e3.message).toMatch(/start timed out/)

    // Crashing and quitting while running: they join, then fail on the first audio / speech.
    const crash = await engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'crash' })
    const quit = await engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'quit' })
    expect(crash.state).toBe('running')
    speak(a.session, 200, 100)
    const crashStopped = await b.link.event('agent.stopped', (e) => e.agentId === crash.agentId)
    expect(crashStopped.reason).toBe('provider error (onAudio)')
    const quitStopped = await b.link.event('agent.stopped', (e) => e.agentId === quit.agentId)
    expect(quitStopped.reason).toBe('quota exceeded for [redacted]')
    await b.link.event('participant.left', (e) => e.participant.id === 'agent@crash')
    await b.link.event('participant.left', (e) => e.participant.id === 'agent@quit')
    expect(engine.host.agents.get(seed.workspaceId, crash.agentId)).toMatchObject({ state: 'failed', reason: 'provider error (onAudio)' })

    // The terminals still hear each other, and a healthy agent still works.
    const before = b.link.frames.items.length
    a.session.pushAudio(uplink([1, 2, 3]))
    await b.link.frames.next(() => b.link.frames.items.length > before, 2000, 'a frame from a')
    const echo = await engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    expect(echo.state).toBe('running')
    expect(engine.host.terminals.roomView(seed.workspaceId, 'lobby')!.participants.map((p) => p.id).sort()).toEqual([
      'a', 'agent@default', 'b',
    ])

    // Nothing secret in any event, view or log line.
    const everything = JSON.stringify([a.link.events.items, b.link.events.items, engine.host.agents.list(seed.workspaceId)]) + logged.join('')
    expect(everything).not.toContain(SECRET)
    expect(everything).not.toContain('provider.internal.example')
    expect(logged.join('')).toContain('[redacted]')
  })

  it('a provider whose own timer throws, or whose later promise rejects, fails alone (fault containment)', async () => {
    await start()
    const a = await connect('a')
    const b = await connect('b')
    for (const [presetId, provider] of [['bomb', 'timebomb'], ['later', 'rejectlater']] as const) {
      engine.host.storage.agentPresets.insert({
        workspaceId: seed.workspaceId, presetId, name: null, provider, config: {}, createdAt: 1, updatedAt: 1,
      })
    }
    const bomb = await engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'bomb' })
    expect(await a.link.event('agent.stopped', (e) => e.agentId === bomb.agentId)).toMatchObject({ reason: 'provider error (async)' })
    const later = await engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'later' })
    // Any room event reaches its onEvent, which rejects a promise on the next turn.
    const c = await connect('c')
    expect(await b.link.event('agent.stopped', (e) => e.agentId === later.agentId)).toMatchObject({ reason: 'provider error (async)' })
    expect(engine.host.agents.get(seed.workspaceId, bomb.agentId)).toMatchObject({ state: 'failed' })
    // The engine and the room carry on.
    c.session.pushAudio(uplink([7]))
    await a.link.frames.next((f) => f[f.length - 1] === 7, 2000, "c's frame")
    expect(engine.state).toBe('running')
  })

  it('validates presets, overrides, identities and limits', async () => {
    await start({ agents: { maxPerRoom: 2 } })
    const ws = seed.workspaceId
    const agents = engine.host.agents
    engine.host.storage.agentPresets.insert({
      workspaceId: ws, presetId: 'tuned', name: 'Tuned', provider: 'tuned', config: { voice: 'a' }, createdAt: 1, updatedAt: 1,
    })
    expect(agents.resolve(ws, { presetId: 'tuned', overrides: { speed: 2 } })).toMatchObject({
      providerName: 'tuned', identity: 'agent@tuned', name: 'Tuned', config: { voice: 'a', speed: 2 },
    })
    const refused = (request: Parameters<typeof agents.resolve>[1]) => {
      try {
        agents.resolve(ws, request)
      } catch (e) {
        return e
      }
      return null
    }
    expect(refused({ presetId: 'tuned', overrides: { pitch: 1 } })).toMatchObject({ _tag: 'ValidationFailed', field: 'overrides.pitch' })
    expect(refused({ presetId: 'tuned', overrides: { speed: 'fast' } })).toBeInstanceOf(ValidationFailed)
    expect(refused({ presetId: 'tuned', overrides: { apiKey: 'x' } })).toMatchObject({ field: 'overrides.apiKey', message: expect.stringMatching(/server-side secret/) })
    expect(refused({ overrides: { silenceMs: 300, nested: { baseUrl: 'x' } } })).toMatchObject({ field: 'overrides.nested.baseUrl' })
    expect(refused({ presetId: 'nope' })).toBeInstanceOf(NotFound)
    expect(refused({ presetId: '../x' })).toBeInstanceOf(ValidationFailed)
    expect(refused({ overrides: [] as unknown as Record<string, unknown> })).toBeInstanceOf(ValidationFailed)
    expect(() => agents.validatePreset('nobody', {})).toThrow(/no agent provider named nobody/)
    // An empty schema takes no fields at all (Effect's empty Struct alone would accept any object).
    expect(() => agents.validatePreset('crasher', { x: 1 })).toThrow(/config\.x is not a setting of the crasher provider/)
    expect(agents.providers().find((p) => p.name === 'echo')).toMatchObject({
      description: expect.stringMatching(/utterance/),
      configSchema: {
        type: 'object',
        properties: { silenceMs: { type: 'integer', minimum: 100, maximum: 2000, default: 500, description: expect.stringMatching(/silence/) } },
        additionalProperties: false,
      },
    })

    const first = await agents.dispatch(ws, 'r', {})
    await expect(agents.dispatch(ws, 'r', {})).rejects.toBeInstanceOf(Conflict)
    await agents.dispatch(ws, 'r', { presetId: 'tuned' })
    engine.host.storage.agentPresets.insert({
      workspaceId: ws, presetId: 'third', name: null, provider: 'echo', config: {}, createdAt: 1, updatedAt: 1,
    })
    await expect(agents.dispatch(ws, 'r', { presetId: 'third' })).rejects.toThrow(/already has 2 agents/)
    // Another workspace sees none of it.
    const other = seedWorkspace(engine, 'other')
    await expect(agents.stop(other.workspaceId, first.agentId)).rejects.toBeInstanceOf(NotFound)
    expect(agents.get(other.workspaceId, first.agentId)).toBeNull()
    expect(agents.list(other.workspaceId)).toEqual([])
    expect(agents.list(ws, { room: 'r' }).map((a) => a.identity).sort()).toEqual(['agent@default', 'agent@tuned'])
    expect(agents.list(ws, { room: 'elsewhere' })).toEqual([])
  })

  it('a session that asks for per-source audio hears each member apart, decoded, with who it is', async () => {
    await start()
    const a = await connect('a')
    const b = await connect('b')
    engine.host.storage.agentPresets.insert({
      workspaceId: seed.workspaceId, presetId: 'ears', name: null, provider: 'listener', config: {}, createdAt: 1, updatedAt: 1,
    })
    await engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'ears' })
    const loud = new UplinkEncoder()
    for (const frame of loud.frames(tone(100))) a.session.pushAudio(frame)
    for (const frame of new UplinkEncoder().frames(silence(60))) b.session.pushAudio(frame)
    await heard.next(() => heard.items.filter((h) => h.from === 'a').length >= 5, 5000, 'a, five packets')
    await heard.next(() => heard.items.filter((h) => h.from === 'b').length >= 3, 5000, 'b, three packets')
    expect(new Set(heard.items.map((h) => h.kind))).toEqual(new Set(['terminal']))
    expect(heard.items.every((h) => h.samples === 320)).toBe(true)
    expect(Math.max(...heard.items.filter((h) => h.from === 'a').map((h) => h.level))).toBeGreaterThan(0.1)
    expect(Math.max(...heard.items.filter((h) => h.from === 'b').map((h) => h.level))).toBeLessThan(0.01)
    // A packet that is not Opus costs that packet only.
    a.session.pushAudio(uplink([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))
    for (const frame of loud.frames(tone(40))) a.session.pushAudio(frame)
    await heard.next(() => heard.items.filter((h) => h.from === 'a').length >= 7, 5000, 'a, after a bad packet')
    expect(engine.host.agents.list(seed.workspaceId)[0]!.state).toBe('running')
  })

  it('agents are never metered: usage counts terminal sessions only', async () => {
    await start()
    const a = await connect('a')
    await engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    speak(a.session, 200, 600)
    await a.link.event('agent.event')
    const live = engine.host.storage.usage.openSessions(seed.workspaceId)
    expect(live.map((s) => s.clientId)).toEqual(['a'])
  })
})

describe('room default agent', () => {
  const setDefault = (room: string, defaultAgent: { presetId?: string | null; overrides?: Record<string, unknown> | null; stopDelaySeconds?: number | null } | null) =>
    seed.setDefaultAgent(room, defaultAgent && {
      presetId: defaultAgent.presetId ?? null,
      overrides: defaultAgent.overrides ?? null,
      stopDelaySeconds: defaultAgent.stopDelaySeconds ?? null,
    })

  it('starts with the first terminal, stays while terminals come and go, stops when the room empties', async () => {
    await start()
    setDefault('lobby', { overrides: { silenceMs: 300 }, stopDelaySeconds: 0 })
    const a = await connect('a')
    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    expect(joined.participant.id).toBe('agent@default')
    const [agent] = engine.host.agents.live(seed.workspaceId, 'lobby')
    expect(agent!.view()).toMatchObject({ origin: 'default', provider: 'echo' })

    // A second terminal joining and leaving changes nothing: one default agent per occupancy cycle.
    const b = await connect('b')
    expect((await b.link.event('session')).participants.map((p) => p.id).sort()).toEqual(['a', 'agent@default'])
    b.session.end()
    await a.link.event('participant.left', (e) => e.participant.id === 'b')
    speak(a.session, 300, 400)
    await a.link.event('agent.event')
    expect(engine.host.agents.live(seed.workspaceId, 'lobby').map((x) => x.agentId)).toEqual([agent!.agentId])

    // The last terminal leaves: with no delay the agent stops at once.
    a.session.end()
    await agent!.ended
    expect(agent!.view()).toMatchObject({ state: 'stopped', reason: 'room empty' })

    // The next occupancy cycle starts a new one.
    const again = await connect('a2')
    await again.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    expect(engine.host.agents.live(seed.workspaceId, 'lobby')[0]!.agentId).not.toBe(agent!.agentId)
  })

  it('a room with no default agent gets no room-agents actor; one set while terminals are in it starts its agent at once', async () => {
    await start()
    const a = await connect('a')
    await a.link.event('session')
    // Nothing wants an agent there: a join costs no room-agents actor and no roster.
    expect(engine.host.terminals.roomAgents(seed.workspaceId, 'lobby')).toBeUndefined()
    setDefault('lobby', { stopDelaySeconds: 0 })
    expect((await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')).participant.id).toBe('agent@default')
    expect(engine.host.agents.live(seed.workspaceId, 'lobby').map((x) => x.view().origin)).toEqual(['default'])
    // The room's next terminal finds it in the roster the agent reads.
    const b = await connect('b')
    await b.link.event('session')
    const roster = engine.host.terminals.roomAgents(seed.workspaceId, 'lobby')!.getSnapshot().context.roster
    expect(roster.participants.map((p) => p.id).sort()).toEqual(['a', 'agent@default', 'b'])
  })

  it('a terminal back within the stop delay keeps the same agent, past it the agent stops; a changed setting swaps it; no setting stops it', async () => {
    // The stop delay runs on the engine's clock: a minute passes when the test says so.
    const clock = new ManualClock(Date.now())
    await start({}, clock)
    engine.host.storage.agentPresets.insert({
      workspaceId: seed.workspaceId, presetId: 'tuned', name: 'Tuned', provider: 'tuned', config: {}, createdAt: 1, updatedAt: 1,
    })
    setDefault('lobby', { stopDelaySeconds: 60 })
    const a = await connect('a')
    await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    const [agent] = engine.host.agents.live(seed.workspaceId, 'lobby')
    a.session.end()
    await clock.advanceAsync(59_999)
    const back = await connect('a')
    expect((await back.link.event('session')).participants.map((p) => p.id)).toEqual(['agent@default'])
    expect(agent!.state).toBe('running')

    back.session.end()
    await clock.advanceAsync(60_000)
    await agent!.ended
    expect(agent!.view()).toMatchObject({ state: 'stopped', reason: 'room empty' })
    const again = await connect('a')
    await again.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    const [second] = engine.host.agents.live(seed.workspaceId, 'lobby')
    expect(second!.agentId).not.toBe(agent!.agentId)

    setDefault('lobby', { presetId: 'tuned', stopDelaySeconds: 0 })
    expect(await again.link.event('agent.stopped', (e) => e.agentId === second!.agentId)).toMatchObject({ reason: 'room default agent changed' })
    await again.link.event('participant.joined', (e) => e.participant.id === 'agent@tuned')
    const [tuned] = engine.host.agents.live(seed.workspaceId, 'lobby')
    expect(tuned!.view()).toMatchObject({ identity: 'agent@tuned', name: 'Tuned', origin: 'default' })

    setDefault('lobby', null)
    await tuned!.ended
    expect(engine.host.agents.live(seed.workspaceId, 'lobby')).toEqual([])
  })

  it('a default agent that fails is not restarted in a loop', async () => {
    await start()
    engine.host.storage.agentPresets.insert({
      workspaceId: seed.workspaceId, presetId: 'bad', name: null, provider: 'thrower', config: {}, createdAt: 1, updatedAt: 1,
    })
    setDefault('lobby', { presetId: 'bad' })
    const a = await connect('a')
    await a.link.event('agent.stopped')
    const b = await connect('b')
    await a.link.event('participant.joined', (e) => e.participant.id === 'b')
    b.session.end()
    await a.link.event('participant.left', (e) => e.participant.id === 'b')
    // Still one failed agent, none started again for b's join.
    expect(engine.host.agents.list(seed.workspaceId).map((x) => x.state)).toEqual(['failed'])
  })
})
