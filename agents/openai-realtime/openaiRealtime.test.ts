import { Writable } from 'node:stream'
import WebSocket from 'ws'
import { afterEach, describe, expect, it } from 'vitest'
import { scrubSecrets } from '../../core/index.js'
import { AgentStartFailed } from '../../core/errors.js'
import { createLogger } from '../../core/log.js'
import type { ServerEvent } from '../../core/events.js'
import { concat, DownlinkDecoder, silence, tone, UplinkEncoder } from '../../core/test/speech.js'
import { Inbox, RecordingLink, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { dominantHz } from '../test/audioChecks.js'
import { openaiRealtimeAgent } from './index.js'
import { FakeRealtimeServer, ITEM_SHORTFALL_MS, maskedKey, RATE, type FakeReply } from './test/fakeRealtimeServer.js'

const KEY = 'sk-fake-realtime-key-0123456789'

let fake: FakeRealtimeServer
let t: Awaited<ReturnType<typeof startTestEngine>>
/** What the current test started, stopped once after it. */
let running: Array<() => Promise<void>> = []
const stopAll = async () => {
  for (const stop of running.splice(0).reverse()) await stop()
}
let seed: ReturnType<typeof seedWorkspace>
let logged: string[]
/** The same lines, to wait for one (the provider logs from its worker: a line may arrive after what it sent on its socket). */
let logLines: Inbox<string>
let replies: FakeReply[]

const start = async (apiKey: string | null = KEY, apiKeyEnv = 'HARK_TEST_NO_SUCH_VARIABLE') => {
  replies = []
  fake = await FakeRealtimeServer.start(KEY, (turn) => replies[turn - 1] ?? { audioMs: 200, transcript: `reply ${turn}` })
  running.push(() => fake.stop())
  logged = []
  logLines = new Inbox<string>()
  const sink = new Writable({ write: (chunk, _enc, cb) => (logged.push(String(chunk)), logLines.push(String(chunk)), cb()) })
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
  running.push(() => t.stop())
  seed = seedWorkspace(t.engine)
}
afterEach(stopAll)

const connect = async (clientId: string) => {
  seed.addClient(clientId, 'lobby')
  const { token } = await t.engine.host.security.tokens.issue(seed.workspaceId, clientId, null)
  const link = new RecordingLink()
  const session = t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token }), link)
  await link.event('session')
  return { link, session }
}

const encoder = new UplinkEncoder()
/** Talk into the room: a 220 Hz tone then silence, as Opus uplink frames (all at once: the room paces nothing). */
const speak = (session: { pushAudio(u: Uint8Array): void }, speechMs: number, silenceMs: number, voiceFlag = true) => {
  for (const frame of encoder.frames(concat(tone(speechMs, 220), silence(silenceMs)))) {
    // Without the V flag the room does not see a talker (no speaking.started); only the server's VAD hears it.
    if (!voiceFlag) frame[0]! &= 0x7f
    session.pushAudio(frame)
  }
}

type Joined = Extract<ServerEvent, { type: 'participant.joined' }>
const agentFrames = (link: RecordingLink, joined: Joined) =>
  link.frames.items.filter((f) => ((f[2]! << 8) | f[3]!) === joined.participant.sourceId)

const agentEvents = (link: RecordingLink) =>
  link.events.items.flatMap((e) => (e.type === 'agent.event' ? [e.event as Record<string, unknown>] : []))

/** Nothing the engine said or logged may hold the key or the endpoint. */
const expectNoSecrets = (...said: unknown[]) => {
  const all = JSON.stringify(said) + logged.join('')
  expect(all).not.toContain(KEY)
  expect(all).not.toContain(new URL(fake.baseUrl).host)
}

