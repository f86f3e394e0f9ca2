/**
 * The openai-realtime agent (in a provider worker) with the two tool sources a config names: an
 * MCP server built with the official SDK (streamable HTTP, its header from agents.mcpServers) and
 * a back-end function answered by a real HTTPS receiver that verifies the Standard Webhooks
 * signature. Both go into the session's `tools`; the model calls both in one response; each
 * `function_call_output` carries what the source answered, and the room hears the reply.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import type { EngineConfig } from '../../core/index.js'
import { startFunctionReceiver } from '../../core/test/functionReceiver.js'
import { TestMcpServer } from '../../core/test/mcpServer.js'
import { concat, silence, tone, UplinkEncoder } from '../../core/test/speech.js'
import { startWebhookEngine } from '../../plugins/webhooks/test/webhookEngine.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { openaiRealtimeAgent } from './index.js'
import { FakeRealtimeServer, type FakeReply } from './test/fakeRealtimeServer.js'

const KEY = 'sk-fake-realtime-key-0123456789'
const WAIT_MS = 15_000

let running: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

describe('openai-realtime agent with an MCP server and a back-end function', () => {
  it('offers both in the session, carries out both calls of one response and answers each with what its source said', async () => {
    const crm = await TestMcpServer.start({
      lookup_order: {
        description: 'Where is an order?',
        inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
        call: (a) => `order ${String(a.orderId)} ships tomorrow`,
      },
    })
    running.push(() => crm.close())
    const receiver = await startFunctionReceiver((call, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(`table for ${String((call.body.arguments as { party: number }).party)} booked`))
    })
    running.push(() => receiver.close())
    const replies: FakeReply[] = [
      { audioMs: 0, transcript: '', toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A-17' } }, { name: 'book_table', arguments: { party: 2 } }] },
      { audioMs: 600, transcript: 'Your order ships tomorrow and your table is booked' },
    ]
    const fake = await FakeRealtimeServer.start(KEY, (turn) => replies[turn - 1] ?? { audioMs: 200, transcript: `reply ${turn}` })
    running.push(() => fake.stop())
    const t = await startWebhookEngine({
      config: {
        extensions: [websocketTransport, openaiRealtimeAgent],
        agents: {
          defaultProvider: 'openai-realtime',
          startTimeoutMs: 10_000,
          mcpServers: JSON.stringify({ crm: { headers: { 'X-Api-Key': 'crm-key-0123456789abcdef' }, allowPrivateNetworks: true } }),
          functionsCaFile: receiver.caFile,
          openaiRealtime: { baseUrl: fake.baseUrl, apiKey: KEY, apiKeyEnv: 'HARK_TEST_NONE' },
        },
      } as EngineConfig,
    })
    running.push(() => t.stop())
    const acme = t.workspace('acme')
    const hook = await acme.api.post('/webhooks', { url: receiver.url, events: ['agent.tool_called'] })
    expect(hook.status).toBe(201)
    receiver.secrets.push(hook.body.secret as string)
    expect((await acme.api.post('/clients', { clientId: 'web-1', room: 'desk' })).status).toBe(201)
    const { token } = (await acme.api.post('/clients/web-1/token', {})).body
    const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
    running.push(() => term.close())
    await term.event('session')
    const created = await acme.api.post('/agents', {
      room: 'desk',
      overrides: {
        mcpServers: [{ name: 'crm', url: crm.url }],
        functions: [{ name: 'book_table', description: 'Book a table', parameters: { type: 'object', properties: { party: { type: 'integer' } }, required: ['party'] } }],
        functionsWebhookId: hook.body.webhookId,
        tools: { mcp: ['crm/*'], function: ['book_table'] },
      },
    })
    expect(created.status).toBe(201)

    // The session's tools: the function at once, the server's tool once it is listed.
    const updated = await fake.received.next(
      (e) => e.type === 'session.update' && JSON.stringify((e.session as { tools?: unknown }).tools ?? []).includes('crm_lookup_order'),
      WAIT_MS,
      'session.update with both tools',
    )
    expect(((updated.session as { tools: Array<{ name: string }> }).tools).map((f) => f.name).sort()).toEqual(['book_table', 'crm_lookup_order'])

    for (const frame of new UplinkEncoder().frames(concat(tone(600, 220), silence(900)))) term.sendAudio(frame)
    expect(await fake.functionOutputs.next((o) => o.name === 'crm_lookup_order', WAIT_MS, 'the order output')).toMatchObject({ output: 'order A-17 ships tomorrow' })
    expect(await fake.functionOutputs.next((o) => o.name === 'book_table', WAIT_MS, 'the booking output')).toMatchObject({ output: 'table for 2 booked' })
    expect((await crm.requests.next(() => true, WAIT_MS, 'an MCP request'))['x-api-key']).toBe('crm-key-0123456789abcdef')
    const booked = await receiver.calls.next(() => true, WAIT_MS, 'the booking call')
    expect(booked.verified).toBe(true)
    expect(booked.body).toMatchObject({ agentId: created.body.agentId, room: 'desk', name: 'book_table', arguments: { party: 2 } })
    const transcript = await term.events.next(
      (e) => e.type === 'agent.event' && e.event.kind === 'transcript' && e.event.role === 'agent',
      WAIT_MS,
      'the agent transcript',
    )
    expect((transcript as Extract<ServerEvent, { type: 'agent.event' }>).event.text).toBe('Your order ships tomorrow and your table is booked')
    const calls = term.events.items.flatMap((e) => (e.type === 'agent.event' && e.event.kind === 'tool_call' ? [e.event] : []))
    expect(calls.map((c) => [c.name, c.source, c.result]).sort()).toEqual([
      ['book_table', 'function', 'table for 2 booked'],
      ['crm/lookup_order', 'mcp', 'order A-17 ships tomorrow'],
    ])
    expect(fake.errorCodes()).toEqual([])
  }, 60_000)
})
