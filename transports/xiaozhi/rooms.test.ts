/**
 * A xiaozhi device as a member of Hark's rooms: it shares a room with a WebSocket terminal (they
 * hear each other), follows revocation, deletion, replacement and room moves like every terminal,
 * talks MCP with an agent of its room (JSON-RPC both ways), shows the agent's transcripts, gets an
 * auto agent only when its room has none, and connects over the plain LAN listener too.
 */
import { randomUUID } from 'node:crypto'
import * as Schema from 'effect/Schema'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { AgentContext } from '../../core/agentProvider.js'
import type { ServerEvent } from '../../core/events.js'
import { defineAgentProvider } from '../../core/extension.js'
import { Inbox, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { rms, tone, UplinkEncoder } from '../../core/test/speech.js'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { websocketTransport } from '../websocket/index.js'
import { TestTerminal } from '../websocket/test/terminalClient.js'
import { xiaozhi } from './index.js'
import { pollOta, XiaozhiDevice, type DeviceIdentity } from './test/device.js'

/** A quiet agent that records what it hears and lets the test speak for it. */
const probeEvents = new Inbox<{ agentId: string; event: ServerEvent }>()
const probes = new Map<string, AgentContext>()
const probeAgent = defineAgentProvider('probe', { isolate: false, create: () => ({
  configSchema: Schema.Struct({}),
  start: (ctx) => {
    probes.set(ctx.room, ctx)
    return { onEvent: (event) => probeEvents.push({ agentId: ctx.agentId, event }) }
  },
}) })

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let url: string
let ca: string
let n = 0

beforeAll(async () => {
  t = await startTestEngine({
    agents: { defaultProvider: 'probe', defaultAgentStopDelaySeconds: 0 },
    extensions: [websocketTransport, ...xiaozhi, probeAgent],
    xiaozhi: { plainPort: 0 },
  })
  seed = seedWorkspace(t.engine)
  url = `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`
  ca = t.engine.host.tls.cert
})
afterAll(() => t?.stop())

const identity = (): DeviceIdentity => ({ mac: `06:00:00:00:00:${(++n).toString(16).padStart(2, '0')}`, uuid: randomUUID() })

const device = async (clientId: string, room: string | null) => {
  seed.addClient(clientId, room)
  const token = t.engine.host.security.devicePasswords.reset(seed.workspaceId, clientId).password
  return XiaozhiDevice.connect({ url, ca, token, device: identity() })
}

const terminal = async (clientId: string, room: string) => {
  seed.addClient(clientId, room)
  const token = (await t.engine.host.security.tokens.issue(seed.workspaceId, clientId, null)).token
  const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, ca)
  await term.event('session')
  return term
}

/** The probe agent of a room once it is running there. */
const probeIn = async (room: string) => {
  await probeEvents.next(() => probes.has(room), 5000, `the probe agent in ${room}`)
  return probes.get(room)!
}

const moveClient = (clientId: string, room: string | null) => seed.moveClient(clientId, room)

