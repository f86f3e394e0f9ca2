/**
 * The pipeline agent calling back-end functions its preset declares, end to end against real
 * parts: a real HTTPS receiver (a self-signed certificate, trusted through agents.functionsCaFile)
 * registered as a webhook endpoint of the workspace, verifying each call's Standard Webhooks
 * signature with the `standardwebhooks` package; the (fake) chat model streams `tool_calls`; the
 * answer's JSON goes back to the model and the terminal hears the reply. An answer of 500, one
 * that is not JSON and one that never comes are error results for the model, and the agent keeps
 * talking. Arguments that do not match the schema never reach the back end; a preset whose
 * parameters are not JSON Schema is refused with 400 and the reason.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import type { EngineConfig } from '../../core/index.js'
import { startFunctionReceiver } from '../../core/test/functionReceiver.js'
import { concat, DownlinkDecoder, UplinkEncoder } from '../../core/test/speech.js'
import { startWebhookEngine } from '../../plugins/webhooks/test/webhookEngine.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { speakInRealTime } from '../test/audioChecks.js'
import { pipelineAgent } from './index.js'
import { FakeOpenAiHttp } from './test/fakeOpenAiHttp.js'

const KEYS = { stt: 'sk-stt-key-000000000001', llm: 'sk-llm-key-000000000002', tts: 'sk-tts-key-000000000003' }
const TURN_MS = 15_000

let running: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

const encoder = new UplinkEncoder()
const speak = (term: TestTerminal, ms?: number) => speakInRealTime((f) => term.sendAudio(f), encoder, ms)

describe('pipeline agent calling back-end functions (signed HTTPS POST to a webhook endpoint of the workspace)', () => {
  it('calls the function signed, gives its JSON answer to the model; 500, garbage and silence are error results and the agent keeps talking', async () => {
    const receiver = await startFunctionReceiver((call, res) => {
      const args = call.body.arguments as Record<string, unknown>
      if (args.party === 500) return void res.writeHead(500).end('{"error":"boom"}')
      if (args.party === 2) return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json')
      if (args.party === 3) return 'hold'
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ booked: true, table: 12, at: args.time }))
    })
    running.push(() => receiver.close())
    const fake = await FakeOpenAiHttp.start(KEYS)
    running.push(() => fake.stop())
    const api = (baseUrl: string, apiKey: string) => ({ baseUrl, apiKey, apiKeyEnv: 'HARK_TEST_NONE' })
    const t = await startWebhookEngine({
      config: {
        extensions: [websocketTransport, pipelineAgent],
        agents: {
          defaultProvider: 'pipeline',
          startTimeoutMs: 10_000,
          functionsCaFile: receiver.caFile,
          pipeline: { stt: api(fake.baseUrl, KEYS.stt), llm: api(fake.baseUrl, KEYS.llm), tts: api(fake.baseUrl, KEYS.tts), requestTimeoutMs: 5000 },
        },
      } as EngineConfig,
    })
    running.push(() => t.stop())
    const acme = t.workspace('acme')
    const hook = await acme.api.post('/webhooks', { url: receiver.url, events: ['agent.tool_called'] })
    expect(hook.status).toBe(201)
    receiver.secrets.push(hook.body.secret as string)
    const book = {
      name: 'book_table',
      description: 'Book a table',
      parameters: { type: 'object', properties: { party: { type: 'integer', minimum: 1 }, time: { type: 'string' } }, required: ['party'] },
    }
    // Parameters that are not JSON Schema: refused, with the reason.
    const bad = await acme.api.post('/agent-presets', {
      presetId: 'bad', name: 'Bad', provider: 'pipeline', config: { functions: [{ name: 'f', parameters: { type: 'objectish' } }] },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/^config\.functions\.0\.parameters is not JSON Schema: /)
    // An unknown tool source.
    const cloud = await acme.api.post('/agent-presets', { presetId: 'bad', name: 'Bad', provider: 'pipeline', config: { tools: { cloud: ['*'] } } })
    expect(cloud.status).toBe(400)
    expect(cloud.body.error.message).toMatch(/^config\.tools\.cloud /)
    const preset = await acme.api.post('/agent-presets', {
      presetId: 'host', name: 'Host', provider: 'pipeline',
      config: { instructions: 'You book tables.', vadSilenceMs: 500, toolTimeoutMs: 800, functions: [book], functionsWebhookId: hook.body.webhookId, tools: { function: ['book_*'] } },
    })
    expect(preset.status).toBe(201)

    expect((await acme.api.post('/clients', { clientId: 'web-1', room: 'lobby' })).status).toBe(201)
    const { token } = (await acme.api.post('/clients/web-1/token', {})).body
    const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
    running.push(() => term.close())
    await term.event('session')
    const created = await acme.api.post('/agents', { room: 'lobby', presetId: 'host' })
    expect(created.status).toBe(201)
    const agentId = created.body.agentId as string
    const agentEvent = (kind: string, predicate: (e: Record<string, unknown>) => boolean = () => true) =>
      term.events
        .next((e) => e.type === 'agent.event' && e.agentId === agentId && e.event.kind === kind && predicate(e.event), TURN_MS, `agent.event ${kind}`)
        .then((e) => (e as Extract<ServerEvent, { type: 'agent.event' }>).event as Record<string, unknown>)
    const heard = (from: number) => {
      const joined = term.events.items.find((e) => e.type === 'participant.joined' && e.participant.id === created.body.identity) as Extract<ServerEvent, { type: 'participant.joined' }>
      const decoder = new DownlinkDecoder()
      return concat(...term.frames.items.slice(from).map((f) => decoder.decode(f)).filter((f) => f.sourceId === joined.participant.sourceId).map((f) => f.pcm))
    }
    const chat = (n: number) => fake.requests.next(() => fake.of('llm').length >= n, TURN_MS, `chat request #${n}`).then(() => fake.of('llm')[n - 1]!)
    const lastMessage = async (n: number) => ((await chat(n)).body.messages as unknown[]).at(-1)

    fake.script.transcripts = ['a table for four at eight', 'for five hundred', 'for two', 'for three', 'for zero']
    fake.script.replies = [
      { toolCalls: [{ name: 'book_table', arguments: { party: 4, time: '20:00' } }] },
      'Table 12 is yours at eight.',
      { toolCalls: [{ name: 'book_table', arguments: { party: 500 } }] },
      'The booking system failed.',
      { toolCalls: [{ name: 'book_table', arguments: { party: 2 } }] },
      'The booking system answered nonsense.',
      { toolCalls: [{ name: 'book_table', arguments: { party: 3 } }] },
      'The booking system is slow.',
      { toolCalls: [{ name: 'book_table', arguments: { party: 0 } }] },
      'How many people?',
    ]
    await agentEvent('tools', (e) => (e.tools as string[]).includes('book_table'))

    // Turn 1: a signed call with the agent's fields; the JSON answer reaches the model; the reply is heard.
    const from = term.frames.items.length
    await speak(term)
    const first = await receiver.calls.next(() => true, TURN_MS, 'the booking call')
    expect(first.verified).toBe(true)
    expect(first.headers['webhook-id']).toBe(first.body.callId)
    expect(first.body).toEqual({ agentId, room: 'lobby', name: 'book_table', arguments: { party: 4, time: '20:00' }, callId: expect.stringMatching(/^fc_/) })
    expect(await agentEvent('tool_call')).toMatchObject({ name: 'book_table', source: 'function', result: '{"booked":true,"table":12,"at":"20:00"}' })
    expect(await lastMessage(2)).toMatchObject({ role: 'tool', content: '{"booked":true,"table":12,"at":"20:00"}' })
    expect(await agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'Table 12 is yours at eight.')).toBeTruthy()
    expect(heard(from).length / 16_000).toBeGreaterThan(0.5)

    // Turns 2–4: 500, not JSON, no answer: error results, the agent keeps talking.
    const errors = ['the function endpoint answered HTTP 500', "the function endpoint's answer is not JSON", 'the tool did not answer within 800 ms']
    for (const [i, error] of errors.entries()) {
      await speak(term)
      expect((await agentEvent('tool_call', (e) => e.error === error)).source).toBe('function')
      expect(await lastMessage(4 + i * 2)).toMatchObject({ role: 'tool', content: `error: ${error}` })
      expect(await agentEvent('transcript', (e) => e.role === 'agent' && e.text === fake.script.replies[3 + i * 2])).toBeTruthy()
    }

    // Turn 5: arguments that do not match the schema never reach the back end.
    await speak(term)
    expect((await agentEvent('tool_call', (e) => (e.arguments as { party?: number }).party === 0)).error).toBe('invalid arguments: /party must be >= 1')
    expect(await agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'How many people?')).toBeTruthy()
    expect(receiver.calls.items.map((c) => (c.body.arguments as { party: number }).party)).toEqual([4, 500, 2, 3])
    expect(receiver.calls.items.every((c) => c.verified)).toBe(true)
    // The signing secret never reached the room.
    expect(JSON.stringify(term.events.items)).not.toContain(hook.body.secret as string)
    expect((await acme.api.get(`/agents/${agentId}`)).body.state).toBe('running')
  }, 120_000)
})
