/**
 * The pipeline agent calling the tools of an MCP server named in its config, end to end against
 * real parts: an MCP server built with the official SDK in this process (streamable HTTP on a free
 * port), a WebSocket terminal whose turns make the (fake) chat model stream `tool_calls`, the
 * agent (in a provider worker) calling the server with the headers of the setting
 * `agents.mcpServers`, the result back to the model, the reply heard. A tool outside the allow-list
 * is refused; a tool that hangs times out; a server that went down gives an error result; the agent
 * keeps talking through all of it. A server whose URL is a private address is refused without
 * its `allowPrivateNetworks`, with the reason.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import type { EngineConfig } from '../../core/index.js'
import { concat, DownlinkDecoder, UplinkEncoder } from '../../core/test/speech.js'
import { TestMcpServer, type TestMcpTool } from '../../core/test/mcpServer.js'
import { startWebhookEngine } from '../../plugins/webhooks/test/webhookEngine.js'
import { WebhookReceiver } from '../../plugins/webhooks/test/receiver.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { speakInRealTime } from '../test/audioChecks.js'
import { validateAgentConfig } from '../../core/agentRuntime/agentConfig.js'
import type { AgentProvider } from '../../core/agentProvider.js'
import type { ValidationFailed } from '../../core/errors.js'
import { PipelineConfigSchema, pipelineAgent } from './index.js'
import { FakeOpenAiHttp } from './test/fakeOpenAiHttp.js'

const KEYS = { stt: 'sk-stt-key-000000000001', llm: 'sk-llm-key-000000000002', tts: 'sk-tts-key-000000000003' }
const MCP_TOKEN = 'Bearer mcp-secret-0123456789abcdef'
/** A bound for failure spanning a spoken turn (see pipeline.test.ts), not a pause. */
const TURN_MS = 15_000

const crmTools: Record<string, TestMcpTool> = {
  lookup_order: {
    description: 'Where is an order?',
    inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    call: (a) => `order ${String(a.orderId)} ships tomorrow`,
  },
  delete_customer: { description: 'Delete a customer', inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, call: () => 'deleted' },
  slow_report: { description: 'A report that never comes', inputSchema: { type: 'object', properties: {} }, hang: true },
}

let running: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

const encoder = new UplinkEncoder()
const speak = (term: TestTerminal, ms?: number) => speakInRealTime((f) => term.sendAudio(f), encoder, ms)

