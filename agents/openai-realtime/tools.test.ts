/**
 * The openai-realtime agent calling tools against the strict local fake of the GA Realtime API: the
 * allowed device tools of a xiaozhi emulator go into the session's `tools`, the model's
 * `function_call` (streamed `response.function_call_arguments.*`) is carried out on the device,
 * answered with a `function_call_output` item and a `response.create`, and the room hears the
 * reply. A refused call is answered with the reason; nothing fails the agent.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import { concat, silence, tone, UplinkEncoder } from '../../core/test/speech.js'
import { RecordingLink, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { xiaozhi } from '../../transports/xiaozhi/index.js'
import { XiaozhiDevice, type DeviceTool } from '../../transports/xiaozhi/test/device.js'
import { openaiRealtimeAgent } from './index.js'
import { FakeRealtimeServer, type FakeReply } from './test/fakeRealtimeServer.js'

const KEY = 'sk-fake-realtime-key-0123456789'
const WAIT_MS = 15_000

const deviceTools: Record<string, DeviceTool> = {
  'self.light.set_on': {
    description: 'Turn a light on or off',
    inputSchema: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'] },
    call: (a) => `light ${a.on ? 'on' : 'off'}`,
  },
  'self.door.unlock': { description: 'Unlock the door', inputSchema: { type: 'object', properties: {} }, call: () => 'unlocked' },
}

let running: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

describe('openai-realtime agent tools (function calling against the fake GA Realtime API)', () => {
  it('offers the allowed device tools in the session, calls self.light.set_on on the device, answers with function_call_output and the room hears the reply; a refused call gets the reason', async () => {
    const replies: FakeReply[] = [
      { audioMs: 0, transcript: '', toolCalls: [{ name: 'self.light.set_on', arguments: { on: true } }, { name: 'speaker-1_self_door_unlock', arguments: {} }] },
      { audioMs: 600, transcript: 'The light is on and the door stays locked' },
    ]
    const fake = await FakeRealtimeServer.start(KEY, (turn) => replies[turn - 1] ?? { audioMs: 200, transcript: `reply ${turn}` })
    running.push(() => fake.stop())
    const t = await startTestEngine({
      extensions: [websocketTransport, ...xiaozhi, openaiRealtimeAgent],
      agents: { defaultProvider: 'openai-realtime', startTimeoutMs: 10_000, openaiRealtime: { baseUrl: fake.baseUrl, apiKey: KEY, apiKeyEnv: 'HARK_TEST_NONE' } },
    })
    running.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    const view = await t.engine.host.agents.dispatch(seed.workspaceId, 'kitchen', { overrides: { tools: { device: ['*/self.light.*'] } } })
    expect(view.state).toBe('running')
    seed.addClient('a', 'kitchen')
    seed.addClient('speaker-1', 'kitchen')
    const { token } = await t.engine.host.security.tokens.issue(seed.workspaceId, 'a', null)
    const link = new RecordingLink()
    const terminal = t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token }), link)
    const session = (await link.event('session')) as Extract<ServerEvent, { type: 'session' }>
    const agentSource = session.participants.find((p) => p.kind === 'agent')!.sourceId
    const device = await XiaozhiDevice.connect({
      url: `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`,
      ca: t.engine.host.tls.cert,
      token: t.engine.host.security.devicePasswords.reset(seed.workspaceId, 'speaker-1').password,
      device: { mac: '06:00:00:00:03:01', uuid: randomUUID() },
      hello: false,
    })
    running.push(() => device.close())
    device.serveTools(deviceTools)
    await device.hello()

    // The session is updated with the allowed tool only, as a GA function tool.
    const updated = await fake.received.next(
      (e) => e.type === 'session.update' && Array.isArray((e.session as { tools?: unknown[] }).tools) && (e.session as { tools: unknown[] }).tools.length > 0,
      WAIT_MS,
      'session.update with tools',
    )
    expect((updated.session as { tools: unknown[]; tool_choice: unknown })).toMatchObject({
      tools: [{ type: 'function', name: 'speaker-1_self_light_set_on', description: 'Turn a light on or off', parameters: deviceTools['self.light.set_on']!.inputSchema }],
      tool_choice: 'auto',
    })

    // The room speaks: the model calls two functions; the allowed one reaches the device.
    for (const frame of new UplinkEncoder().frames(concat(tone(600, 220), silence(900)))) terminal.pushAudio(frame)
    expect(await device.toolCalls.next(() => true, WAIT_MS, 'the light call')).toEqual({ name: 'self.light.set_on', arguments: { on: true } })
    const light = await fake.functionOutputs.next((o) => o.name === 'speaker-1_self_light_set_on', WAIT_MS, 'the light output')
    expect(light.output).toBe('light on')
    const door = await fake.functionOutputs.next((o) => o.name === 'speaker-1_self_door_unlock', WAIT_MS, 'the door output')
    expect(door.output).toBe('error: the tool speaker-1/self.door.unlock is not allowed for this agent')
    // Both answered, the model is asked to go on: the reply is spoken into the room.
    await fake.received.next((e) => e.type === 'response.create', WAIT_MS, 'response.create')
    const transcript = await link.events.next(
      (e) => e.type === 'agent.event' && e.event.kind === 'transcript' && e.event.role === 'agent',
      WAIT_MS,
      'the agent transcript',
    )
    expect((transcript as Extract<ServerEvent, { type: 'agent.event' }>).event.text).toBe('The light is on and the door stays locked')
    expect(link.frames.items.filter((f) => ((f[2]! << 8) | f[3]!) === agentSource).length).toBeGreaterThan(10)
    const calls = link.events.items.flatMap((e) => (e.type === 'agent.event' && e.event.kind === 'tool_call' ? [e.event] : []))
    expect(calls.map((c) => [c.name, c.error ?? c.result])).toEqual(
      expect.arrayContaining([
        ['speaker-1/self.light.set_on', 'light on'],
        ['speaker-1/self.door.unlock', 'the tool speaker-1/self.door.unlock is not allowed for this agent'],
      ]),
    )
    expect(device.toolCalls.items).toHaveLength(1)
    expect(fake.errorCodes()).toEqual([])
    expect(t.engine.host.agents.get(seed.workspaceId, view.agentId)?.state).toBe('running')
  }, 60_000)

  it('a WebSocket terminal offers its own MCP tools over the terminal protocol (mcp.ready, mcp): the agent lists and calls them; a payload that is not JSON-RPC is refused', async () => {
    const replies: FakeReply[] = [
      { audioMs: 0, transcript: '', toolCalls: [{ name: 'lamp.toggle', arguments: { level: 3 } }] },
      { audioMs: 300, transcript: 'Toggled' },
    ]
    const fake = await FakeRealtimeServer.start(KEY, (turn) => replies[turn - 1] ?? { audioMs: 200, transcript: `reply ${turn}` })
    running.push(() => fake.stop())
    const t = await startTestEngine({
      extensions: [websocketTransport, openaiRealtimeAgent],
      agents: { defaultProvider: 'openai-realtime', startTimeoutMs: 10_000, openaiRealtime: { baseUrl: fake.baseUrl, apiKey: KEY, apiKeyEnv: 'HARK_TEST_NONE' } },
    })
    running.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    await t.engine.host.agents.dispatch(seed.workspaceId, 'den', { overrides: { tools: { device: ['web-1/*'] } } })
    seed.addClient('web-1', 'den')
    const { token } = await t.engine.host.security.tokens.issue(seed.workspaceId, 'web-1', null)
    const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
    running.push(() => term.close())
    await term.event('session')
    // Serve MCP as a terminal: answer the agent's requests addressed to it.
    const calls: unknown[] = []
    term.events.next((e) => {
      if (e.type !== 'agent.event' || e.event.kind !== 'mcp' || e.event.to !== 'web-1') return false
      const request = e.event.payload as { id: number; method: string; params?: { arguments?: unknown } }
      const result =
        request.method === 'initialize' ? { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'web', version: '1' } }
        : request.method === 'tools/list' ? { tools: [{ name: 'lamp.toggle', description: 'Toggle the lamp', inputSchema: { type: 'object', properties: { level: { type: 'integer' } } } }] }
        : (calls.push(request.params?.arguments), { content: [{ type: 'text', text: 'toggled' }], isError: false })
      term.send({ type: 'mcp', payload: { jsonrpc: '2.0', id: request.id, result } })
      return false
    }, 60_000).catch(() => {})
    term.send({ type: 'mcp', payload: { id: 1 } })
    expect(await term.event('error')).toMatchObject({ code: 'validation_failed', message: '"payload" must be a JSON-RPC 2.0 object ({"jsonrpc": "2.0", …})' })
    term.send({ type: 'mcp.ready' })
    await fake.received.next(
      (e) => e.type === 'session.update' && JSON.stringify((e.session as { tools?: unknown }).tools ?? []).includes('web-1_lamp_toggle'),
      WAIT_MS,
      'the terminal tool in the session',
    )
    for (const frame of new UplinkEncoder().frames(concat(tone(600, 220), silence(900)))) term.sendAudio(frame)
    expect(await fake.functionOutputs.next(() => true, WAIT_MS, 'the lamp output')).toMatchObject({ name: 'web-1_lamp_toggle', output: 'toggled' })
    expect(calls).toEqual([{ level: 3 }])
  }, 60_000)
})
