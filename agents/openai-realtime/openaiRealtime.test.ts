import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentStartFailed } from '../../core/errors.js'
import { createLogger } from '../../core/log.js'
import { concat, DownlinkDecoder, rms, silence, tone, UplinkEncoder } from '../../core/test/speech.js'
import { RecordingLink, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { openaiRealtimeAgent } from './index.js'
import { FakeRealtimeServer, type FakeReply } from './test/fakeRealtimeServer.js'

const KEY = 'sk-fake-realtime-key-0123456789'

let fake: FakeRealtimeServer
let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let logged: string[]
let replies: FakeReply[]

const start = async (apiKey: string | null = KEY, apiKeyEnv = 'HARK_TEST_NO_SUCH_VARIABLE') => {
  replies = []
  fake = await FakeRealtimeServer.start(KEY, (turn) => replies[turn - 1] ?? { audioMs: 200, transcript: `reply ${turn}` })
  logged = []
  const sink = new Writable({ write: (chunk, _enc, cb) => (logged.push(String(chunk)), cb()) })
  t = await startTestEngine(
    {
      extensions: [openaiRealtimeAgent],
      agents: {
        defaultProvider: 'openai-realtime',
        startTimeoutMs: 5000,
        openaiRealtime: { baseUrl: fake.baseUrl, apiKey, apiKeyEnv },
      },
    },
    { logger: createLogger('debug', sink) },
  )
  seed = seedWorkspace(t.engine)
}
afterEach(async () => {
  await t.stop()
  await fake.stop()
})

const connect = async (clientId: string) => {
  seed.addClient(clientId, 'lobby')
  const { token } = await t.engine.host.security.tokens.issue(seed.workspaceId, clientId, null)
  const link = new RecordingLink()
  const session = t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token }), link)
  await link.event('session')
  return { link, session }
}

const encoder = new UplinkEncoder()
const speak = (session: { pushAudio(u: Uint8Array): void }, speechMs: number, silenceMs: number) => {
  for (const frame of encoder.frames(concat(tone(speechMs, 220), silence(silenceMs)))) session.pushAudio(frame)
}

/** Nothing the engine said or logged may hold the key or the endpoint. */
const expectNoSecrets = (...said: unknown[]) => {
  const all = JSON.stringify(said) + logged.join('')
  expect(all).not.toContain(KEY)
  expect(all).not.toContain(new URL(fake.baseUrl).host)
}

