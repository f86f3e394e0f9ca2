/**
 * The pipeline agent calling tools, end to end against real parts: a WebSocket terminal speaks,
 * the (fake) chat model streams a `tool_calls` delta for `self.light.set_on`, the agent calls it
 * on a xiaozhi device emulator in the same room over the device's MCP, the result goes back to the
 * model, and the terminal hears the reply. A tool outside the preset's allow-list is refused to
 * the model with the reason, and a tool that hangs times out while the agent keeps talking. Every
 * call reaches the room as an `agent.event {kind: "tool_call"}`, a signed `agent.tool_called`
 * webhook (verified by a real receiver) and /metrics.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import type { EngineConfig } from '../../core/index.js'
import { concat, DownlinkDecoder, UplinkEncoder } from '../../core/test/speech.js'
import { WebhookReceiver } from '../../plugins/webhooks/test/receiver.js'
import { startWebhookEngine } from '../../plugins/webhooks/test/webhookEngine.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { xiaozhi } from '../../transports/xiaozhi/index.js'
import { XiaozhiDevice, type DeviceTool } from '../../transports/xiaozhi/test/device.js'
import { speakInRealTime } from '../test/audioChecks.js'
import { validateAgentConfig } from '../../core/agentRuntime/agentConfig.js'
import type { AgentProvider } from '../../core/agentProvider.js'
import type { ValidationFailed } from '../../core/errors.js'
import { PipelineConfigSchema, pipelineAgent } from './index.js'
import { FakeOpenAiHttp } from './test/fakeOpenAiHttp.js'

const KEYS = { stt: 'sk-stt-key-000000000001', llm: 'sk-llm-key-000000000002', tts: 'sk-tts-key-000000000003' }
/** A bound for failure spanning a spoken turn (see pipeline.test.ts), not a pause. */
const TURN_MS = 15_000

const deviceTools: Record<string, DeviceTool> = {
  'self.light.set_on': {
    description: 'Turn a light on or off',
    inputSchema: { type: 'object', properties: { room: { type: 'string' }, on: { type: 'boolean' } }, required: ['on'] },
    call: (a) => `the ${String(a.room ?? 'room')} light is ${a.on ? 'on' : 'off'}`,
  },
  'self.door.unlock': { description: 'Unlock the front door', inputSchema: { type: 'object', properties: {} }, call: () => 'unlocked' },
  'self.oven.status': { description: 'Is the oven on?', inputSchema: { type: 'object', properties: {} }, call: () => 'off', hang: true },
}

let running: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

const encoder = new UplinkEncoder()
const speak = (term: TestTerminal, ms?: number) => speakInRealTime((f) => term.sendAudio(f), encoder, ms)

