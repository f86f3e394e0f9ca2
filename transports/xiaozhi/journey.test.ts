/**
 * A xiaozhi-esp32 device from first boot to a conversation, against a real engine: OTA poll →
 * activation code → `hark xiaozhi activate` (the CLI, a real process on the engine's data dir) →
 * OTA poll with credentials → WebSocket with the firmware's headers → hello → listen → 60 ms Opus
 * frames of speech → listen stop → the auto agent (echo) replies as tts start, Opus packets of the
 * announced duration, tts stop — over binary protocols 1, 2 and 3; an abort cuts a reply.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { echoAgent } from '../../agents/echo/index.js'
import { dominantHz } from '../../agents/test/audioChecks.js'
import { cliJson, RecordingLink, runCli, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { concat, rms, silence, tone } from '../../core/test/speech.js'
import { websocketTransport } from '../websocket/index.js'
import { xiaozhi } from './index.js'
import { pollActivation, pollOta, XiaozhiDevice, type DeviceIdentity, type ProtocolVersion } from './test/device.js'

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let otaUrl: string
let ca: string

beforeAll(async () => {
  t = await startTestEngine({ extensions: [websocketTransport, ...xiaozhi, echoAgent] })
  seed = seedWorkspace(t.engine)
  otaUrl = `http://127.0.0.1:${t.engine.ports.rest}/xiaozhi/ota/`
  ca = t.engine.host.tls.cert
})
afterAll(() => t?.stop())

const newDevice = (n: number): DeviceIdentity => ({ mac: `AA:BB:CC:00:00:${n.toString(16).padStart(2, '0')}`, uuid: randomUUID() })

/** OTA → code → claimed (by the console's call) → OTA again: the device's WebSocket URL and token. */
const activate = async (device: DeviceIdentity, clientId: string, room: string) => {
  const first = await pollOta(otaUrl, device)
  const code = (first.body.activation as { code: string }).code
  t.engine.host.security.deviceEnrollment.claim({ code, workspaceId: seed.workspaceId, clientId, room })
  return (await pollOta(otaUrl, device)).body.websocket as { url: string; token: string }
}

/** Wait until an agent is in `room` (a terminal of the room sees it join). */
const agentIn = async (room: string, clientId: string) => {
  seed.addClient(clientId, room)
  const observer = new RecordingLink()
  const identity = await t.engine.host.security.authenticateTerminal({
    token: (await t.engine.host.security.tokens.issue(seed.workspaceId, clientId, null)).token,
  })
  const session = t.engine.host.terminals.open(identity, observer)
  const joined = t.engine.host.terminals.roomView(seed.workspaceId, room)?.participants.find((p) => p.kind === 'agent')
  if (!joined) await observer.event('participant.joined', (e) => e.participant.kind === 'agent')
  return session
}

/** One turn: listen start, `speech` in 60 ms frames in real time, listen stop; the reply's packets. */
const turn = async (device: XiaozhiDevice, speech: Int16Array, n: number) => {
  device.listenStart('manual')
  await device.speak(speech)
  device.listenStop()
  return device.reply(n)
}