describe('openai-realtime provider (against a local fake of the Realtime API)', () => {
  it('configures the session and completes a turn: room speech up at 24 kHz, the reply down into the room', async () => {
    await start()
    replies.push({ audioMs: 600, transcript: 'Hello from the fake' })
    const a = await connect('a')
    const view = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {
      overrides: { voice: 'verse', instructions: 'Be brief.', vadSilenceMs: 400 },
    })
    expect(view).toMatchObject({ provider: 'openai-realtime', state: 'running' })
    const update = await fake.received.next((e) => e.type === 'session.update')
    expect(update.session).toMatchObject({
      type: 'realtime',
      model: 'gpt-realtime',
      instructions: 'Be brief.',
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'server_vad', silence_duration_ms: 400 } },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'verse' },
      },
    })

    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    speak(a.session, 400, 600)
    expect((await a.link.event('agent.event', (e) => e.event.kind === 'transcript')).event).toEqual({
      kind: 'transcript', role: 'agent', text: 'Hello from the fake', final: true,
    })
    // 1 s of 16 kHz room audio went up as ~1 s of 24 kHz.
    expect(fake.appendedSamples).toBeGreaterThan(24_000 * 0.9)

    // The 600 ms reply comes back as the agent's Opus frames, resampled to 16 kHz.
    const fromAgent = () => a.link.frames.items.filter((f) => ((f[2]! << 8) | f[3]!) === joined.participant.sourceId)
    await a.link.frames.next(() => fromAgent().length >= 30, 5000, 'the reply')
    const decoder = new DownlinkDecoder()
    const pcm = concat(...fromAgent().map((f) => decoder.decode(f).pcm))
    expect(pcm.length).toBeGreaterThanOrEqual(16_000 * 0.6 * 0.95)
    expect(rms(pcm)).toBeGreaterThan(0.1)
    expect(fromAgent().length).toBeLessThanOrEqual(31)
    expectNoSecrets(a.link.events.items, t.engine.host.agents.list(seed.workspaceId))
  })

  it('barge-in: a terminal talking over the reply cancels it, truncates it and drops queued audio', async () => {
    await start()
    replies.push({ audioMs: 5000, transcript: 'a very long story', paceMs: 50 }, { audioMs: 200, transcript: 'ok' })
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    const fromAgent = () => a.link.frames.items.filter((f) => ((f[2]! << 8) | f[3]!) === joined.participant.sourceId).length

    speak(a.session, 400, 600)
    await a.link.frames.next(() => fromAgent() >= 5, 5000, 'the agent talking')
    await a.link.event('speaking.stopped', (e) => e.participantId === 'a')
    speak(a.session, 300, 600)

    const cancel = await fake.received.next((e) => e.type === 'response.cancel')
    expect(cancel).toMatchObject({ response_id: 'resp_1' })
    const truncate = await fake.received.next((e) => e.type === 'conversation.item.truncate')
    expect(truncate).toMatchObject({ item_id: 'item_1', content_index: 0 })
    expect(truncate.audio_end_ms as number).toBeGreaterThanOrEqual(0)
    expect(truncate.audio_end_ms as number).toBeLessThan(5000)
    await a.link.event('agent.event', (e) => e.event.kind === 'interrupted')

    // The next turn is answered; what was left of the 5 s story never played.
    await a.link.event('agent.event', (e) => e.event.kind === 'transcript' && e.event.text === 'ok')
    await a.link.frames.next(() => fromAgent() >= 10, 5000, 'frames')
    expect(fromAgent()).toBeLessThan(5000 / 20 / 2)
    expect(a.link.events.items.some((e) => e.type === 'agent.event' && e.event.text === 'a very long story')).toBe(false)
  })

  it('a refused key or a missing one fails the start with a reason that names neither key nor endpoint', async () => {
    await start('sk-wrong-key-9876543210')
    const a = await connect('a')
    const refused = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {}).catch((e) => e)
    expect(refused).toBeInstanceOf(AgentStartFailed)
    expect(refused.message).toMatch(/realtime connection refused \(HTTP 401\)/)
    expect(await a.link.event('agent.stopped')).toMatchObject({ reason: 'realtime connection refused (HTTP 401)' })
    expect(JSON.stringify([refused.message, a.link.events.items]) + logged.join('')).not.toContain('sk-wrong-key-9876543210')
    expectNoSecrets(refused.message, a.link.events.items)
    await t.stop()
    await fake.stop()

    await start(null)
    const missing = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {}).catch((e) => e)
    expect(missing).toBeInstanceOf(AgentStartFailed)
    expect(missing.message).toMatch(/no API key/)
    await t.stop()
    await fake.stop()

    // The key may live in an environment variable that the settings name.
    process.env.HARK_TEST_REALTIME_KEY = KEY
    try {
      await start(null, 'HARK_TEST_REALTIME_KEY')
      expect(await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})).toMatchObject({ state: 'running' })
    } finally {
      delete process.env.HARK_TEST_REALTIME_KEY
    }
  })

  it('the cloud dropping the connection fails the agent; the room is told and stays up', async () => {
    await start()
    const a = await connect('a')
    const view = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    fake.dropAll()
    const stopped = await a.link.event('agent.stopped')
    expect(stopped).toMatchObject({ agentId: view.agentId, reason: expect.stringMatching(/^realtime connection closed/) })
    await a.link.event('participant.left', (e) => e.participant.kind === 'agent')
    expect(t.engine.host.agents.get(seed.workspaceId, view.agentId)).toMatchObject({ state: 'failed' })
    expect(t.engine.host.terminals.roomView(seed.workspaceId, 'lobby')!.participants.map((p) => p.id)).toEqual(['a'])
    expectNoSecrets(a.link.events.items)
  })
})
