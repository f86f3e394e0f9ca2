/**
 * Agents that act, in the console (Debian's Chromium, headless, against a real engine with the
 * pipeline provider on the local fakes of the OpenAI APIs): the preset form edits a pipeline
 * preset's tool permissions (a text area per source), bounds and `record` (a select, saved, shown
 * in the table and turned off again), and shows the API's validation error for a bad pattern; a
 * preset dispatched from the Agents page calls a xiaozhi device emulator's tool when a WebSocket
 * terminal speaks, and the agent's page shows the call live (name, arguments, result, latency); Say
 * (with "interrupt first") and Interrupt work by keyboard and the terminal hears the said text; new
 * instructions and tool permissions (PATCH) reach the next turn's chat request; an echo agent's
 * page says plainly that its provider cannot say text nor change its instructions (409
 * not_supported). A viewer's live stream gets tool calls without their detail. axe finds no serious
 * or critical WCAG 2.1 A/AA violation. Waits are on events.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import type { EngineConfig } from '../../core/index.js'
import { createClient } from '../../core/operations/clients.js'
import { issueClientToken } from '../../core/operations/tokens.js'
import { CHROMIUM } from '../../core/test/chromium.js'
import { UplinkEncoder } from '../../core/test/speech.js'
import { FakeOpenAiHttp } from '../../agents/pipeline/test/fakeOpenAiHttp.js'
import { pipelineAgent } from '../../agents/pipeline/index.js'
import { speakInRealTime } from '../../agents/test/audioChecks.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { xiaozhi } from '../../transports/xiaozhi/index.js'
import { XiaozhiDevice } from '../../transports/xiaozhi/test/device.js'
import { bundleDir } from './server.js'
import { checkA11y, newContext, step, tabTo } from './test/browser.js'
import type { EventStream } from './test/consoleClient.js'
import { PASSWORD, startConsoleEngine, type ConsoleEngine } from './test/consoleEngine.js'

const KEYS = { stt: 'sk-stt-key-000000000001', llm: 'sk-llm-key-000000000002', tts: 'sk-tts-key-000000000003' }
/** A bound for failure spanning a spoken turn on a loaded machine, not a pause. */
const TURN_MS = 20_000

let t: ConsoleEngine
let fake: FakeOpenAiHttp
let browser: Browser
let page: Page
let ws: string
let viewerStream: EventStream | null = null
const closers: Array<() => void> = []

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash .ci/system-deps\` (installs Debian's chromium)`)
  if (bundleDir() === null) throw new Error('the console bundle is not built: run npm run build')
  fake = await FakeOpenAiHttp.start(KEYS)
  const api = (apiKey: string) => ({ baseUrl: fake.baseUrl, apiKey, apiKeyEnv: 'HARK_TEST_NONE' })
  t = await startConsoleEngine({
    extensions: [websocketTransport, ...xiaozhi, pipelineAgent],
    xiaozhi: { autoAgent: false },
    agents: { defaultProvider: 'echo', startTimeoutMs: 15_000, pipeline: { stt: api(KEYS.stt), llm: api(KEYS.llm), tts: api(KEYS.tts), requestTimeoutMs: 5000 } },
  } as EngineConfig)
  const admin = await t.createUser('ada@example.com')
  const viewer = await t.createUser('val@example.com')
  ws = t.workspace(admin.userId, 'Acme', [[viewer.userId, 'viewer']])
  for (const [clientId, room] of [['web-1', 'kitchen'], ['speaker-1', 'kitchen'], ['web-2', 'hall']] as const) createClient(t.engine.host, ws, { clientId, room })
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--ignore-certificate-errors'] })
  page = await (await newContext(browser)).newPage()
  await page.goto(`${t.base}/sign-in`)
  await page.getByLabel('Email').fill('ada@example.com')
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Clients' }).waitFor()
}, 60_000)

afterAll(async () => {
  for (const close of closers.reverse()) close()
  viewerStream?.close()
  await browser?.close()
  await t?.stop()
  await fake?.stop()
})

const encoder = new UplinkEncoder()
const speak = (term: TestTerminal, ms?: number) => speakInRealTime((f) => term.sendAudio(f), encoder, ms)

