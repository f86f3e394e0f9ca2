/**
 * The local agent end to end, with no fake in the speech path: a WebSocket terminal sends Opus of
 * real speech (flite's voices; pocketsphinx-testdata's recordings of people) into a room where a
 * `local` agent (in a provider worker) and a xiaozhi device emulator serving MCP tools are; the
 * agent recognises the command, calls the device's tool, and answers; the terminal decodes the
 * answer's Opus and pocketsphinx recognises what was said. Then barge-in and bad input.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import { seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { DownlinkDecoder } from '../../core/test/speech.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { xiaozhi } from '../../transports/xiaozhi/index.js'
import { XiaozhiDevice, type DeviceTool } from '../../transports/xiaozhi/test/device.js'
import { localAgent } from './index.js'
import { kitchenAssistant } from './kitchen.js'
import { FakeChat } from './test/fakeChat.js'
import { concat, noise, recording, replyRecognizer, send, silence, speak } from './test/speech.js'

/** A bound for failure, not a pause: a turn on a loaded 2-core machine. */
const TURN_MS = 20_000

const kitchenTools: Record<string, DeviceTool> = {
  'self.light.set_on': { description: 'Turn a light on or off', inputSchema: { type: 'object', properties: { room: { type: 'string' }, on: { type: 'boolean' } } }, call: (a) => String(a.on) },
  'self.timer.start': { description: 'Start a kitchen timer', inputSchema: { type: 'object', properties: { minutes: { type: 'integer' } } }, call: () => 'ok' },
  'self.thermometer.read': { description: 'The kitchen temperature', inputSchema: { type: 'object', properties: {} }, call: () => 'twenty one' },
  'self.robot.move': { description: 'Move the robot', inputSchema: { type: 'object', properties: {} }, call: () => 'ok' },
}

/** The kitchen assistant, and an intent for pocketsphinx-testdata's recording "go forward ten meters". */
const preset = {
  ...kitchenAssistant,
  intents: [
    ...kitchenAssistant.intents,
    {
      name: 'move',
      phrases: ['go {direction} {distance} [meter | meters]'],
      slots: { direction: ['forward', 'backward'], distance: { one: 1, two: 2, five: 5, ten: 10 } },
      tool: { name: 'self.robot.move', arguments: { direction: '{direction}', meters: '{distance}' } },
      reply: 'Going {direction} {distance} meters.',
    },
    {
      name: 'story',
      phrases: ['tell me about the kitchen'],
      reply: 'The kitchen has a light, a timer and a thermometer. The light can be turned on and off. The timer counts minutes. The thermometer reads the temperature.',
    },
  ],
}

const replies = [
  'the kitchen light is on',
  'the kitchen light is off',
  'the bedroom light is off',
  'timer set for five minutes',
  'it is twenty one degrees in the kitchen',
  'going forward ten meters',
  'sorry i did not catch that',
]

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let chat: FakeChat
let rooms = 0

beforeAll(async () => {
  chat = await FakeChat.start()
  t = await startTestEngine({
    agents: { defaultProvider: 'local', defaultAgentStopDelaySeconds: 0, startTimeoutMs: 15_000, local: { chat: { baseUrl: chat.baseUrl, model: 'llama' } } },
    extensions: [websocketTransport, ...xiaozhi, localAgent],
  })
  seed = seedWorkspace(t.engine)
}, 30_000)
afterAll(async () => {
  await t?.stop()
  await chat?.stop()
})

