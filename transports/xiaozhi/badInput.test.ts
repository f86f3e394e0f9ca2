/**
 * Bad input from xiaozhi devices (spec/xiaozhi.md, Bad input): refused before the upgrade with
 * 401/400 and the envelope, or closed after it with the close code of core/errors.ts, or answered
 * with an `error` message while the session goes on — and a good device and a WebSocket terminal
 * in the same room keep talking throughout.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONTROL_MESSAGE_BURST, CONTROL_MESSAGES_PER_SECOND, ManualClock } from '../../core/index.js'
import { seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { rms, tone, UplinkEncoder } from '../../core/test/speech.js'
import { websocketTransport } from '../websocket/index.js'
import { TestTerminal } from '../websocket/test/terminalClient.js'
import { defineXiaozhi } from './index.js'
import { XiaozhiDevice, type ConnectOptions, type DeviceIdentity } from './test/device.js'

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let url: string
let ca: string
let n = 0
/** The engine's clock: the hello timeout and the message rate run on it, and move only when the test says. */
const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000)
/** Far beyond this file's real run time: only the driven clock can reach it. */
const HELLO_TIMEOUT_MS = 10 * 60_000

beforeAll(async () => {
  t = await startTestEngine(
    { extensions: [websocketTransport, ...defineXiaozhi({ helloTimeoutMs: HELLO_TIMEOUT_MS })], xiaozhi: { autoAgent: false } },
    { clock },
  )
  seed = seedWorkspace(t.engine)
  url = `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`
  ca = t.engine.host.tls.cert
})
afterAll(() => t?.stop())

const identity = (): DeviceIdentity => ({ mac: `02:00:00:00:00:${(++n).toString(16).padStart(2, '0')}`, uuid: randomUUID() })

/** A client of room `lab` with a device password: the credential the OTA answer hands out. */
const credentials = (clientId: string, room = 'lab') => {
  seed.addClient(clientId, room)
  return t.engine.host.security.devicePasswords.reset(seed.workspaceId, clientId).password
}

const options = (clientId: string, over: Partial<ConnectOptions> = {}): ConnectOptions => ({
  url, ca, token: credentials(clientId), device: identity(), ...over,
})