describe('pipeline agent tools from an MCP server named in its config (official SDK server, streamable HTTP)', () => {
  it('calls the server with its headers from the settings, refuses a disallowed tool, survives a hang and the server going down; a private URL without the setting is refused', async () => {
    const fake = await FakeOpenAiHttp.start(KEYS)
    running.push(() => fake.stop())
    const crm = await TestMcpServer.start(crmTools)
    running.push(() => crm.close())
    const receiver = await WebhookReceiver.start()
    running.push(() => receiver.close())
    const api = (baseUrl: string, apiKey: string) => ({ baseUrl, apiKey, apiKeyEnv: 'HARK_TEST_NONE' })
    const t = await startWebhookEngine({
      config: {
        extensions: [websocketTransport, pipelineAgent],
        agents: {
          defaultProvider: 'pipeline',
          startTimeoutMs: 10_000,
          // `crm` may use the loopback address; `internal` has no setting: private addresses are refused.
          mcpServers: JSON.stringify({ crm: { headers: { Authorization: MCP_TOKEN }, allowPrivateNetworks: true } }),
          pipeline: { stt: api(fake.baseUrl, KEYS.stt), llm: api(fake.baseUrl, KEYS.llm), tts: api(fake.baseUrl, KEYS.tts), requestTimeoutMs: 5000 },
        },
      } as EngineConfig,
    })
    running.push(() => t.stop())
    const acme = await t.workspaceWithEndpoint(receiver, 'acme', ['agent.tool_called'])
    expect((await acme.api.post('/clients', { clientId: 'web-1', room: 'shop' })).status).toBe(201)
    const preset = await acme.api.post('/agent-presets', {
      presetId: 'clerk',
      name: 'Clerk',
      provider: 'pipeline',
      config: {
        instructions: 'You help customers.',
        vadSilenceMs: 500,
        toolTimeoutMs: 700,
        mcpServers: [
          { name: 'crm', url: crm.url, allowedTools: ['lookup_order', 'delete_customer', 'slow_report'] },
          // A host name: checked when the agent connects (it resolves to loopback).
          { name: 'internal', url: crm.url.replace('http://127.0.0.1', 'https://localhost') },
        ],
        tools: { mcp: ['crm/lookup_order', 'crm/slow_report'] },
      },
    })
    expect(preset.status).toBe(201)
    // An IP literal or plain http is refused when the preset is written, naming the setting that would allow it.
    const refusedPreset = async (url: string) => {
      const r = await acme.api.post('/agent-presets', { presetId: 'bad', name: 'Bad', provider: 'pipeline', config: { mcpServers: [{ name: 'internal', url }] } })
      expect(r.status).toBe(400)
      return r.body.error.message as string
    }
    expect(await refusedPreset('https://10.1.2.3/mcp')).toBe(
      'config.mcpServers.0.url: 10.1.2.3 is a private address, not a public one (allowed only with "allowPrivateNetworks": true for internal in the setting agents.mcpServers)',
    )
    expect(await refusedPreset('https://[::1]:8443/mcp')).toMatch(/^config\.mcpServers\.0\.url: ::1 is a loopback address/)
    expect(await refusedPreset('http://mcp.example.com/mcp')).toBe(
      'config.mcpServers.0.url must be https (http only with "allowPrivateNetworks": true for internal in the setting agents.mcpServers)',
    )
    // The preset as stored and read back holds no header of the server.
    expect(JSON.stringify((await acme.api.get('/agent-presets/clerk')).body)).not.toContain('mcp-secret')

    const { token } = (await acme.api.post('/clients/web-1/token', {})).body
    const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
    running.push(() => term.close())
    await term.event('session')
    const created = await acme.api.post('/agents', { room: 'shop', presetId: 'clerk' })
    expect(created.status).toBe(201)
    const agentId = created.body.agentId as string
    const agentEvent = (kind: string, predicate: (e: Record<string, unknown>) => boolean = () => true) =>
      term.events
        .next((e) => e.type === 'agent.event' && e.agentId === agentId && e.event.kind === kind && predicate(e.event), TURN_MS, `agent.event ${kind}`)
        .then((e) => (e as Extract<ServerEvent, { type: 'agent.event' }>).event as Record<string, unknown>)
    const agentSource = () => {
      const joined = term.events.items.find((e) => e.type === 'participant.joined' && e.participant.id === created.body.identity)
      return (joined as Extract<ServerEvent, { type: 'participant.joined' }>).participant.sourceId
    }
    const heard = (from: number) => {
      const decoder = new DownlinkDecoder()
      return concat(...term.frames.items.slice(from).map((f) => decoder.decode(f)).filter((f) => f.sourceId === agentSource()).map((f) => f.pcm))
    }
    const chat = (n: number) => fake.requests.next(() => fake.of('llm').length >= n, TURN_MS, `chat request #${n}`).then(() => fake.of('llm')[n - 1]!)

    // The private URL without its setting: refused with the reason; the other server is connected.
    const refused = await agentEvent('tools.error')
    expect(refused).toMatchObject({ source: 'mcp', server: 'internal' })
    expect(refused.error).toMatch(/^the MCP server internal is not available: localhost resolves to (127\.0\.0\.1|::1) \(loopback\), which is not a public address \(allowed only with "allowPrivateNetworks": true for internal in the setting agents\.mcpServers\)/)
    await agentEvent('tools', (e) => (e.tools as string[]).includes('crm_lookup_order'))
    // The server got the header of the settings.
    expect((await crm.requests.next(() => true, TURN_MS, 'a request')).authorization).toBe(MCP_TOKEN)

    fake.script.transcripts = ['where is my order', 'delete me', 'my report please', 'where is my order now']
    fake.script.replies = [
      { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A-17' } }] },
      'Your order ships tomorrow.',
      // Offered by the server (allowedTools) but not allowed by the agent's permissions.
      { toolCalls: [{ name: 'crm_delete_customer', arguments: { id: 'c1' } }] },
      'I cannot do that.',
      { toolCalls: [{ name: 'slow_report', arguments: {} }] },
      'The report is not ready.',
      { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A-18' } }] },
      'The order system is down.',
    ]

    // Turn 1: the call reaches the server, the result the model, the reply the terminal.
    let from = term.frames.items.length
    await speak(term)
    const offered = ((await chat(1)).body.tools as Array<{ function: { name: string } }>).map((f) => f.function.name).sort()
    expect(offered).toEqual(['crm_lookup_order', 'crm_slow_report'])
    expect(await crm.calls.next(() => true, TURN_MS, 'the lookup')).toEqual({ name: 'lookup_order', arguments: { orderId: 'A-17' } })
    expect(await agentEvent('tool_call')).toMatchObject({
      name: 'crm/lookup_order', source: 'mcp', arguments: { orderId: 'A-17' }, result: 'order A-17 ships tomorrow',
    })
    expect(((await chat(2)).body.messages as unknown[]).at(-1)).toMatchObject({ role: 'tool', content: 'order A-17 ships tomorrow' })
    expect(await agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'Your order ships tomorrow.')).toBeTruthy()
    expect(heard(from).length / 16_000).toBeGreaterThan(0.5)
    const hook = await receiver.accepted.next((e) => e.type === 'agent.tool_called', TURN_MS, 'agent.tool_called')
    expect(hook.data).toMatchObject({ agentId, tool: 'crm/lookup_order', source: 'mcp', ok: true })

    // Turn 2: not allowed: refused to the model, the server never sees it.
    await speak(term)
    expect((await agentEvent('tool_call', (e) => e.name === 'crm/delete_customer')).error).toBe('the tool crm/delete_customer is not allowed for this agent')
    expect(await agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'I cannot do that.')).toBeTruthy()

    // Turn 3: the server hangs: a timeout for the model, the agent keeps talking.
    await speak(term)
    await crm.calls.next((c) => c.name === 'slow_report', TURN_MS, 'the report call')
    expect((await agentEvent('tool_call', (e) => e.name === 'crm/slow_report')).error).toBe('the tool did not answer within 700 ms')
    expect(await agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'The report is not ready.')).toBeTruthy()

    // Turn 4: the server is down: an error result, the agent keeps talking and is heard.
    await crm.close()
    from = term.frames.items.length
    await speak(term)
    const down = await agentEvent('tool_call', (e) => e.name === 'crm/lookup_order' && e.error !== undefined)
    expect(down.error).toMatch(/^the MCP server crm failed: /)
    expect(((await chat(8)).body.messages as unknown[]).at(-1)).toMatchObject({ role: 'tool', content: expect.stringMatching(/^error: the MCP server crm failed/) })
    expect(await agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'The order system is down.')).toBeTruthy()
    expect(heard(from).length / 16_000).toBeGreaterThan(0.5)
    expect(crm.calls.items.map((c) => c.name)).toEqual(['lookup_order', 'slow_report'])
    // No event carried the server's header.
    expect(JSON.stringify(term.events.items)).not.toContain('mcp-secret')
    expect((await acme.api.get(`/agents/${agentId}`)).body.state).toBe('running')
  }, 120_000)

  it('refuses bad mcpServers and unknown tool sources with the field and the reason; a server URL is not a secret field', () => {
    const provider: AgentProvider = { configSchema: PipelineConfigSchema as AgentProvider['configSchema'], start: () => ({}) }
    const check = (config: unknown) => {
      try {
        validateAgentConfig('pipeline', provider, config, 'config')
        return null
      } catch (e) {
        return (e as ValidationFailed).message
      }
    }
    expect(check({ mcpServers: [{ name: 'crm', url: 'https://mcp.example.com/mcp', allowedTools: ['lookup_*'] }], tools: { mcp: ['crm/*'] } })).toBeNull()
    expect(check({ tools: { cloud: ['*'] } })).toMatch(/^config\.tools\.cloud/)
    expect(check({ mcpServers: [{ name: 'crm', url: 'ftp://mcp.example.com' }] })).toMatch(/^config\.mcpServers\.0\.url must be an https:\/\/ \(or http:\/\/\) URL/)
    expect(check({ mcpServers: [{ name: 'crm', url: 'https://user:pw@mcp.example.com' }] })).toMatch(/^config\.mcpServers\.0\.url must not carry a user name or password/)
    expect(check({ mcpServers: [{ name: 'crm', url: 'not a url' }] })).toMatch(/^config\.mcpServers\.0\.url not an absolute URL/)
    expect(check({ mcpServers: [{ name: 'a/b', url: 'https://x.example' }] })).toMatch(/^config\.mcpServers\.0\.name /)
    expect(check({ mcpServers: [{ name: 'crm', url: 'https://x.example' }, { name: 'crm', url: 'https://y.example' }] })).toMatch(/two servers are named crm/)
    // Headers never go in a config.
    expect(check({ mcpServers: [{ name: 'crm', url: 'https://x.example', headers: { authorization: 'x' } }] })).toMatch(/^config\.mcpServers\.0\.headers\.authorization is a server-side secret/)
    expect(check({ mcpServers: [{ name: 'crm', url: 'https://x.example', token: 'x' }] })).toMatch(/^config\.mcpServers\.0\.token is a server-side secret/)
    // `url` stays a secret field everywhere else.
    expect(check({ url: 'https://x.example' })).toMatch(/^config\.url is a server-side secret/)
  })
})
