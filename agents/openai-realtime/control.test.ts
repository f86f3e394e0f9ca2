/**
 * Live control of a running openai-realtime agent over the REST API, against the local stand-in
 * of the Realtime API: `say` is a `response.create` whose instructions carry the text (the room
 * hears the reply's audio and transcript), a `say` during a reply waits for its `response.done`,
 * `interrupt` cancels and truncates the reply being played, and `PATCH` sends a `session.update`
 * with the new instructions and tools.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import { startRestEngine } from '../../plugins/rest/test/restEngine.js'
import { openaiRealtimeAgent } from './index.js'
import { FakeRealtimeServer, type FakeReply, type ResponseParams } from './test/fakeRealtimeServer.js'

const KEY = 'sk-test-realtime-key-0000000000'
const WAIT_MS = 10_000

let running: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

/** The model as the fake plays it: a response asked with instructions says the quoted text, at real-time speed. */
const model = (_turn: number, response: ResponseParams | null): FakeReply => {
  const said = response?.instructions?.split('\n').slice(1).join('\n')
  return said ? { audioMs: 60 * said.length, transcript: said, speed: 1 } : { audioMs: 300, transcript: 'A reply.' }
}

const setUp = async () => {
  const fake = await FakeRealtimeServer.start(KEY, model)
  running.push(() => fake.stop())
  const t = await startRestEngine({
    extensions: [openaiRealtimeAgent],
    agents: { defaultProvider: 'openai-realtime', startTimeoutMs: 5000, openaiRealtime: { baseUrl: fake.baseUrl, apiKey: KEY, apiKeyEnv: 'HARK_TEST_NONE' } },
  } as Parameters<typeof startRestEngine>[0])
  running.push(() => t.stop())
  const acme = t.workspace('acme')
  acme.addClient('web-1', 'den')
  const created = await acme.api.post('/agents', { room: 'den', overrides: { instructions: 'Be brief.', tools: { device: [] } } })
  expect(created.status).toBe(201)
  const agentId = created.body.agentId as string
  const { link } = await t.connect(acme.workspaceId, 'web-1')
  const agentSource = (link.events.items.find((e) => e.type === 'session') as Extract<ServerEvent, { type: 'session' }>).participants.find((p) => p.kind === 'agent')!.sourceId
  const agentEvent = (kind: string, predicate: (e: Record<string, unknown>) => boolean = () => true) =>
    link.events
      .next((e) => e.type === 'agent.event' && e.agentId === agentId && e.event.kind === kind && predicate(e.event), WAIT_MS, `agent.event ${kind}`)
      .then((e) => (e as Extract<ServerEvent, { type: 'agent.event' }>).event as Record<string, unknown>)
  const agentFrames = () => link.frames.items.filter((f) => ((f[2]! << 8) | f[3]!) === agentSource).length
  return { t, fake, acme, agentId, link, agentEvent, agentFrames }
}

describe('live control of an openai-realtime agent (REST, fake Realtime API)', () => {
  it('say speaks through response.create and the room hears it; a say during a reply waits for it; interrupt cancels and truncates', async () => {
    const r = await setUp()
    const before = r.agentFrames()
    expect((await r.acme.api.post(`/agents/${r.agentId}/say`, { text: 'Dinner is ready.' })).status).toBe(202)
    const create = await r.fake.received.next((e) => e.type === 'response.create', WAIT_MS, 'response.create')
    expect(create.response).toEqual({ instructions: 'Say exactly the following, word for word, and nothing else:\nDinner is ready.', tool_choice: 'none' })
    expect(await r.agentEvent('transcript', (e) => e.role === 'agent')).toMatchObject({ text: 'Dinner is ready.', final: true })
    expect(r.agentFrames() - before).toBeGreaterThan(20)

    // A long say, then another without interrupt while it plays: the second waits for the first's response.done.
    const long = 'This announcement about the weather in the garden goes on for a good few seconds.'
    expect((await r.acme.api.post(`/agents/${r.agentId}/say`, { text: long })).status).toBe(202)
    const mark = r.agentFrames()
    await r.link.frames.next(() => r.agentFrames() - mark > 25, WAIT_MS, 'half a second of the announcement')
    expect((await r.acme.api.post(`/agents/${r.agentId}/say`, { text: 'And then this.' })).status).toBe(202)
    const creates = () => r.fake.received.items.filter((e) => e.type === 'response.create').length
    expect(creates()).toBe(2)
    // Interrupt: the reply is cancelled and truncated to what was heard; the queued say is dropped.
    const interrupted = await r.acme.api.post(`/agents/${r.agentId}/interrupt`)
    expect(interrupted.status).toBe(200)
    await r.fake.received.next((e) => e.type === 'response.cancel', WAIT_MS, 'response.cancel')
    await r.fake.received.next((e) => e.type === 'conversation.item.truncate', WAIT_MS, 'conversation.item.truncate')
    await r.agentEvent('interrupted')
    const cut = await r.agentEvent('transcript', (e) => e.truncated === true)
    expect(long.startsWith(String(cut.text))).toBe(true)
    expect(cut.text).not.toBe(long)
    await r.fake.sent.next((e) => e.type === 'response.done', WAIT_MS, 'the cancelled response.done')
    expect(creates()).toBe(2)

    // A say while a reply is under way, without interrupt: sent once that reply's response.done came.
    expect((await r.acme.api.post(`/agents/${r.agentId}/say`, { text: long })).status).toBe(202)
    // Under way: its response.create went out and its audio reaches the room. (An earlier 'speaking'
    // state of the cancelled reply must not pass for this one: wait on what only this say causes.)
    await r.fake.received.next(() => creates() === 3, WAIT_MS, "the say's response.create")
    const playing = r.agentFrames()
    await r.link.frames.next(() => r.agentFrames() - playing > 5, WAIT_MS, 'the reply playing')
    expect((await r.acme.api.post(`/agents/${r.agentId}/say`, { text: 'And then this.' })).status).toBe(202)
    expect(creates()).toBe(3)
    await r.fake.received.next(() => creates() === 4, 20_000, 'the queued say')
    expect(r.fake.sent.items.filter((e) => e.type === 'response.done').length).toBeGreaterThanOrEqual(3)
    expect(await r.agentEvent('transcript', (e) => e.text === 'And then this.')).toMatchObject({ role: 'agent' })
  }, 60_000)

  it('PATCH sends a session.update with the new instructions and tools; the effective session has them', async () => {
    const r = await setUp()
    const patched = await r.acme.api.patch(`/agents/${r.agentId}`, { instructions: 'Speak like a butler.', tools: { device: ['web-1/*'] } })
    expect(patched.status).toBe(200)
    const update = await r.fake.received.next(
      (e) => e.type === 'session.update' && (e.session as { instructions?: string }).instructions === 'Speak like a butler.',
      WAIT_MS,
      'session.update with the new instructions',
    )
    expect(update.session).toMatchObject({ type: 'realtime', tools: [], tool_choice: 'auto' })
    await r.fake.sent.next((e) => e.type === 'session.updated' && (e.session as { instructions?: string }).instructions === 'Speak like a butler.', WAIT_MS, 'session.updated')
    expect(r.fake.sessions.at(-1)!.instructions).toBe('Speak like a butler.')
    // Refused by the provider's schema, nothing sent: an unknown tool source.
    const bad = await r.acme.api.patch(`/agents/${r.agentId}`, { tools: { garden: ['*'] } })
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed'])
  })
})