describe('xiaozhi device journey', () => {
  it('boots, shows a code, is activated with hark xiaozhi activate, gets its credentials and talks to the echo agent', async () => {
    const device = newDevice(1)
    const first = await pollOta(otaUrl, device)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({
      server_time: { timestamp: expect.any(Number), timezone_offset: 0 },
      firmware: { version: '2.4.2', url: '' },
      activation: { code: expect.stringMatching(/^[0-9]{6}$/), message: expect.any(String), challenge: expect.any(String) },
    })
    expect(first.body.websocket).toBeUndefined()
    const code = (first.body.activation as { code: string }).code
    // The device keeps showing the same code, and its activation poll waits.
    expect(((await pollOta(otaUrl, device)).body.activation as { code: string }).code).toBe(code)
    expect((await pollActivation(otaUrl, device)).status).toBe(202)

    const claimed = await cliJson<{ deviceId: string; clientId: string; room: string; clientCreated: boolean }>([
      'xiaozhi', 'activate', code, '--workspace', seed.workspaceId, '--client', 'kitchen-speaker', '--room', 'kitchen', '--data', t.dir,
    ])
    expect(claimed).toMatchObject({ deviceId: 'aa:bb:cc:00:00:01', clientId: 'kitchen-speaker', room: 'kitchen', clientCreated: true })
    // The code is spent: a second activation with it fails with one line and exit 1.
    const again = await runCli(['xiaozhi', 'activate', code, '--workspace', seed.workspaceId, '--client', 'other', '--data', t.dir])
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(`hark: no device is waiting for activation with code ${code}: the code is unknown, expired (a code lasts 10 minutes after the device last asked) or already used (not_found)\n`)
    const devices = await cliJson<Array<{ deviceId: string; clientId: string; kind: string; info: Record<string, unknown> }>>([
      'xiaozhi', 'devices', '--workspace', seed.workspaceId, '--data', t.dir,
    ])
    expect(devices.find((d) => d.deviceId === 'aa:bb:cc:00:00:01')).toMatchObject({
      clientId: 'kitchen-speaker', kind: 'xiaozhi', info: { firmware: '2.4.2', board: 'bread-compact-wifi', chip: 'esp32s3' },
    })
    expect((await pollActivation(otaUrl, device)).status).toBe(200)
    const second = await pollOta(otaUrl, device)
    expect(second.body.activation).toBeUndefined()
    const websocket = second.body.websocket as { url: string; token: string }
    expect(websocket.url).toBe(`wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`)
    expect(websocket.token).toMatch(/^hkd_/)

    const xz = await XiaozhiDevice.connect({ url: websocket.url, token: websocket.token, device, ca, hello: false })
    const hello = await xz.hello()
    expect(hello).toEqual({
      type: 'hello',
      transport: 'websocket',
      session_id: expect.stringMatching(/^ses_/),
      audio_params: { format: 'opus', sample_rate: 16000, channels: 1, frame_duration: 60 },
    })
    // No agent in the room: the platform default (echo) comes for the device.
    await agentIn('kitchen', 'observer-kitchen')
    const packets = await turn(xz, concat(tone(600, 300), silence(120)), 0)
    expect(packets.length).toBeGreaterThanOrEqual(8)
    // Every packet but the last plays exactly the announced 60 ms (firmware before v2.0.0 needs it).
    expect(XiaozhiDevice.durations(packets.slice(0, -1)).every((ms) => ms === 60)).toBe(true)
    const pcm = xz.decode(packets)
    expect(pcm.length).toBeGreaterThanOrEqual(16 * 500)
    expect(rms(pcm)).toBeGreaterThan(0.05)
    expect(xz.order.slice(xz.indexOf('tts:start'), xz.indexOf('tts:stop') + 1).filter((o) => o !== 'audio')).toEqual(['tts:start', 'tts:stop'])
    xz.close()
    expect((await xz.closed).code).toBe(1000)
  })

  it.each([1, 2, 3] as ProtocolVersion[])('carries a speak/reply turn over binary protocol %i', async (version) => {
    const device = newDevice(0x10 + version)
    const room = `proto-${version}`
    // Only listen stop ends an utterance here: with the echo's default 500 ms of silence, a loaded
    // machine's stall could split one into two echoes, whose second would then lead the next reply.
    seed.setDefaultAgent(room, { presetId: null, overrides: { silenceMs: 2000 }, stopDelaySeconds: 0 })
    const { url, token } = await activate(device, `speaker-${version}`, room)
    const xz = await XiaozhiDevice.connect({ url, token, device, ca, version })
    await agentIn(room, `observer-${version}`)
    const first = await turn(xz, tone(480, 500), 0)
    const second = await turn(xz, tone(360, 700), 1)
    for (const packets of [first, second]) {
      expect(XiaozhiDevice.durations(packets.slice(0, -1)).every((ms) => ms === 60)).toBe(true)
      expect(rms(xz.decode(packets))).toBeGreaterThan(0.05)
    }
    // Each reply is its own turn's echo: told apart by pitch, not length (a stall on a loaded machine
    // pads an echo with the silence the room filled in, and once made the 360 ms one as long as the 480 ms one).
    expect(Math.abs(dominantHz(xz.decode(first), 16_000) - 500)).toBeLessThanOrEqual(5)
    expect(Math.abs(dominantHz(xz.decode(second), 16_000) - 700)).toBeLessThanOrEqual(5)
    xz.close()
  })

  it('listen stop ends the turn: the echo answers without waiting for its silenceMs', async () => {
    const device = newDevice(0x30)
    seed.setDefaultAgent('patient', { presetId: null, overrides: { silenceMs: 2000 }, stopDelaySeconds: 0 })
    const { url, token } = await activate(device, 'patient-speaker', 'patient')
    const xz = await XiaozhiDevice.connect({ url, token, device, ca })
    await agentIn('patient', 'observer-patient')
    xz.listenStart('manual')
    await xz.speak(tone(420, 500))
    xz.listenStop()
    // The device keeps sending silence: the echo would answer after 2 s of it (33 packets) without turn.end.
    const quiet = xz.encode(silence(60))[0]!
    let sent = 0
    const replied = xz.message('tts', (m) => m.state === 'start')
    let answered = false
    void replied.then(() => (answered = true))
    while (!answered && sent < 50) {
      xz.sendOpus(quiet)
      sent++
      await Promise.race([replied, new Promise((r) => setTimeout(r, 60))])
    }
    expect(answered).toBe(true)
    expect(sent).toBeLessThan(20)
    xz.close()
  })

  it('abort cuts a reply: tts stop at once, nothing more of it, and the next turn is answered', async () => {
    const device = newDevice(0x20)
    const { url, token } = await activate(device, 'abort-speaker', 'abort-room')
    const xz = await XiaozhiDevice.connect({ url, token, device, ca })
    await agentIn('abort-room', 'observer-abort')
    xz.listenStart('manual')
    await xz.speak(tone(2400, 400))
    xz.listenStop()
    await xz.message('tts', (m) => m.state === 'start')
    await xz.audio.next(() => true, 5000, 'the first packet of the reply')
    xz.abort('wake_word_detected')
    await xz.message('tts', (m) => m.state === 'stop')
    const stoppedAt = xz.order.lastIndexOf('tts:stop')
    const heard = xz.order.slice(xz.indexOf('tts:start'), stoppedAt).filter((o) => o === 'audio').length
    // 2.4 s of speech would be 40 packets; the device heard a few before the abort.
    expect(heard).toBeLessThan(20)

    const next = await turn(xz, tone(420, 600), 1)
    // The echo dropped the rest of the cut reply (turn.abort): the next reply is this turn's 420 ms only.
    expect(xz.decode(next).length).toBeGreaterThan(16 * 300)
    expect(xz.decode(next).length).toBeLessThan(16 * 1000)
    // Between the abort's tts stop and the next reply's tts start: no audio of the cut reply.
    expect(xz.order.slice(stoppedAt, xz.indexOf('tts:start', 1)).filter((o) => o === 'audio')).toEqual([])
    xz.close()
  })
})
