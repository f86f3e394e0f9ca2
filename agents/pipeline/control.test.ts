/**
 * Live control of a running pipeline agent over the REST API (the provider runs in a provider
 * worker, so the worker protocol's `control` op is on the way): `say` is heard by a terminal (the
 * agent's audio, then its transcript), `interrupt` cuts it, `PATCH` instructions reach the next
 * chat request and `PATCH` tools change what the model is offered; an unknown agent is 404, a
 * provider without live control 409 `not_supported`, bad bodies 400.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import { concat, DownlinkDecoder, silence, UplinkEncoder } from '../../core/test/speech.js'
import { startRestEngine } from '../../plugins/rest/test/restEngine.js'
import { echoAgent } from '../echo/index.js'
import { speechLike } from '../test/audioChecks.js'
import { pipelineAgent } from './index.js'
import { FakeOpenAiHttp, MS_PER_CHAR } from './test/fakeOpenAiHttp.js'

const KEYS = { stt: 'sk-stt-key-000000000001', llm: 'sk-llm-key-000000000002', tts: 'sk-tts-key-000000000003' }
/** A bound for failure spanning a spoken turn, not a pause. */
const TURN_MS = 15_000

let running: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

const setUp = async (tools: Record<string, string[]> = {}) => {
  const fake = await FakeOpenAiHttp.start(KEYS)
  running.push(() => fake.stop())
  const api = (apiKey: string) => ({ baseUrl: fake.baseUrl, apiKey, apiKeyEnv: 'HARK_TEST_NONE' })
  const t = await startRestEngine({
    extensions: [pipelineAgent, echoAgent],
    agents: { defaultProvider: 'pipeline', startTimeoutMs: 10_000, pipeline: { stt: api(KEYS.stt), llm: api(KEYS.llm), tts: api(KEYS.tts), requestTimeoutMs: 5000 } },
  } as Parameters<typeof startRestEngine>[0])
  running.push(() => t.stop())
  const acme = t.workspace('acme')
  acme.addClient('web-1', 'kitchen')
  const created = await acme.api.post('/agents', { room: 'kitchen', overrides: { instructions: 'You run the house.', vadSilenceMs: 500, tools } })
  expect(created.status).toBe(201)
  const agentId = created.body.agentId as string
  const { link, session } = await t.connect(acme.workspaceId, 'web-1')
  const agentSource = (link.events.items.find((e) => e.type === 'session') as Extract<ServerEvent, { type: 'session' }>).participants.find((p) => p.kind === 'agent')!.sourceId
  const agentEvent = (kind: string, predicate: (e: Record<string, unknown>) => boolean = () => true) =>
    link.events
      .next((e) => e.type === 'agent.event' && e.agentId === agentId && e.event.kind === kind && predicate(e.event), TURN_MS, `agent.event ${kind}`)
      .then((e) => (e as Extract<ServerEvent, { type: 'agent.event' }>).event as Record<string, unknown>)
  /** Milliseconds of the agent's audio the terminal got from frame `from` on. */
  const heardMs = (from: number) => {
    const decoder = new DownlinkDecoder()
    return (concat(...link.frames.items.slice(from).map((f) => decoder.decode(f)).filter((f) => f.sourceId === agentSource).map((f) => f.pcm)).length / 16_000) * 1000
  }
  const chat = (n: number) => fake.requests.next(() => fake.of('llm').length >= n, TURN_MS, `chat request #${n}`).then(() => fake.of('llm')[n - 1]!)
  const encoder = new UplinkEncoder()
  /** Talk like a device: one Opus frame per 20 ms, in real time. */
  const speak = async (ms = 1200) => {
    const frames = encoder.frames(concat(silence(200), speechLike(ms), silence(900)))
    const begin = performance.now()
    for (const [i, frame] of frames.entries()) {
      const wait = begin + i * 20 - performance.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      session.pushAudio(frame)
    }
  }
  /** The terminal offers an MCP tool over the terminal protocol (mcp.ready, then answers the agent's requests). */
  const offerLamp = () => {
    void link.events.next((e) => {
      if (e.type !== 'agent.event' || e.event.kind !== 'mcp' || e.event.to !== 'web-1') return false
      const request = e.event.payload as { id: number; method: string }
      const result =
        request.method === 'initialize' ? { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'web', version: '1' } }
        : request.method === 'tools/list' ? { tools: [{ name: 'lamp.toggle', description: 'Toggle the lamp', inputSchema: { type: 'object', properties: {} } }] }
        : { content: [{ type: 'text', text: 'toggled' }], isError: false }
      session.tellRoom({ kind: 'mcp', payload: { jsonrpc: '2.0', id: request.id, result } })
      return false
    }, 60_000).catch(() => {})
    session.tellRoom({ kind: 'mcp.ready' })
  }
  return { t, fake, acme, agentId, link, agentEvent, heardMs, chat, speak, offerLamp }
}