/** A room with a local agent, a xiaozhi device serving the kitchen tools, and a WebSocket terminal. */
const kitchen = async (overrides: Record<string, unknown> = {}) => {
  const room = `kitchen-${++rooms}`
  const agent = await t.engine.host.agents.dispatch(seed.workspaceId, room, { overrides: { ...preset, ...overrides } })
  expect(agent.state).toBe('running')
  seed.addClient(`web-${rooms}`, room)
  const token = (await t.engine.host.security.tokens.issue(seed.workspaceId, `web-${rooms}`, null)).token
  const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
  const session = (await term.event('session')) as Extract<ServerEvent, { type: 'session' }>
  const agentSource = session.participants.find((p) => p.kind === 'agent')!.sourceId
  seed.addClient(`speaker-${rooms}`, room)
  const password = t.engine.host.security.devicePasswords.reset(seed.workspaceId, `speaker-${rooms}`).password
  const device = await XiaozhiDevice.connect({
    url: `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`,
    ca: t.engine.host.tls.cert,
    token: password,
    device: { mac: `06:00:00:00:01:${rooms.toString(16).padStart(2, '0')}`, uuid: randomUUID() },
    hello: false,
  })
  device.serveTools(kitchenTools)
  await device.hello()
  const agentEvent = (kind: string, predicate: (e: Record<string, unknown>) => boolean = () => true, timeoutMs = TURN_MS) =>
    term.events
      .next((e) => e.type === 'agent.event' && e.agentId === agent.agentId && e.event.kind === kind && predicate(e.event), timeoutMs, `agent.event ${kind}`)
      .then((e) => (e as Extract<ServerEvent, { type: 'agent.event' }>).event as Record<string, unknown>)
  await agentEvent('tools', (e) => (e.tools as string[]).includes(`speaker-${rooms}/self.light.set_on`))
  const events = (kind: string) => term.events.items.filter((e) => e.type === 'agent.event' && e.event.kind === kind).map((e) => (e as { event: Record<string, unknown> }).event)
  return {
    room,
    agent,
    term,
    device,
    agentEvent,
    events,
    agentSource,
    say: (pcm: Int16Array) => send((f) => term.sendAudio(f), concat(silence(300), pcm, silence(700))),
    close: () => {
      term.close()
      device.close()
    },
  }
}

/** What the terminal heard from the agent so far, decoded. */
const heardFrom = (term: TestTerminal, sourceId: unknown, from = 0): Int16Array => {
  const decoder = new DownlinkDecoder()
  const pcm = term.frames.items.slice(from).map((f) => decoder.decode(f)).filter((f) => f.sourceId === sourceId).map((f) => f.pcm)
  return concat(...pcm)
}