const terminal = async (clientId: string) => {
  const { token } = await issueClientToken(t.engine.host, ws, clientId, 3600)
  const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
  closers.push(() => term.close())
  await term.event('session')
  return term
}

const agentEvent = (term: TestTerminal, agentId: string, kind: string, predicate: (e: Record<string, unknown>) => boolean = () => true) =>
  term.events
    .next((e) => e.type === 'agent.event' && e.agentId === agentId && e.event.kind === kind && predicate(e.event), TURN_MS, `agent.event ${kind}`)
    .then((e) => (e as Extract<ServerEvent, { type: 'agent.event' }>).event as Record<string, unknown>)

/** A viewer's live stream (server-sent events), once it is ready. */
const openViewerStream = async () => {
  const viewer = t.client()
  await viewer.signIn('val@example.com', PASSWORD)
  const stream = await viewer.events(ws)
  await stream.next('ready')
  return stream
}

const auditActions = (target: string) => t.engine.host.storage.auditEvents.ofWorkspace(ws, { limit: 50 }).filter((e) => e.target === target).map((e) => e.action)

describe('agents that act, in the console', () => {
  it('the preset form edits tool permissions and bounds with labelled controls, and shows the API’s refusal of a bad pattern', async () => {
    await page.goto(`${t.base}/w/${ws}/agents/presets`)
    await page.getByLabel('Provider').selectOption('pipeline')
    const tools = page.getByLabel('Allowed device tools (one per line)')
    await step(page, 'the tool fields', async () => {
      await page.getByLabel('Preset ID').fill('house')
      await page.getByLabel('Instructions', { exact: true }).fill('You run the house.')
      await tabTo(page, tools, 60)
      await page.keyboard.type('*/self.light.*\nspeaker 1/self.oven.*')
      await page.getByLabel('Max tool rounds').fill('2')
      await page.getByLabel('Tool timeout (ms)').fill('3000')
      await page.getByLabel('Max tool result chars').fill('500')
      await page.getByLabel('VAD silence (ms)').fill('500')
      await page.getByLabel('Record this agent’s conversations').selectOption({ label: 'Per participant' })
    })
    await checkA11y(page, 'preset form with tool permissions')
    await page.getByRole('button', { name: 'Save preset' }).click()
    const refusal = await step(page, 'the refusal', async () => {
      await expect.poll(() => page.getByRole('alert').count()).toBe(1)
      return page.getByRole('alert').textContent()
    })
    // Which text area and line, then the API's words and its name for the field.
    expect(refusal).toBe('Allowed device tools, line 2 (“speaker 1/self.oven.*”): expected a string matching the RegExp ^[A-Za-z0-9_.:@*/-]{1,200}$ (config.tools.device.1)')
    expect(t.engine.host.storage.agentPresets.get(ws, 'house')).toBeNull()
    await tools.fill('*/self.light.*')
    await page.getByRole('button', { name: 'Save preset' }).click()
    await page.getByRole('cell', { name: 'house', exact: true }).waitFor()
    expect(t.engine.host.storage.agentPresets.get(ws, 'house')?.config).toEqual({
      instructions: 'You run the house.', vadSilenceMs: 500, tools: { device: ['*/self.light.*'] }, maxToolRounds: 2, toolTimeoutMs: 3000, maxToolResultChars: 500,
    })
    expect(t.engine.host.storage.agentPresets.get(ws, 'house')?.record).toEqual({ tracks: 'per-participant' })
    const row = page.getByRole('row', { name: /^house/ })
    expect(await row.getByRole('cell', { name: 'Per participant' }).count()).toBe(1)
    // Edited again, the form shows what was saved; recording turned off is saved as null.
    await page.getByRole('button', { name: 'Edit preset house' }).click()
    expect(await tools.inputValue()).toBe('*/self.light.*')
    expect(await page.getByLabel('Max tool rounds').inputValue()).toBe('2')
    const record = page.getByLabel('Record this agent’s conversations')
    expect(await record.inputValue()).toBe('per-participant')
    await record.selectOption({ label: 'None' })
    await page.getByRole('button', { name: 'Save preset' }).click()
    await row.getByRole('cell', { name: 'None', exact: true }).waitFor()
    expect(t.engine.host.storage.agentPresets.get(ws, 'house')?.record ?? null).toBeNull()
    expect(t.engine.host.storage.agentPresets.get(ws, 'house')?.config).toMatchObject({ instructions: 'You run the house.', tools: { device: ['*/self.light.*'] } })
    // A bad `record` through the console's route: 400 naming the field, the preset unchanged.
    const admin = t.client()
    await admin.signIn('ada@example.com', PASSWORD)
    for (const record of [{ tracks: 'stereo' }, { tracks: 'mixed', extra: 1 }, 'both']) {
      const refused = await admin.patch(`/api/workspaces/${ws}/agent-presets/house`, { record })
      expect(refused.status, JSON.stringify(record)).toBe(400)
      expect(JSON.stringify(refused.body)).toContain('record')
    }
    expect(t.engine.host.storage.agentPresets.get(ws, 'house')?.record ?? null).toBeNull()
  })

  it('a dispatched preset calls a device tool when a terminal speaks; the agent’s page shows the call live; Say and Interrupt work by keyboard', async () => {
    fake.script.transcripts = ['turn on the kitchen light']
    fake.script.replies = [{ toolCalls: [{ name: 'self.light.set_on', arguments: { room: 'kitchen', on: true } }] }, 'The kitchen light is on.']
    viewerStream = await openViewerStream()
    await page.goto(`${t.base}/w/${ws}/agents`)
    await page.getByLabel('Room', { exact: true }).fill('kitchen')
    await page.getByLabel('Preset', { exact: true }).selectOption('house')
    await page.getByRole('button', { name: 'Dispatch agent' }).click()
    const link = page.getByRole('link', { name: 'agent@house in kitchen: its conversation' })
    await link.waitFor()
    const agentId = t.engine.host.agents.list(ws, { live: true })[0]!.agentId
    const term = await terminal('web-1')
    const device = await XiaozhiDevice.connect({
      url: `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`,
      ca: t.engine.host.tls.cert,
      token: t.engine.host.security.devicePasswords.reset(ws, 'speaker-1').password,
      device: { mac: '06:00:00:00:03:01', uuid: randomUUID() },
      hello: false,
    })
    closers.push(() => device.close())
    device.serveTools({
      'self.light.set_on': {
        description: 'Turn a light on or off',
        inputSchema: { type: 'object', properties: { room: { type: 'string' }, on: { type: 'boolean' } }, required: ['on'] },
        call: (a) => `the ${String(a.room)} light is ${a.on ? 'on' : 'off'}`,
      },
    })
    await device.hello()
    await agentEvent(term, agentId, 'tools', (e) => (e.tools as string[]).includes('speaker-1_self_light_set_on'))
    await link.click()
    await page.getByRole('heading', { name: 'Tool calls' }).waitFor()
    await page.getByText('None since this page opened.').waitFor()

    await speak(term)
    expect(await device.toolCalls.next(() => true, TURN_MS, 'the light call')).toEqual({ name: 'self.light.set_on', arguments: { room: 'kitchen', on: true } })
    const call = page.locator('[data-tool-call="speaker-1/self.light.set_on"]')
    await step(page, 'the live tool call', () => call.waitFor())
    const shown = await call.textContent()
    expect(shown).toContain('the kitchen light is on')
    expect(shown).toContain('"on": true')
    expect(shown).toMatch(/\d+ ms/)
    expect(shown).toContain('ok')
    // The conversation keeps it, with its arguments and result.
    const turn = page.locator('li.turn', { hasText: /Called a tool: speaker-1\/self\.light\.set_on \(\d+ ms\)/ })
    await step(page, 'the tool call turn', () => turn.waitFor())
    expect(await turn.locator('dd').allTextContents()).toEqual(['{"room":"kitchen","on":true}', 'the kitchen light is on'])
    await checkA11y(page, 'agent page with a tool call')
    // The viewer's stream had the call, without what was called or its result.
    const seen = (await viewerStream.next('tool_call', (d) => (d as { agentId?: string }).agentId === agentId)).data
    expect(seen).toMatchObject({ type: 'tool_call', agentId, source: 'device', ok: true, latencyMs: expect.any(Number) })
    expect(seen).not.toHaveProperty('detail')
    await agentEvent(term, agentId, 'transcript', (e) => e.role === 'agent' && e.text === 'The kitchen light is on.')

    // Say, by keyboard, cutting whatever it says.
    const text = page.getByLabel('Text to say')
    await tabTo(page, text, 60)
    await page.keyboard.type('Dinner is ready.')
    await tabTo(page, page.getByLabel('Interrupt what it is saying first'))
    await page.keyboard.press('Space')
    await tabTo(page, page.getByRole('button', { name: 'Say', exact: true }))
    await page.keyboard.press('Enter')
    await page.getByText('Said at once, cutting what it was saying.').waitFor()
    expect(await agentEvent(term, agentId, 'transcript', (e) => e.role === 'agent' && e.final === true && e.text === 'Dinner is ready.')).toBeTruthy()
    await page.getByRole('button', { name: 'Interrupt', exact: true }).click()
    await page.getByText('Interrupted: what it was saying is cut.').waitFor()
    expect(auditActions(agentId)).toEqual(expect.arrayContaining(['agent.said', 'agent.interrupted']))

    // New instructions and no tool, by keyboard: told at once, and the next turn's chat request carries them.
    await tabTo(page, page.getByLabel('New instructions'), 60)
    await page.keyboard.type('Answer in five words.')
    await tabTo(page, page.getByLabel('Replace its tool permissions'))
    await page.keyboard.press('Space')
    expect(await page.getByLabel('Allowed device tools (one per line)').inputValue()).toBe('')
    await checkA11y(page, 'agent page, changing instructions and tools')
    await tabTo(page, page.getByRole('button', { name: 'Apply changes' }))
    await page.keyboard.press('Enter')
    await page.getByText('Changed (instructions and tool permissions): its next turn uses them.').waitFor()
    await agentEvent(term, agentId, 'tools', (e) => (e.tools as string[]).length === 0)
    await speak(term)
    const chat = await fake.requests.next((r) => r.stage === 'llm' && (r.body.messages as Array<{ content?: unknown }>)[0]?.content === 'Answer in five words.', TURN_MS, 'a chat request with the new instructions')
    expect(chat.body.tools).toBeUndefined()
    expect(t.engine.host.storage.agentPresets.get(ws, 'house')?.config).toMatchObject({ instructions: 'You run the house.' })
    expect(auditActions(agentId)).toContain('agent.updated')
  }, 90_000)

  it('an echo agent cannot say text: its page says so in words, and the Agents list interrupts it', async () => {
    const echo = await t.engine.host.agents.dispatch(ws, 'hall', {})
    await page.goto(`${t.base}/w/${ws}/agents/${echo.agentId}`)
    await page.getByLabel('Text to say').fill('Hello hall.')
    await page.getByRole('button', { name: 'Say', exact: true }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('This agent’s provider cannot do that: the echo provider cannot say text on request (say is not supported)')
    await checkA11y(page, 'agent page with a refusal')
    // Nor change its instructions (update is not supported), in words too; an empty form is refused before any request.
    await page.getByRole('button', { name: 'Apply changes' }).click()
    await page.getByText('Nothing to change: write new instructions, or replace the tool permissions.').waitFor()
    await page.getByLabel('New instructions').fill('Be quiet.')
    await page.getByRole('button', { name: 'Apply changes' }).click()
    await page.getByText(/^This agent’s provider cannot do that: the echo provider cannot .*\(update is not supported\)$/).waitFor()
    // The echo can be interrupted (it drops what it has still to play): from the list.
    await page.goto(`${t.base}/w/${ws}/agents`)
    await page.getByRole('button', { name: 'Interrupt agent@default in hall' }).click()
    await page.getByText('agent@default in hall: interrupted.').waitFor()
    expect(auditActions(echo.agentId).filter((a) => a.startsWith('agent.'))).toEqual(['agent.interrupted'])
    expect(await page.getByRole('alert').count()).toBe(0)
  })
})