describe('openai-realtime provider (against a strict local fake of the GA Realtime API)', () => {
  it('configures a GA session and completes a turn: room speech up at 24 kHz, the reply down at 16 kHz, pitch kept both ways', async () => {
    await start()
    replies.push({ audioMs: 600, transcript: 'Hello from the fake', hz: 330 })
    const a = await connect('a')
    const view = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {
      overrides: { voice: 'verse', instructions: 'Be brief.', vadSilenceMs: 400 },
    })
    expect(view).toMatchObject({ provider: 'openai-realtime', state: 'running' })
    // The strict fake accepted the session.update (it refuses beta fields and other rates).
    expect(fake.sessions[0]).toMatchObject({
      model: 'gpt-realtime',
      instructions: 'Be brief.',
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'server_vad', silence_duration_ms: 400, interrupt_response: true } },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'verse' },
      },
    })
    expect(fake.errorCodes()).toEqual([])

    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    speak(a.session, 400, 600)
    await a.link.event('agent.event', (e) => e.event.kind === 'transcript')
    // The 220 Hz the room said arrived at the fake as 220 Hz of 24 kHz audio (a wrong rate would shift it).
    const up = fake.inputAudio()
    expect(Math.abs(dominantHz(up.subarray(0, RATE * 0.4), RATE) - 220)).toBeLessThanOrEqual(2)

    // The fake's 330 Hz reply (24 kHz) reached the room as 330 Hz of 16 kHz Opus.
    const decoder = new DownlinkDecoder()
    const pcm = concat(...agentFrames(a.link, joined).map((f) => decoder.decode(f).pcm))
    expect(Math.abs(dominantHz(pcm, 16_000) - 330)).toBeLessThanOrEqual(2)
    expect(agentFrames(a.link, joined).length).toBeLessThanOrEqual(31)
    expectNoSecrets(a.link.events.items, t.engine.host.agents.list(seed.workspaceId))
  })

  it('(1) a reply\'s transcript is published once the room has heard it, not when the server finished writing it', async () => {
    await start()
    replies.push({ audioMs: 1500, transcript: 'one two three four five six', speed: 8 })
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    speak(a.session, 400, 600)
    // The fake wrote the whole transcript within ~200 ms; the room hears the reply for 1.5 s.
    await fake.sent.next((e) => e.type === 'response.output_audio_transcript.done')
    const transcript = await a.link.event('agent.event', (e) => e.event.kind === 'transcript')
    expect(transcript.event).toEqual({ kind: 'transcript', role: 'agent', text: 'one two three four five six', final: true })
    // By then every frame of the reply had been sent (1.5 s: 75 frames, less the resampler's few ms).
    expect(agentFrames(a.link, joined).length).toBeGreaterThanOrEqual(73)
  })

  it('(1) after a barge-in only the part of the reply the room heard is published, marked truncated', async () => {
    await start()
    const story = Array.from({ length: 50 }, (_, i) => `word${i + 1}`).join(' ')
    replies.push({ audioMs: 5000, transcript: story, speed: 2 }, { audioMs: 200, transcript: 'ok' })
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    speak(a.session, 400, 600)
    // About one second of the five has been heard when a terminal talks over it.
    await a.link.frames.next(() => agentFrames(a.link, joined).length >= 52, 5000, 'a second of the reply')
    await a.link.event('speaking.stopped', (e) => e.participantId === 'a')
    speak(a.session, 300, 600)

    const heard = await a.link.event('agent.event', (e) => e.event.kind === 'transcript')
    expect(heard.event).toMatchObject({ role: 'agent', final: true, truncated: true })
    const words = String(heard.event.text).split(' ')
    expect(story.startsWith(String(heard.event.text))).toBe(true)
    // ~1 s of 5 s heard: about a fifth of the 50 words, far from all of them.
    expect(words.length).toBeGreaterThanOrEqual(5)
    expect(words.length).toBeLessThanOrEqual(20)
    await a.link.event('agent.event', (e) => e.event.kind === 'transcript' && e.event.text === 'ok')
    // Nothing but the heard part of the story was ever published.
    const storyTranscripts = agentEvents(a.link).filter((e) => e.kind === 'transcript' && String(e.text).startsWith('word1'))
    expect(storyTranscripts).toEqual([heard.event])
  })

  it('(2) truncation is clamped to the audio the server\'s item holds, so a barge-in at the end of a reply is accepted', async () => {
    await start()
    replies.push({ audioMs: 1000, transcript: 'a short reply that ends soon', speed: 4 })
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    speak(a.session, 400, 600)
    await a.link.event('speaking.stopped', (e) => e.participantId === 'a')
    // 48 of the ~50 frames sent (40 ms ahead of real time): the room has heard ~920 ms, more than the
    // 915 ms the server's item holds; the terminal talks over the last words.
    await a.link.frames.next(() => agentFrames(a.link, joined).length >= 48, 5000, 'the end of the reply')
    speak(a.session, 300, 600)

    const truncate = await fake.received.next((e) => e.type === 'conversation.item.truncate')
    expect(truncate.audio_end_ms as number).toBeLessThanOrEqual(1000 - ITEM_SHORTFALL_MS)
    expect(truncate.audio_end_ms as number).toBeGreaterThanOrEqual(800)
    await fake.sent.next((e) => e.type === 'conversation.item.truncated')
    expect(fake.errorCodes()).toEqual([])
  })

  it('(2) a truncation the server still refuses is followed by deleting the item: no unheard text stays', async () => {
    await start()
    replies.push({ audioMs: 4000, transcript: 'a reply whose item the server holds much less of', speed: 2 })
    // A server whose item is far shorter than what it delivered: any truncation is refused.
    fake.itemShortfallMs = 10_000
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    speak(a.session, 400, 600)
    await a.link.frames.next(() => agentFrames(a.link, joined).length >= 30, 5000, 'the agent talking')
    await a.link.event('speaking.stopped', (e) => e.participantId === 'a')
    speak(a.session, 300, 600)
    const truncate = await fake.received.next((e) => e.type === 'conversation.item.truncate')
    const refused = await fake.sent.next((e) => e.type === 'error')
    expect(refused.error).toMatchObject({ code: 'invalid_value', event_id: truncate.event_id })
    expect(await fake.received.next((e) => e.type === 'conversation.item.delete')).toMatchObject({ item_id: truncate.item_id })
    await fake.sent.next((e) => e.type === 'conversation.item.deleted' && e.item_id === truncate.item_id)
    await logLines.next((l) => l.includes('realtime truncation refused; deleting the interrupted item instead'), 5000, 'the log line')
  })

  it('(2) a reply the server cancels before any of its audio arrived is deleted, not truncated', async () => {
    await start()
    replies.push({ audioMs: 1000, transcript: 'never heard at all', firstAudioAfterMs: 3000 }, { audioMs: 200, transcript: 'ok' })
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    speak(a.session, 400, 600)
    const added = await fake.sent.next((e) => e.type === 'response.output_item.added')
    await a.link.event('speaking.stopped', (e) => e.participantId === 'a')
    // The room speaks again while the model is still thinking: the server cancels its reply itself.
    speak(a.session, 300, 600)
    const itemId = (added.item as { id: string }).id
    expect(await fake.received.next((e) => e.type === 'conversation.item.delete')).toMatchObject({ item_id: itemId })
    await fake.sent.next((e) => e.type === 'conversation.item.deleted' && e.item_id === itemId)
    await a.link.event('agent.event', (e) => e.event.kind === 'transcript' && e.event.text === 'ok')
    expect(fake.received.items.filter((e) => e.type === 'conversation.item.truncate' || e.type === 'response.cancel')).toEqual([])
    expect(fake.errorCodes()).toEqual([])
    expect(agentEvents(a.link).filter((e) => e.kind === 'transcript' && e.role === 'agent').map((e) => e.text)).toEqual(['ok'])
  })

  it('(3) silence keeps flowing while the server\'s turn is open, so a 4 s vadSilenceMs ends the turn after the room went quiet', async () => {
    await start()
    replies.push({ audioMs: 200, transcript: 'heard you' })
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', { overrides: { vadSilenceMs: 4000 } })
    // 400 ms of speech, then the terminal sends nothing at all (as a device with DTX does): the
    // room's mixed input gives 3 s of silence and stops, 1 s short of what the server waits for.
    speak(a.session, 400, 0)
    await fake.sent.next((e) => e.type === 'input_audio_buffer.speech_stopped', 9000, 'speech_stopped')
    expect((await a.link.event('agent.event', (e) => e.event.kind === 'transcript')).event).toMatchObject({ text: 'heard you' })
  })

  it('(4) when the server\'s VAD interrupts a reply itself (interrupt_response), the agent does not cancel it again', async () => {
    await start()
    replies.push({ audioMs: 6000, transcript: 'a long answer generated in real time', speed: 1 }, { audioMs: 200, transcript: 'ok' })
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    const joined = await a.link.event('participant.joined', (e) => e.participant.kind === 'agent')
    speak(a.session, 400, 600)
    await a.link.frames.next(() => agentFrames(a.link, joined).length >= 20, 5000, 'the agent talking')
    await a.link.event('speaking.stopped', (e) => e.participantId === 'a')
    // Speech the room does not flag (no V bit): only the server's VAD hears it, and cancels its reply.
    speak(a.session, 300, 600, false)
    const done = await fake.sent.next((e) => e.type === 'response.done' && (e.response as { status: string }).status === 'cancelled')
    expect((done.response as { status_details: unknown }).status_details).toEqual({ type: 'cancelled', reason: 'turn_detected' })
    await a.link.event('agent.event', (e) => e.event.kind === 'interrupted')
    await a.link.event('agent.event', (e) => e.event.kind === 'transcript' && e.event.text === 'ok')
    expect(fake.received.items.filter((e) => e.type === 'response.cancel')).toEqual([])
    expect(fake.errorCodes()).toEqual([])
    expect(logged.join('')).not.toContain('realtime error event')
  })

  it('(5) a reply that fails or ends incomplete is told to the room and logged', async () => {
    await start()
    replies.push(
      { audioMs: 400, transcript: 'never said', outcome: { failed: { type: 'insufficient_quota', code: 'insufficient_quota' } } },
      { audioMs: 1000, transcript: 'cut off by the filter', outcome: { incomplete: 'content_filter' } },
    )
    const a = await connect('a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    speak(a.session, 400, 600)
    expect((await a.link.event('agent.event', (e) => e.event.kind === 'reply')).event).toEqual({ kind: 'reply', status: 'failed', reason: 'insufficient_quota' })
    await a.link.event('speaking.stopped', (e) => e.participantId === 'a')
    speak(a.session, 400, 600)
    expect((await a.link.event('agent.event', (e) => e.event.kind === 'reply' && e.event.status === 'incomplete')).event).toEqual({
      kind: 'reply', status: 'incomplete', reason: 'content_filter',
    })
    expect(logged.join('')).toContain('realtime reply did not complete')
  })

  it('(5) a session the server ends normally (1001, its time limit) is reopened with the same configuration; other closes fail the agent', async () => {
    await start()
    replies.push({ audioMs: 200, transcript: 'first' }, { audioMs: 200, transcript: 'second' })
    const a = await connect('a')
    const view = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', { overrides: { vadSilenceMs: 300, voice: 'cedar' } })
    speak(a.session, 400, 600)
    const first = await a.link.event('agent.event', (e) => e.event.kind === 'transcript' && e.event.text === 'first')
    // The reply is over once the agent listens again (its events may come in separate turns of the loop).
    const isListening = (e: ServerEvent) => e.type === 'agent.event' && e.event.kind === 'state' && e.event.state === 'listening'
    await a.link.events.next((e) => a.link.events.items.indexOf(e) > a.link.events.items.indexOf(first) && isListening(e), 5000, 'listening')

    const before = a.link.events.items.length
    fake.closeAll(1001, 'Your session hit the maximum duration of 60 minutes.')
    // Listening again once the new session is configured (room audio in between is lost).
    await a.link.events.next(
      (e) => a.link.events.items.indexOf(e) >= before && e.type === 'agent.event' && e.event.kind === 'state' && e.event.state === 'listening',
      5000,
      'the reopened session',
    )
    expect(fake.connections).toBe(2)
    const { id: _first, ...firstConfig } = fake.sessions[0]!
    const { id: _second, ...secondConfig } = fake.sessions[1]!
    expect({ ...secondConfig, expires_at: 0 }).toEqual({ ...firstConfig, expires_at: 0 })
    await a.link.event('speaking.stopped', (e) => e.participantId === 'a')
    speak(a.session, 400, 600)
    await a.link.event('agent.event', (e) => e.event.kind === 'transcript' && e.event.text === 'second')
    expect(t.engine.host.agents.get(seed.workspaceId, view.agentId)).toMatchObject({ state: 'running' })

    fake.closeAll(1011, 'server error')
    expect(await a.link.event('agent.stopped')).toMatchObject({ agentId: view.agentId, reason: 'realtime connection closed (1011)' })
    expect(fake.connections).toBe(2)
    expect(logged.join('')).toContain('reconnecting with the same configuration')
  })

  it('(6) a refused key fails the start with a reason that holds neither the key nor its masked form', async () => {
    const wrong = 'sk-wrong-key-9876543210'
    await start(wrong)
    const a = await connect('a')
    const refused = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {}).catch((e) => e)
    expect(refused).toBeInstanceOf(AgentStartFailed)
    // The fake accepted the upgrade, then refused the key with an error event (showing it masked) and close 3000.
    expect(fake.errorCodes()).toEqual(['invalid_api_key'])
    expect(refused.message).toMatch(/realtime session refused: Incorrect API key provided: \[redacted\]\. You can find/)
    const stopped = await a.link.event('agent.stopped')
    const said = JSON.stringify([refused.message, stopped, a.link.events.items]) + logged.join('')
    expect(said).not.toContain(maskedKey(wrong))
    expect(said).not.toMatch(/[*•….]{3,}3210/)
    expect(said).not.toContain('sk-wro')
    expect(said).not.toContain(wrong)
    expectNoSecrets(refused.message, a.link.events.items)
  })

  it('(6) masked forms of a key are scrubbed like the key itself', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123'
    const said = `Incorrect API key provided: sk-proj-****0123; also sk-pro…0123, sk-p...0123, ••••0123 and sk-proj-abcd****. Other sk-other****9999 stays.`
    expect(scrubSecrets(said, [key])).toBe(
      'Incorrect API key provided: [redacted]; also [redacted], [redacted], [redacted] and [redacted]. Other sk-other****9999 stays.',
    )
  })

  it('a missing key fails the start; a key may come from the environment variable the settings name', async () => {
    await start(null)
    const missing = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {}).catch((e) => e)
    expect(missing).toBeInstanceOf(AgentStartFailed)
    expect(missing.message).toMatch(/no API key/)
    await stopAll()

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
    expect(stopped).toMatchObject({ agentId: view.agentId, reason: 'realtime connection closed (1006)' })
    await a.link.event('participant.left', (e) => e.participant.kind === 'agent')
    expect(t.engine.host.agents.get(seed.workspaceId, view.agentId)).toMatchObject({ state: 'failed' })
    expect(t.engine.host.terminals.roomView(seed.workspaceId, 'lobby')!.participants.map((p) => p.id)).toEqual(['a'])
    expectNoSecrets(a.link.events.items)
  })
})