describe('local agent: real speech in, a device tool called, real speech out', () => {
  it('flite speech: the command reaches the device tool and the spoken reply is recognised by pocketsphinx', async () => {
    const k = await kitchen()
    await k.say(await speak('turn on the kitchen light', 'slt'))
    expect(await k.device.toolCalls.next(() => true, TURN_MS, 'a tool call')).toEqual({ name: 'self.light.set_on', arguments: { room: 'kitchen', on: true } })
    expect(await k.agentEvent('intent')).toMatchObject({ intent: 'light', slots: { state: true, room: 'kitchen' } })
    expect(await k.agentEvent('transcript', (e) => e.role === 'agent')).toMatchObject({ text: 'The kitchen light is on.' })
    const ears = replyRecognizer(replies)
    expect(ears.hear(heardFrom(k.term, k.agentSource))).toContain('the kitchen light is on')

    // Another voice, another intent whose reply carries the tool's result.
    const heardBefore = k.term.frames.items.length
    await k.say(await speak('what is the temperature in the kitchen', 'kal16'))
    await k.device.toolCalls.next((c) => c.name === 'self.thermometer.read', TURN_MS, 'the thermometer')
    await k.agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'It is twenty one degrees in the kitchen.')
    expect(ears.hear(heardFrom(k.term, k.agentSource, heardBefore))).toContain('it is twenty one degrees in the kitchen')
    ears.close()
    k.close()
  }, 60_000)

  it('live control: a said text is spoken by flite and recognised by pocketsphinx; an interrupt cuts a long one short', async () => {
    const k = await kitchen()
    const from = k.term.frames.items.length
    await t.engine.host.agents.control(seed.workspaceId, k.agent.agentId, { op: 'say', text: 'The kitchen light is on.', interrupt: false })
    expect(await k.agentEvent('transcript', (e) => e.role === 'agent')).toMatchObject({ text: 'The kitchen light is on.', final: true })
    const ears = replyRecognizer(replies)
    expect(ears.hear(heardFrom(k.term, k.agentSource, from))).toContain('the kitchen light is on')
    ears.close()

    const story = preset.intents.find((i) => i.name === 'story')!.reply
    await t.engine.host.agents.control(seed.workspaceId, k.agent.agentId, { op: 'say', text: story, interrupt: true })
    const mark = k.term.frames.items.length
    await k.term.frames.next(() => k.term.frames.items.length - mark > 25, TURN_MS, 'half a second of the story')
    await t.engine.host.agents.control(seed.workspaceId, k.agent.agentId, { op: 'interrupt' })
    await k.agentEvent('interrupted')
    const cut = await k.agentEvent('transcript', (e) => e.truncated === true)
    expect(story.startsWith(String(cut.text))).toBe(true)
    expect(cut.text).not.toBe(story)
    k.close()
  }, 60_000)

  it("pocketsphinx-testdata's recording of a person: 'go forward ten meters' moves the robot", async () => {
    const k = await kitchen()
    await k.say(recording('goforward.raw'))
    expect(await k.device.toolCalls.next(() => true, TURN_MS, 'a tool call')).toEqual({ name: 'self.robot.move', arguments: { direction: 'forward', meters: 10 } })
    await k.agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'Going forward ten meters.')
    const ears = replyRecognizer(replies)
    expect(ears.hear(heardFrom(k.term, k.agentSource))).toContain('going forward ten meters')
    ears.close()
    k.close()
  }, 60_000)

  it('barge-in: speech during a reply stops it at once', async () => {
    const k = await kitchen()
    await k.say(await speak('tell me about the kitchen'))
    await k.agentEvent('state', (e) => e.state === 'speaking')
    await k.say(await speak('turn off the bedroom light', 'rms'))
    await k.agentEvent('interrupted')
    const cut = await k.agentEvent('transcript', (e) => e.role === 'agent' && e.truncated === true)
    expect(String(cut.text).length).toBeLessThan(preset.intents[4]!.reply.length)
    // The new command is carried out and answered.
    await k.device.toolCalls.next((c) => c.name === 'self.light.set_on' && c.arguments.on === false, TURN_MS, 'the bedroom light off')
    await k.agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'The bedroom light is off.')
    k.close()
  }, 60_000)

  it('chat (the only fake: an OpenAI-compatible server): what is no command goes to the model with the device tools, and its answer is spoken', async () => {
    // The chat model may call the thermometer and the lights; the grammar's intents name their own tools.
    const k = await kitchen({ brain: 'commands+chat', instructions: 'Be brief.', tools: { device: ['*/self.thermometer.*', '*/self.light.*'] } })
    chat.callTool = 'self_thermometer_read'
    chat.reply = 'It is {result} degrees.'
    await k.say(await speak('what will the weather be like tomorrow'))
    const first = await chat.requests.next(() => true, TURN_MS, 'a chat request')
    expect(first.model).toBe('llama')
    expect(first.messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
    // pocketsphinx's general model heard the words (not the command grammar's).
    expect(first.messages[1]!.role).toBe('user')
    expect(first.messages[1]!.content).toMatch(/weather/)
    const offered = first.tools!.map((x) => x.function.name)
    expect(offered).toContain(`speaker-${rooms}_self_thermometer_read`)
    // Only what the agent's tools permission allows is offered.
    expect(offered.some((name) => /timer|robot/.test(name))).toBe(false)
    expect(await k.device.toolCalls.next(() => true, TURN_MS, 'the thermometer')).toEqual({ name: 'self.thermometer.read', arguments: {} })
    const second = await chat.requests.next((r) => r.messages.some((m) => m.role === 'tool'), TURN_MS, 'the tool result')
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: 'twenty one' })
    await k.agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'It is twenty one degrees.')
    // Reported to the room as every provider's tool calls are (the webhook and metrics are built from it).
    expect(k.events('tool_call')[0]).toMatchObject({ name: `speaker-${rooms}/self.thermometer.read`, source: 'device', arguments: {}, result: 'twenty one' })
    expect(typeof k.events('tool_call')[0]!.latencyMs).toBe('number')
    const ears = replyRecognizer(['it is twenty one degrees'])
    expect(ears.hear(heardFrom(k.term, k.agentSource))).toContain('it is twenty one degrees')
    ears.close()
    // A command still goes straight to its intent.
    await k.say(await speak('turn off the kitchen light'))
    expect(await k.device.toolCalls.next((c) => c.name === 'self.light.set_on', TURN_MS, 'the light')).toMatchObject({ arguments: { on: false } })
    // A command whose tool the permission leaves out is refused, and the device is not called.
    await k.say(await speak('set a timer for five minutes'))
    const refused = await k.agentEvent('tool_call', (e) => typeof e.error === 'string')
    expect(refused).toMatchObject({ name: `speaker-${rooms}/self.timer.start`, source: 'device', error: `the tool speaker-${rooms}/self.timer.start is not allowed for this agent` })
    await k.agentEvent('transcript', (e) => e.role === 'agent' && String(e.text).startsWith('Sorry, that did not work'))
    expect(k.device.toolCalls.items.map((c) => c.name)).toEqual(['self.thermometer.read', 'self.light.set_on'])
    k.close()
  }, 60_000)

  it('bad input: silence, noise, clipped speech, an unknown phrase, a 30 s monologue', async () => {
    const k = await kitchen()
    // Silence and noise: no tool, no answer.
    await k.say(concat(silence(1500), noise(1500, 0.2)))
    // Clipped: the command driven 18 dB past full scale is still understood (kal16; the other voices
    // survive 12 dB: bench/README.md).
    const loud = (await speak('set a timer for five minutes', 'kal16')).map((s) => Math.max(-32768, Math.min(32767, s * 8)))
    await k.say(loud)
    expect(await k.device.toolCalls.next(() => true, TURN_MS, 'the timer')).toEqual({ name: 'self.timer.start', arguments: { minutes: 5 } })
    expect(k.device.toolCalls.items).toHaveLength(1)
    await k.agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'Timer set for five minutes.')

    // Words that are no command: the agent says it did not catch them, and calls nothing.
    await k.say(await speak('what will the weather be like tomorrow'))
    await k.agentEvent('unrecognized', (e) => e.reason === 'no intent')
    await k.agentEvent('transcript', (e) => e.role === 'agent' && e.text === 'Sorry, I did not catch that.')
    // The noise before got no answer: this is the only one.
    expect(k.events('unrecognized')).toEqual([{ kind: 'unrecognized', reason: 'no intent' }])

    // A 30 s monologue (people reading a novel): not answered piece by piece; once, at its end.
    const book = ['0870', '0880', '0890', '0920', '0930'].map((n) => recording(`librivox/sense_and_sensibility_01_austen_64kb-${n}.wav`))
    let monologue = concat(...book)
    while (monologue.length < 30 * 16_000) monologue = concat(monologue, ...book)
    await send((f) => k.term.sendAudio(f), concat(monologue.subarray(0, 30 * 16_000), silence(800)), 90)
    await k.agentEvent('unrecognized', (e) => e.reason === 'monologue')
    expect(k.events('unrecognized').filter((e) => e.reason === 'monologue')).toHaveLength(1)
    expect(k.device.toolCalls.items).toHaveLength(1)
    k.close()
  }, 90_000)
})