describe('xiaozhi bad input', () => {
  let good: XiaozhiDevice
  let web: TestTerminal

  beforeAll(async () => {
    good = await XiaozhiDevice.connect(options('good-device'))
    seed.addClient('web-1', 'lab')
    const token = (await t.engine.host.security.tokens.issue(seed.workspaceId, 'web-1', null)).token
    web = await TestTerminal.connect(t.engine.ports.gateway!, { token }, ca)
    await web.event('session')
  })

  it('refuses a missing or bad credential with 401 before the upgrade', async () => {
    const device = identity()
    expect(await XiaozhiDevice.refused({ url, ca, token: '', device, headers: { Authorization: '' } })).toMatchObject({
      status: 401, body: { error: { code: 'credential_missing' } },
    })
    expect(await XiaozhiDevice.refused({ url, ca, token: 'not-a-token', device })).toMatchObject({ status: 401, body: { error: { code: 'invalid_token' } } })
    expect(await XiaozhiDevice.refused({ url, ca, token: 'x', device, headers: { Authorization: 'Basic eDp5' } })).toMatchObject({
      status: 401, body: { error: { code: 'invalid_token' } },
    })
    expect(await XiaozhiDevice.refused({ url, ca, token: 'hkd_000000000000000000000000', device })).toMatchObject({
      status: 401, body: { error: { code: 'invalid_device_password' } },
    })
    // A token of a client deleted since is a bad credential here, not a missing resource.
    seed.addClient('gone-soon', 'lab')
    const token = (await t.engine.host.security.tokens.issue(seed.workspaceId, 'gone-soon', null)).token
    t.engine.host.storage.clients.delete(seed.workspaceId, 'gone-soon')
    expect(await XiaozhiDevice.refused({ url, ca, token, device })).toMatchObject({ status: 401, body: { error: { code: 'client_not_found' } } })
  })

  it('refuses a Protocol-Version other than 1, 2 or 3 with 400 before the upgrade', async () => {
    for (const version of ['4', '0', 'v1']) {
      expect(await XiaozhiDevice.refused(options(`pv-${version}`, { headers: { 'Protocol-Version': version } }))).toMatchObject({
        status: 400, body: { error: { code: 'unsupported_protocol_version' } },
      })
    }
  })

  it('closes a connection that sent no hello within the hello timeout of the engine clock, not a moment before', async () => {
    const late = await XiaozhiDevice.connect(options('h-late', { hello: false }))
    const silent = await XiaozhiDevice.connect(options('h-none', { hello: false }))
    clock.advance(HELLO_TIMEOUT_MS - 1)
    // Still open: a hello now is answered, and the exchange ends the wait.
    expect(await late.hello()).toMatchObject({ type: 'hello', transport: 'websocket' })
    clock.advance(1)
    expect(await silent.closed).toEqual({ code: 1002, reason: 'protocol_error' })
    clock.advance(HELLO_TIMEOUT_MS)
    late.sendJson({ type: 'dance' })
    expect(await late.message('error')).toMatchObject({ code: 'validation_failed' })
    late.close()
  })

  it('closes a connection without a proper hello: another message first, malformed ones, audio first', async () => {
    const closedWith = async (clientId: string, send: (d: XiaozhiDevice) => void) => {
      const d = await XiaozhiDevice.connect(options(clientId, { hello: false }))
      send(d)
      return d.closed
    }
    expect(await closedWith('h-listen', (d) => d.listenStart())).toEqual({ code: 1002, reason: 'protocol_error' })
    expect(await closedWith('h-text', (d) => d.ws.send('hello there'))).toEqual({ code: 1002, reason: 'protocol_error' })
    expect(await closedWith('h-array', (d) => d.ws.send('[1,2]'))).toEqual({ code: 1002, reason: 'protocol_error' })
    const hello = { type: 'hello', version: 1, transport: 'websocket', audio_params: { format: 'opus', sample_rate: 16000, channels: 1, frame_duration: 60 } }
    expect(await closedWith('h-udp', (d) => d.sendJson({ ...hello, transport: 'udp' }))).toEqual({ code: 1002, reason: 'protocol_error' })
    expect(await closedWith('h-8k', (d) => d.sendJson({ ...hello, audio_params: { ...hello.audio_params, sample_rate: 8000 } }))).toEqual({
      code: 1002, reason: 'protocol_error',
    })
    expect(await closedWith('h-pcm', (d) => d.sendJson({ ...hello, audio_params: { ...hello.audio_params, format: 'pcm' } }))).toEqual({
      code: 1002, reason: 'protocol_error',
    })
    expect(await closedWith('h-version', (d) => d.sendJson({ ...hello, version: 3 }))).toEqual({ code: 1002, reason: 'protocol_error' })
    expect(await closedWith('h-audio', (d) => d.sendOpus(d.encode(tone(60))[0]!))).toEqual({ code: 1002, reason: 'protocol_error' })
  })

  it('closes on oversized and malformed binary frames, with the close code of the error table', async () => {
    const v1 = await XiaozhiDevice.connect(options('big-1'))
    v1.sendOpus(new Uint8Array(1501))
    expect(await v1.closed).toEqual({ code: 1009, reason: 'frame_too_large' })
    const huge = await XiaozhiDevice.connect(options('big-2'))
    // Beyond one WebSocket message's 16 KiB the server drops the connection itself (1006 at the client).
    huge.ws.send(new Uint8Array(20_000))
    expect((await huge.closed).code).toBe(1006)
    const v2 = await XiaozhiDevice.connect(options('v2-size', { version: 2 }))
    const bad2 = new Uint8Array(16 + 10)
    new DataView(bad2.buffer).setUint16(0, 2)
    new DataView(bad2.buffer).setUint32(12, 99)
    v2.ws.send(bad2)
    expect(await v2.closed).toEqual({ code: 1002, reason: 'protocol_error' })
    const v3 = await XiaozhiDevice.connect(options('v3-type', { version: 3 }))
    v3.ws.send(Uint8Array.from([5, 0, 0, 2, 1, 2]))
    expect(await v3.closed).toEqual({ code: 1002, reason: 'protocol_error' })
    const short = await XiaozhiDevice.connect(options('v3-short', { version: 3 }))
    short.ws.send(Uint8Array.from([0, 0]))
    expect(await short.closed).toEqual({ code: 1002, reason: 'protocol_error' })
    const text = await XiaozhiDevice.connect(options('big-text'))
    text.sendJson({ type: 'listen', state: 'start', padding: 'x'.repeat(9000) })
    expect(await text.closed).toEqual({ code: 1009, reason: 'frame_too_large' })
  })

  it('answers an unknown message type or a bad field with an error message and keeps the session', async () => {
    const d = await XiaozhiDevice.connect(options('chatty'))
    d.sendJson({ session_id: d.sessionId, type: 'dance' })
    expect(await d.message('error')).toEqual({
      session_id: d.sessionId, type: 'error', code: 'validation_failed', message: 'unknown message type "dance"',
    })
    d.sendJson({ type: 'listen', state: 'sideways' })
    expect(await d.message('error', (m) => String(m.message).startsWith('listen'))).toMatchObject({ code: 'validation_failed' })
    d.sendJson({ type: 'mcp', payload: [1] })
    expect(await d.message('error', (m) => String(m.message).startsWith('mcp'))).toMatchObject({ code: 'validation_failed' })
    d.sendJson({ type: 'hello', transport: 'websocket', audio_params: { format: 'opus', sample_rate: 16000, channels: 1 } })
    expect(await d.message('error', (m) => m.code === 'protocol_error')).toMatchObject({ message: 'hello was already exchanged' })
    // Still open: a goodbye ends it normally.
    d.sendJson({ type: 'goodbye' })
    expect(await d.closed).toEqual({ code: 1000, reason: 'goodbye' })
  })

  it('closes a device that floods messages (rate_limited): the control-message rate every transport has, on the engine clock', async () => {
    const d = await XiaozhiDevice.connect(options('flood'))
    // The hello took one of the burst; the clock stands still, so nothing refills it.
    for (let i = 0; i < CONTROL_MESSAGE_BURST - 1; i++) d.sendJson({ type: 'dance' })
    await d.messages.next((m) => m.type === 'error' && d.messages.items.filter((e) => e.type === 'error').length === CONTROL_MESSAGE_BURST - 1, 5000, 'an answer to each')
    // One second of the engine clock gives CONTROL_MESSAGES_PER_SECOND more, and no more.
    clock.advance(1000)
    for (let i = 0; i < CONTROL_MESSAGES_PER_SECOND; i++) d.sendJson({ type: 'dance' })
    d.sendJson({ type: 'dance' })
    expect(await d.closed).toEqual({ code: 4029, reason: 'rate_limited' })
    expect(d.messages.items.filter((e) => e.type === 'error')).toHaveLength(CONTROL_MESSAGE_BURST - 1 + CONTROL_MESSAGES_PER_SECOND)
  })

  it('left the good device and the WebSocket terminal of the room talking to each other', async () => {
    expect(t.engine.host.terminals.roomView(seed.workspaceId, 'lab')!.participants.map((p) => p.id).sort()).toEqual(['good-device', 'web-1'])
    // The terminal speaks: the device hears it as a reply (tts start, audio, tts stop).
    const encoder = new UplinkEncoder()
    for (const frame of encoder.frames(tone(400, 500))) web.sendAudio(frame)
    const heard = await good.reply(0)
    expect(rms(good.decode(heard))).toBeGreaterThan(0.05)
    // The device speaks: the terminal gets its frames, tagged with the device's source id.
    good.listenStart('manual')
    for (const packet of good.encode(tone(360, 300))) good.sendOpus(packet)
    good.listenStop()
    const source = (await web.event('session')).participants.find((p) => p.id === 'good-device')!.sourceId
    await web.frames.next((f) => ((f[2]! << 8) | f[3]!) === source, 5000, 'a frame of the device')
    good.close()
    web.close()
  })
})