describe('live control of a pipeline agent (REST, provider worker, fake OpenAI HTTP APIs)', () => {
  it('say: the terminal hears the text spoken and gets its transcript; interrupt cuts a long say short', async () => {
    const r = await setUp()
    const from = r.link.frames.items.length
    const said = await r.acme.api.post(`/agents/${r.agentId}/say`, { text: 'The oven is preheated.' })
    expect(said.status).toBe(202)
    expect(said.body).toEqual({ agentId: r.agentId, accepted: true })
    const transcript = await r.agentEvent('transcript', (e) => e.role === 'agent')
    expect(transcript).toMatchObject({ role: 'agent', text: 'The oven is preheated.', final: true })
    expect(r.fake.of('tts').map((q) => q.body.input)).toEqual(['The oven is preheated.'])
    // All of it was played to the terminal before the transcript (55 ms of speech per character).
    expect(r.heardMs(from)).toBeGreaterThan('The oven is preheated.'.length * MS_PER_CHAR * 0.8)

    // A long say, interrupted once it is audible: the audio stops, the room hears what was said of it.
    const long = 'This is a very long announcement about the kitchen that goes on and on for quite some time.'
    expect((await r.acme.api.post(`/agents/${r.agentId}/say`, { text: long, interrupt: true })).status).toBe(202)
    const mark = r.link.frames.items.length
    await r.link.frames.next(() => r.link.frames.items.length - mark > 25, TURN_MS, 'half a second of the announcement')
    const interrupted = await r.acme.api.post(`/agents/${r.agentId}/interrupt`)
    expect(interrupted.status).toBe(200)
    expect(interrupted.body).toMatchObject({ agentId: r.agentId, state: 'running' })
    await r.agentEvent('interrupted')
    const cut = await r.agentEvent('transcript', (e) => e.truncated === true)
    expect(long.startsWith(String(cut.text))).toBe(true)
    expect(cut.text).not.toBe(long)
    // No more audio after the interrupt than the playout lead: far less than the announcement's 5 s.
    const after = r.link.frames.items.length
    await r.agentEvent('state', (e) => e.state === 'listening')
    const settle = r.link.frames.items.length
    expect(settle - after).toBeLessThan(20)
    expect(r.heardMs(from)).toBeLessThan(('The oven is preheated.'.length + long.length) * MS_PER_CHAR * 0.6)
  })

  it('PATCH: new instructions reach the next chat request, new tools change what the model is offered; bad input is refused', async () => {
    // Tools of devices are discovered (the allow-list is empty: none may be called yet).
    const r = await setUp({ device: [] })
    r.offerLamp()
    await r.agentEvent('tools')
    r.fake.script.transcripts = ['what can you do', 'and now']
    r.fake.script.replies = ['Not much.']
    await r.speak()
    const first = await r.chat(1)
    expect((first.body.messages as Array<{ role: string; content: string }>)[0]).toEqual({ role: 'system', content: 'You run the house.' })
    expect(first.body.tools).toBeUndefined()
    await r.agentEvent('transcript', (e) => e.role === 'agent')

    const patched = await r.acme.api.patch(`/agents/${r.agentId}`, { instructions: 'You are a pirate.', tools: { device: ['web-1/lamp.*'] } })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ agentId: r.agentId, state: 'running' })
    await r.speak()
    const second = await r.chat(2)
    expect((second.body.messages as Array<{ role: string; content: string }>)[0]).toEqual({ role: 'system', content: 'You are a pirate.' })
    // The terminal's lamp is allowed now: the model is offered it, and the room was told.
    expect((second.body.tools as Array<{ function: { name: string } }>).map((f) => f.function.name)).toEqual(['web-1_lamp_toggle'])
    expect(r.link.events.items.some((e) => e.type === 'agent.event' && e.event.kind === 'tools' && JSON.stringify(e.event.tools) === '["web-1_lamp_toggle"]')).toBe(true)

    // Bad bodies: empty, unknown field, wrong types, blank text, an unknown tool source, instructions past the provider's bound.
    const bad = [
      await r.acme.api.patch(`/agents/${r.agentId}`, {}),
      await r.acme.api.patch(`/agents/${r.agentId}`, { voice: 'ash' }),
      await r.acme.api.patch(`/agents/${r.agentId}`, { instructions: 7 }),
      await r.acme.api.patch(`/agents/${r.agentId}`, { tools: { garden: ['*'] } }),
      await r.acme.api.patch(`/agents/${r.agentId}`, { tools: { device: ['bad name!'] } }),
      await r.acme.api.post(`/agents/${r.agentId}/say`, {}),
      await r.acme.api.post(`/agents/${r.agentId}/say`, { text: '' }),
      await r.acme.api.post(`/agents/${r.agentId}/say`, { text: '   ' }),
      await r.acme.api.post(`/agents/${r.agentId}/say`, { text: 'hi', interrupt: 'yes' }),
      await r.acme.api.post(`/agents/${r.agentId}/say`, { text: 'x'.repeat(2001) }),
    ]
    for (const res of bad) expect([res.status, res.body.error?.code]).toEqual([400, 'validation_failed'])
    expect(bad[3]!.body.error.message).toMatch(/garden/)
    // Nothing of it changed the agent: the next turn still has the pirate instructions.
    await r.speak()
    expect(((await r.chat(3)).body.messages as Array<{ content: string }>)[0]!.content).toBe('You are a pirate.')

    // Unknown agent, another workspace's agent: 404.
    const other = r.t.workspace('other')
    for (const res of [
      await r.acme.api.post('/agents/ag_0000000000000000/say', { text: 'hi' }),
      await r.acme.api.post('/agents/ag_0000000000000000/interrupt'),
      await r.acme.api.patch('/agents/ag_0000000000000000', { instructions: 'x' }),
      await other.api.post(`/agents/${r.agentId}/say`, { text: 'hi' }),
      await other.api.patch(`/agents/${r.agentId}`, { instructions: 'x' }),
    ]) expect([res.status, res.body.error?.code]).toEqual([404, 'not_found'])
    expect((await r.acme.api.post('/agents/not-an-id/interrupt')).status).toBe(400)
  })

  it('a provider without an operation of live control answers 409 not_supported, naming what it cannot do; an ended agent 409 conflict', async () => {
    const r = await setUp()
    expect((await r.acme.api.post('/agent-presets', { presetId: 'parrot', provider: 'echo', config: {} })).status).toBe(201)
    const echo = await r.acme.api.post('/agents', { room: 'hall', presetId: 'parrot' })
    expect(echo.status).toBe(201)
    const id = echo.body.agentId as string
    const say = await r.acme.api.post(`/agents/${id}/say`, { text: 'hello' })
    expect([say.status, say.body.error.code]).toEqual([409, 'not_supported'])
    expect(say.body.error.message).toMatch(/echo provider cannot say/)
    // It can be interrupted (its echo dropped), so that answers 200.
    expect((await r.acme.api.post(`/agents/${id}/interrupt`)).status).toBe(200)
    const patch = await r.acme.api.patch(`/agents/${id}`, { instructions: 'x' })
    expect([patch.status, patch.body.error.code]).toEqual([409, 'not_supported'])
    expect(patch.body.error.message).toMatch(/instructions or tools/)

    expect((await r.acme.api.delete(`/agents/${r.agentId}`)).status).toBe(200)
    const ended = await r.acme.api.post(`/agents/${r.agentId}/say`, { text: 'hello' })
    expect([ended.status, ended.body.error.code]).toEqual([409, 'conflict'])
  })
})