/** A room with a pipeline agent allowed some of the device's tools, a WebSocket terminal and a xiaozhi device. */
const setUp = async (overrides: Record<string, unknown>) => {
  const fake = await FakeOpenAiHttp.start(KEYS)
  running.push(() => fake.stop())
  const receiver = await WebhookReceiver.start()
  running.push(() => receiver.close())
  const api = (baseUrl: string, apiKey: string) => ({ baseUrl, apiKey, apiKeyEnv: 'HARK_TEST_NONE' })
  const t = await startWebhookEngine({
    config: {
      extensions: [websocketTransport, ...xiaozhi, pipelineAgent],
      agents: {
        defaultProvider: 'pipeline',
        startTimeoutMs: 10_000,
        pipeline: { stt: api(fake.baseUrl, KEYS.stt), llm: api(fake.baseUrl, KEYS.llm), tts: api(fake.baseUrl, KEYS.tts), requestTimeoutMs: 5000 },
      },
    } as EngineConfig,
  })
  running.push(() => t.stop())
  const acme = await t.workspaceWithEndpoint(receiver, 'acme', ['agent.tool_called'])
  for (const clientId of ['web-1', 'speaker-1']) expect((await acme.api.post('/clients', { clientId, room: 'kitchen' })).status).toBe(201)
  const created = await acme.api.post('/agents', { room: 'kitchen', overrides: { instructions: 'You run the house.', vadSilenceMs: 500, ...overrides } })
  expect(created.status).toBe(201)
  const agentId = created.body.agentId as string
  const { token } = (await acme.api.post('/clients/web-1/token', {})).body
  const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
  running.push(() => term.close())
  const session = (await term.event('session')) as Extract<ServerEvent, { type: 'session' }>
  const agentSource = session.participants.find((p) => p.kind === 'agent')!.sourceId
  const device = await XiaozhiDevice.connect({
    url: `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`,
    ca: t.engine.host.tls.cert,
    token: t.engine.host.security.devicePasswords.reset(acme.workspaceId, 'speaker-1').password,
    device: { mac: '06:00:00:00:02:01', uuid: randomUUID() },
    hello: false,
  })
  running.push(() => device.close())
  device.serveTools(deviceTools)
  await device.hello()
  const agentEvent = (kind: string, predicate: (e: Record<string, unknown>) => boolean = () => true) =>
    term.events
      .next((e) => e.type === 'agent.event' && e.agentId === agentId && e.event.kind === kind && predicate(e.event), TURN_MS, `agent.event ${kind}`)
      .then((e) => (e as Extract<ServerEvent, { type: 'agent.event' }>).event as Record<string, unknown>)
  /** Agent audio the terminal decoded from frame `from` on. */
  const heard = (from: number) => {
    const decoder = new DownlinkDecoder()
    return concat(...term.frames.items.slice(from).map((f) => decoder.decode(f)).filter((f) => f.sourceId === agentSource).map((f) => f.pcm))
  }
  /** The `n`th chat request (1-based). */
  const chat = (n: number) => fake.requests.next(() => fake.of('llm').length >= n, TURN_MS, `chat request #${n}`).then(() => fake.of('llm')[n - 1]!)
  return { t, fake, receiver, acme, agentId, term, device, agentEvent, heard, chat }
}