describe('the strict fake itself refuses what the GA endpoint refuses', () => {
  const open = (headers: Record<string, string>) => {
    const ws = new WebSocket(`${fake.baseUrl}/realtime?model=gpt-realtime`, { headers })
    const events: Array<{ type: string; error?: { code: string; param?: string } }> = []
    ws.on('message', (d) => events.push(JSON.parse(String(d))))
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)))
    const next = (type: string) =>
      new Promise<{ type: string; error?: { code: string; param?: string } }>((resolve) => {
        const look = () => {
          const found = events.find((e) => e.type === type)
          if (found) {
            events.splice(events.indexOf(found), 1)
            resolve(found)
          } else ws.once('message', look)
        }
        look()
      })
    return { ws, next, closed }
  }

  it('beta fields, other rates, the OpenAI-Beta header and a wrong key', async () => {
    fake = await FakeRealtimeServer.start(KEY, () => ({ audioMs: 100, transcript: 'x' }))
    running.push(() => fake.stop())
    const c = open({ Authorization: `Bearer ${KEY}` })
    await c.next('session.created')
    c.ws.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', modalities: ['audio', 'text'] } }))
    expect((await c.next('error')).error).toMatchObject({ code: 'unknown_parameter', param: 'session.modalities' })
    c.ws.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', turn_detection: { type: 'server_vad' } } }))
    expect((await c.next('error')).error).toMatchObject({ code: 'unknown_parameter', param: 'session.turn_detection' })
    c.ws.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } } }))
    expect((await c.next('error')).error).toMatchObject({ code: 'invalid_value', param: 'session.audio.input.format.rate' })
    c.ws.send(JSON.stringify({ type: 'conversation.item.truncate', item_id: 'nope', content_index: 0, audio_end_ms: 0 }))
    expect((await c.next('error')).error).toMatchObject({ code: 'item_not_found' })
    c.ws.send(JSON.stringify({ type: 'response.cancel' }))
    expect((await c.next('error')).error).toMatchObject({ code: 'response_cancel_not_active' })
    c.ws.close()

    const beta = open({ Authorization: `Bearer ${KEY}`, 'OpenAI-Beta': 'realtime=v1' })
    expect(await beta.closed).toBe(4000)
    const wrongKey = open({ Authorization: 'Bearer sk-nope-000000000000' })
    expect((await wrongKey.next('error')).error).toMatchObject({ code: 'invalid_api_key' })
    expect(await wrongKey.closed).toBe(3000)
  })
})