describe('xiaozhi devices in rooms', () => {
  it('a device and a WebSocket terminal in one room hear each other', async () => {
    const xz = await device('speaker-a', 'shared')
    const web = await terminal('web-a', 'shared')
    const encoder = new UplinkEncoder()
    for (const frame of encoder.frames(tone(400, 440))) web.sendAudio(frame)
    const heard = await xz.reply(0)
    expect(XiaozhiDevice.durations(heard.slice(0, -1)).every((ms) => ms === 60)).toBe(true)
    expect(rms(xz.decode(heard))).toBeGreaterThan(0.05)

    xz.listenStart('manual')
    for (const packet of xz.encode(tone(600, 330))) xz.sendOpus(packet)
    xz.listenStop()
    const source = web.events.items.flatMap((e) => (e.type === 'participant.joined' && e.participant.id === 'speaker-a' ? [e.participant.sourceId] : []))[0]
      ?? (await web.event('session')).participants.find((p) => p.id === 'speaker-a')!.sourceId
    await web.frames.next(() => web.frames.items.filter((f) => parseDownlink(f)!.sourceId === source).length >= 10, 5000, "the device's frames")
    const fromDevice = web.frames.items.filter((f) => parseDownlink(f)!.sourceId === source)
    // Forwarded untouched: the device's own 60 ms packets, with the voice bit of a listening device.
    expect(fromDevice.map((f) => parseDownlink(f)!.levelByte & 0x80)).toEqual(fromDevice.map(() => 0x80))
    xz.close()
    web.close()
  })

  it('closes on device password reset (4006), deletion (4004), a newer session (4005) and token revocation (4003); follows a room move', async () => {
    const reset = await device('dev-reset', 'ops')
    t.engine.host.security.devicePasswords.reset(seed.workspaceId, 'dev-reset')
    expect(await reset.closed).toEqual({ code: 4006, reason: 'device_password_reset' })

    const deleted = await device('dev-delete', 'ops')
    seed.deleteClient('dev-delete')
    expect(await deleted.closed).toEqual({ code: 4004, reason: 'client_deleted' })

    const first = await device('dev-twice', 'ops')
    const password = t.engine.host.security.devicePasswords.show(seed.workspaceId, 'dev-twice').password
    const second = await XiaozhiDevice.connect({ url, ca, token: password, device: identity() })
    expect(await first.closed).toEqual({ code: 4005, reason: 'session_replaced' })

    // A client token issued by REST works as the device's credential; revoking it closes the device (4003).
    seed.addClient('dev-token', 'ops')
    const issued = await t.engine.host.security.tokens.issue(seed.workspaceId, 'dev-token', null)
    const byToken = await XiaozhiDevice.connect({ url, ca, token: issued.token, device: identity() })
    t.engine.host.security.tokens.revoke(seed.workspaceId, issued.jti)
    expect(await byToken.closed).toEqual({ code: 4003, reason: 'token_revoked' })

    const web = await terminal('web-move', 'elsewhere')
    moveClient('dev-twice', 'elsewhere')
    await web.event('participant.joined', (e) => e.participant.id === 'dev-twice')
    // Moved with its session: it hears the room it is in now.
    const encoder = new UplinkEncoder()
    for (const frame of encoder.frames(tone(300, 550))) web.sendAudio(frame)
    expect(rms(second.decode(await second.reply(0)))).toBeGreaterThan(0.05)
    second.close()
    web.close()
  })

  it('carries MCP between an agent of the room and the device, and shows the agent transcripts and emotions', async () => {
    const xz = await device('speaker-mcp', 'mcp-room')
    const probe = await probeIn('mcp-room')
    const fromDevice = (kind: string) =>
      probeEvents.next(
        (e) => e.agentId === probe.agentId && e.event.type === 'participant.event' && e.event.participantId === 'speaker-mcp' && e.event.event.kind === kind,
        5000,
        `${kind} from the device`,
      )
    await fromDevice('mcp.ready')
    probe.emit({ kind: 'mcp', to: 'someone-else', payload: { jsonrpc: '2.0', id: 0, method: 'tools/list' } })
    probe.emit({ kind: 'mcp', to: 'speaker-mcp', payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: '' } } })
    const request = await xz.message('mcp')
    expect(request).toEqual({ session_id: xz.sessionId, type: 'mcp', payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: '' } } })
    const tools = { tools: [{ name: 'self.audio_speaker.set_volume', description: 'Set the volume', inputSchema: { type: 'object' } }] }
    xz.mcp({ jsonrpc: '2.0', id: 1, result: tools })
    const answer = await fromDevice('mcp')
    expect(answer.event).toMatchObject({ type: 'participant.event', room: 'mcp-room', event: { kind: 'mcp', payload: { jsonrpc: '2.0', id: 1, result: tools } } })

    probe.emit({ kind: 'transcript', role: 'user', text: 'turn the volume down', final: true })
    probe.emit({ kind: 'emotion', emotion: 'thinking' })
    probe.emit({ kind: 'transcript', role: 'agent', text: 'Done, the volume is at 30.', final: true })
    expect(await xz.message('stt')).toEqual({ session_id: xz.sessionId, type: 'stt', text: 'turn the volume down' })
    expect(await xz.message('llm')).toEqual({ session_id: xz.sessionId, type: 'llm', emotion: 'thinking', text: '' })
    expect(await xz.message('tts', (m) => m.state === 'sentence_start')).toEqual({
      session_id: xz.sessionId, type: 'tts', state: 'sentence_start', text: 'Done, the volume is at 30.',
    })

    xz.listenStart('manual')
    xz.listenStop()
    await fromDevice('turn.end')
    xz.abort()
    expect((await fromDevice('turn.abort')).event).toMatchObject({ event: { kind: 'turn.abort', reason: null } })
    xz.close()
  })

  it("tells the agents already in the device's room, and in each room it is moved to, that they can call its tools (mcp.ready)", async () => {
    const mcpReady = (agentId: string) =>
      probeEvents.next(
        (e) => e.agentId === agentId && e.event.type === 'participant.event' && e.event.participantId === 'speaker-tools' && e.event.event.kind === 'mcp.ready',
        5000,
        'mcp.ready from the device',
      )
    const first = await t.engine.host.agents.dispatch(seed.workspaceId, 'tools-a', {})
    const second = await t.engine.host.agents.dispatch(seed.workspaceId, 'tools-b', {})
    const xz = await device('speaker-tools', 'tools-a')
    await mcpReady(first.agentId)
    moveClient('speaker-tools', 'tools-b')
    await mcpReady(second.agentId)
    xz.close()
  })

  it('gives a room without an agent the platform default, keeps a room default agent or a dispatched one single, and stops it once the room is empty', async () => {
    // No agent: the platform default comes with the device and goes after it.
    const alone = await device('speaker-alone', 'solo')
    const probe = await probeIn('solo')
    const [agent] = t.engine.host.agents.live(seed.workspaceId, 'solo')
    expect(agent!.agentId).toBe(probe.agentId)
    alone.close()
    await agent!.ended
    expect(t.engine.host.agents.get(seed.workspaceId, probe.agentId)).toMatchObject({ state: 'stopped', reason: 'room empty' })

    // It stays while any terminal is in the room, and goes when the room is empty.
    const device2 = await device('speaker-duo', 'duo')
    const duoProbe = await probeIn('duo')
    const web2 = await terminal('web-duo', 'duo')
    device2.close()
    await web2.event('participant.left', (e) => e.participant.id === 'speaker-duo')
    expect(t.engine.host.agents.get(seed.workspaceId, duoProbe.agentId)).toMatchObject({ state: 'running' })
    const [duoAgent] = t.engine.host.agents.live(seed.workspaceId, 'duo')
    web2.close()
    await duoAgent!.ended
    expect(t.engine.host.agents.get(seed.workspaceId, duoProbe.agentId)).toMatchObject({ state: 'stopped', reason: 'room empty' })

    // An agent already there (another identity than the platform default's): no second one.
    const now = t.engine.host.clock.now()
    t.engine.host.storage.agentPresets.insert({
      workspaceId: seed.workspaceId, presetId: 'helper', name: 'Helper', provider: 'probe', config: {}, createdAt: now, updatedAt: now,
    })
    await t.engine.host.agents.dispatch(seed.workspaceId, 'busy', { presetId: 'helper' })
    const busy = await device('speaker-busy', 'busy')
    const other = await device('speaker-busy-2', 'busy')
    const web = await terminal('web-busy', 'busy')
    expect(t.engine.host.agents.live(seed.workspaceId, 'busy').map((a) => a.spec.identity)).toEqual(['agent@helper'])

    // A room default agent: that one comes, not the platform default beside it.
    seed.setDefaultAgent('defaulted', { presetId: 'helper', overrides: null, stopDelaySeconds: 0 })
    const third = await device('speaker-defaulted', 'defaulted')
    await probeIn('defaulted')
    expect(t.engine.host.agents.live(seed.workspaceId, 'defaulted').map((a) => a.spec.identity)).toEqual(['agent@helper'])
    for (const d of [busy, other, third]) d.close()
    web.close()
  })

  it('serves devices on the plain LAN listener, with the ws:// URL in the OTA answer, and nothing else there', async () => {
    const plainPort = t.engine.ports['xiaozhi-plain']!
    const me = identity()
    const otaUrl = `http://127.0.0.1:${t.engine.ports.rest}/xiaozhi/ota/`
    const code = ((await pollOta(otaUrl, me)).body.activation as { code: string }).code
    t.engine.host.security.deviceEnrollment.claim({ code, workspaceId: seed.workspaceId, clientId: 'lan-speaker', room: 'lan' })
    const { url: lanUrl, token } = (await pollOta(otaUrl, me)).body.websocket as { url: string; token: string }
    expect(lanUrl).toBe(`ws://127.0.0.1:${plainPort}/xiaozhi/v1/`)
    const xz = await XiaozhiDevice.connect({ url: lanUrl, token, device: me, version: 3 })
    await probeIn('lan')
    const web = await terminal('web-lan', 'lan')
    const encoder = new UplinkEncoder()
    for (const frame of encoder.frames(tone(300, 620))) web.sendAudio(frame)
    expect(rms(xz.decode(await xz.reply(0)))).toBeGreaterThan(0.05)
    xz.close()
    web.close()
    expect(await XiaozhiDevice.refused({ url: lanUrl, token: 'nope', device: me })).toMatchObject({ status: 401 })
    // Terminal protocol v1 stays on TLS: the plain listener does not serve /v1/connect.
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${plainPort}/v1/connect?token=x`)
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
      ws.once('error', () => resolve(-1))
    })
    expect(refused).toBe(404)
  })
})