describe('pipeline agent tools (device MCP over a xiaozhi emulator, fake chat completions streaming tool_calls)', () => {
  it('a turn calls self.light.set_on on the device, the result goes back to the model and the terminal hears the reply; a disallowed tool is refused; a hanging tool times out', async () => {
    const r = await setUp({ tools: { device: ['*/self.light.*', 'speaker-1/self.oven.status'] }, toolTimeoutMs: 700 })
    r.fake.script.transcripts = ['turn on the kitchen light', 'unlock the front door', 'is the oven on']
    r.fake.script.replies = [
      { toolCalls: [{ name: 'self.light.set_on', arguments: { room: 'kitchen', on: true } }] },
      'The kitchen light is on.',
      // Not offered to the model (not allowed): it calls it anyway, under its API-safe name.
      { toolCalls: [{ name: 'speaker-1_self_door_unlock', arguments: {} }] },
      'I may not unlock the door.',
      { toolCalls: [{ name: 'self.oven.status', arguments: {} }] },
      'The oven is not answering.',
    ]
    // The allowed tools are offered once the device has announced them.
    await r.agentEvent('tools', (e) => (e.tools as string[]).includes('speaker-1_self_light_set_on'))

    // Turn 1: the light.
    let from = r.term.frames.items.length
    await speak(r.term)
    const asked = await r.chat(1)
    const offered = (asked.body.tools as Array<{ type: string; function: { name: string; parameters: unknown } }>).map((f) => f.function.name).sort()
    expect(offered).toEqual(['speaker-1_self_light_set_on', 'speaker-1_self_oven_status'])
    expect(await r.device.toolCalls.next(() => true, TURN_MS, 'the light call')).toEqual({ name: 'self.light.set_on', arguments: { room: 'kitchen', on: true } })
    const lightCall = await r.agentEvent('tool_call')
    expect(lightCall).toMatchObject({
      kind: 'tool_call', name: 'speaker-1/self.light.set_on', source: 'device', arguments: { room: 'kitchen', on: true }, result: 'the kitchen light is on',
    })
    expect(lightCall.latencyMs).toEqual(expect.any(Number))
    // The result went back to the model, answering its call by id.
    const followUp = await r.chat(2)
    const messages = followUp.body.messages as Array<Record<string, unknown>>
    const assistant = messages.find((m) => m.role === 'assistant' && Array.isArray(m.tool_calls)) as { tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> }
    expect(assistant.tool_calls[0]!.function).toEqual({ name: 'speaker-1_self_light_set_on', arguments: '{"room":"kitchen","on":true}' })
    expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: assistant.tool_calls[0]!.id, content: 'the kitchen light is on' })
    expect(await r.agentEvent('transcript', (e) => e.role === 'agent')).toMatchObject({ text: 'The kitchen light is on.' })
    expect(r.heard(from).length / 16_000).toBeGreaterThan(0.5)
    // The webhook, signed and verified by the receiver, and the metrics.
    const hook = await r.receiver.accepted.next((e) => e.type === 'agent.tool_called', TURN_MS, 'agent.tool_called')
    expect(hook.data).toMatchObject({ agentId: r.agentId, room: 'kitchen', provider: 'pipeline', tool: 'speaker-1/self.light.set_on', source: 'device', ok: true, error: null })

    // Turn 2: a tool the preset does not allow is refused to the model, with the reason; the device never sees it.
    await speak(r.term)
    const refused = await r.agentEvent('tool_call', (e) => e.name === 'speaker-1/self.door.unlock')
    expect(refused.error).toBe('the tool speaker-1/self.door.unlock is not allowed for this agent')
    const afterRefusal = await r.chat(4)
    expect((afterRefusal.body.messages as Array<Record<string, unknown>>).at(-1)).toMatchObject({ role: 'tool', content: 'error: the tool speaker-1/self.door.unlock is not allowed for this agent' })
    expect(await r.agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'I may not unlock the door.')).toBeTruthy()

    // Turn 3: the oven never answers: the model hears the timeout and the agent keeps talking.
    from = r.term.frames.items.length
    await speak(r.term)
    expect(await r.device.toolCalls.next((c) => c.name === 'self.oven.status', TURN_MS, 'the oven call')).toEqual({ name: 'self.oven.status', arguments: {} })
    const timedOut = await r.agentEvent('tool_call', (e) => e.name === 'speaker-1/self.oven.status')
    expect(timedOut.error).toBe('the tool did not answer within 700 ms')
    expect(timedOut.latencyMs as number).toBeGreaterThanOrEqual(650)
    expect(await r.agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'The oven is not answering.')).toBeTruthy()
    expect(r.heard(from).length / 16_000).toBeGreaterThan(0.5)
    expect(r.device.toolCalls.items.map((c) => c.name)).toEqual(['self.light.set_on', 'self.oven.status'])

    const metrics = await (await fetch(r.t.url('/metrics'))).text()
    expect(metrics).toContain('hark_agent_tool_calls_total{provider="pipeline",source="device",outcome="ok"} 1')
    expect(metrics).toContain('hark_agent_tool_calls_total{provider="pipeline",source="device",outcome="error"} 2')
    expect(metrics).toMatch(/hark_agent_tool_call_seconds_count\{provider="pipeline",source="device"\} 3/)
    const ovenHook = await r.receiver.accepted.next((e) => e.type === 'agent.tool_called' && e.data.tool === 'speaker-1/self.oven.status', TURN_MS, 'the oven webhook')
    expect(ovenHook.data).toMatchObject({ ok: false, result: null, error: 'the tool did not answer within 700 ms', source: 'device' })
  }, 90_000)

  it('refuses a preset naming an unknown tool source or a malformed allow-list, with the field and the reason', () => {
    const provider: AgentProvider = { configSchema: PipelineConfigSchema as AgentProvider['configSchema'], start: () => ({}) }
    const check = (config: unknown) => {
      try {
        validateAgentConfig('pipeline', provider, config, 'config')
        return null
      } catch (e) {
        return (e as ValidationFailed).message
      }
    }
    expect(check({ tools: { device: ['*/self.light.*'] }, maxToolRounds: 2 })).toBeNull()
    expect(check({ tools: { cloud: ['*'] } })).toMatch(/^config\.tools\.cloud .*not a setting|^config\.tools\.cloud/)
    expect(check({ tools: { device: 'all' } })).toMatch(/^config\.tools\.device /)
    expect(check({ tools: { device: ['light; rm -rf'] } })).toMatch(/^config\.tools\.device\.0 /)
    expect(check({ maxToolRounds: 99 })).toMatch(/^config\.maxToolRounds /)
  })
})
