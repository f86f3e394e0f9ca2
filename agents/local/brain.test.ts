/**
 * The local provider's checks before any audio: a preset whose grammar does not compile is refused
 * when it is saved (saying where), a machine without the speech packages refuses to start a local
 * agent (saying which to install), and `ctx.tools`' device discovery over the MCP pass-through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Schema from 'effect/Schema'
import { AgentFailure, type AgentContext } from '../../core/agentProvider.js'
import { DeviceTools } from '../../core/agentRuntime/deviceTools.js'
import { startRestEngine, type RestEngine } from '../../plugins/rest/test/restEngine.js'
import { createLocalProvider, localAgent } from './index.js'
import { kitchenAssistant } from './kitchen.js'

let t: RestEngine
let acme: ReturnType<RestEngine['workspace']>
beforeAll(async () => {
  t = await startRestEngine({ extensions: [localAgent] })
  acme = t.workspace('acme')
}, 30_000)
afterAll(() => t?.stop())

const intent = (phrases: string[], extra: Record<string, unknown> = {}) => ({ intents: [{ name: 'light', phrases, reply: 'done', ...extra }] })

describe('local presets: the grammar is compiled when the preset is saved', () => {
  it('the kitchen assistant is accepted; a grammar that does not compile is refused with where it fails', async () => {
    expect((await acme.api.post('/agent-presets', { presetId: 'kitchen', provider: 'local', config: kitchenAssistant })).status).toBe(201)
    const refused = async (config: unknown) => {
      const res = await acme.api.post('/agent-presets', { presetId: `bad-${Math.random().toString(36).slice(2, 8)}`, provider: 'local', config })
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
      return res.body.error.message as string
    }
    expect(await refused(intent(['turn {state the light'], { slots: { state: ['on', 'off'] } }))).toContain(
      'intents[0] "light" phrases[0] "turn {state the light": "{" not closed (column 6)',
    )
    expect(await refused(intent(['turn on the florp light']))).toContain(`"florp" is not in pocketsphinx's dictionary`)
    expect(await refused(intent(['turn {state} the light']))).toContain('slot {state} is not declared in slots')
    expect(await refused(intent(['turn on (the | ) light']))).toContain('an empty alternative')
    expect(await refused(intent(['set a timer for 5 minutes']))).toContain('"5" is not a word')
    // A word the dictionary lacks is fine with its phones.
    const florp = { ...intent(['turn on the florp light']), words: { florp: 'F L AO R P' } }
    expect((await acme.api.post('/agent-presets', { presetId: 'florp', provider: 'local', config: florp })).status).toBe(201)
    // The provider's schema is published as JSON Schema.
    const providers = (await acme.api.get('/agent-providers')).body
    expect(JSON.stringify(providers)).toContain('"local"')
  })
})

describe('local provider on a machine without the speech packages', () => {
  it('refuses to start, naming the packages to install; hark start would say the same', async () => {
    const settings = {
      modelDir: '/nonexistent/model',
      libraryDirs: '/nonexistent/lib',
      chat: { baseUrl: null, model: 'local', apiKey: null, apiKeyEnv: 'X', timeoutMs: 1000 },
    }
    const provider = createLocalProvider(settings)
    expect(provider.hostCheck()).toEqual({
      ready: false,
      summary: expect.stringContaining('sudo apt-get install libpocketsphinx3 libsphinxbase3 pocketsphinx-en-us libflite1'),
    })
    const config = Schema.decodeUnknownSync(provider.configSchema)({})
    const ctx = { config, log: t.engine.host.log } as unknown as AgentContext<typeof config>
    const started = Promise.resolve().then(() => provider.start(ctx))
    await expect(started).rejects.toBeInstanceOf(AgentFailure)
    await expect(started).rejects.toThrow(/local speech engines missing: .*libpocketsphinx\.so\.3.*apt-get install libpocketsphinx3/)
  })
})

describe('ctx.tools: device tools over the MCP pass-through', () => {
  it('lists a ready device’s tools by client id, calls them, and drops them when the device leaves', async () => {
    const sent: Array<{ to: string; payload: Record<string, unknown> }> = []
    const tools = new DeviceTools((to, payload) => sent.push({ to, payload: payload as Record<string, unknown> }))
    const answer = (from: string, payload: Record<string, unknown>) =>
      tools.observe({ type: 'participant.event', room: 'r', participantId: from, event: { kind: 'mcp', payload } })
    const changes: string[][] = []
    tools.onChange(() => changes.push(tools.list().map((x) => x.name)))
    for (const device of ['a.1', 'b:2']) {
      tools.observe({ type: 'participant.event', room: 'r', participantId: device, event: { kind: 'mcp.ready' } })
      const init = sent.at(-1)!
      expect(init).toMatchObject({ to: device, payload: { jsonrpc: '2.0', method: 'initialize' } })
      // Another device answering with the same id is not taken for it.
      answer('intruder', { jsonrpc: '2.0', id: init.payload.id, result: {} })
      expect(sent.at(-1)).toBe(init)
      answer(device, { jsonrpc: '2.0', id: init.payload.id, result: {} })
      await Promise.resolve()
      const list = sent.at(-1)!
      expect(list.payload.method).toBe('tools/list')
      answer(device, { jsonrpc: '2.0', id: list.payload.id, result: { tools: [{ name: 'self.light.set_on', description: 'light', inputSchema: { type: 'object' } }] } })
      await Promise.resolve()
    }
    expect(tools.list().map((x) => x.name)).toEqual(['a.1/self.light.set_on', 'b:2/self.light.set_on'])
    const call = tools.call('b:2/self.light.set_on', { on: true })
    const request = sent.at(-1)!
    expect(request).toMatchObject({ to: 'b:2', payload: { method: 'tools/call', params: { name: 'self.light.set_on', arguments: { on: true } } } })
    answer('b:2', { jsonrpc: '2.0', id: request.payload.id, result: { content: [{ type: 'text', text: 'true' }] } })
    expect(await call).toEqual({ isError: false, text: 'true', content: [{ type: 'text', text: 'true' }] })
    expect(await tools.call('nope', {})).toMatchObject({ isError: true, error: 'unknown_tool' })
    expect(await tools.call('a.1/self.light.set_on', {}, { timeoutMs: 20 })).toMatchObject({ isError: true, error: 'timeout' })
    const pending = tools.call('a.1/self.light.set_on', {})
    tools.observe({ type: 'participant.left', room: 'r', participant: { id: 'a.1' } as never })
    expect(await pending).toMatchObject({ isError: true, error: 'gone' })
    expect(tools.list().map((x) => x.name)).toEqual(['b:2/self.light.set_on'])
    expect(changes.at(-1)).toEqual(['b:2/self.light.set_on'])
    tools.close()
  })
})
