/**
 * Done-when of the WebRTC transport: Debian's Chromium, headless through playwright-core (never a
 * downloaded browser), loads a page served by this test, connects to a real engine with a client
 * token, and audio flows both ways through a room: a WebSocket terminal in the same room receives
 * the browser's Opus (and hears its tone), and the browser's getStats() shows inbound audio with
 * energy from the WebSocket terminal. Then the back end revokes the token and the browser is told
 * and disconnected. While the browser talks, the room is recorded: its track holds its packets byte
 * for byte (a run of what the device received), every file valid for opusinfo. Every wait is on an
 * event or a stats condition, never a sleep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { joinPcm, PcmSink, tonePower, ToneTalker } from '../../core/test/audio.js'
import { CHROMIUM, chromiumArgs } from '../../core/test/chromium.js'
import { voiceFlag } from '../../core/dataplane/frame.js'
import { SILENCE_PACKET } from '../../core/recordings/oggOpus.js'
import { audioPackets, scanOgg } from '../../core/recordings/oggRead.js'
import { opusinfo } from '../../core/recordings/test/opusTools.js'
import type { ServerEvent } from '../../core/events.js'
import { startWebRtcEngine, type WebRtcEngine } from './test/engine.js'
import { BROWSER_PAGE } from './test/browserPage.js'
import { writeToneWav } from './test/wav.js'
import { WsTerminal } from './test/wsTerminal.js'

/** The browser's fake microphone plays this tone; the WebSocket terminal talks at the other. */
const BROWSER_HZ = 1000
const DEVICE_HZ = 440

interface InboundAudio {
  packetsReceived: number
  packetsLost: number
  totalAudioEnergy: number
  audioLevel: number
  totalSamplesReceived: number
  concealedSamples: number
  silentConcealedSamples: number
  concealmentEvents: number
}

interface PageState {
  events: ServerEvent[]
  state: string
  error: string | null
  location: string | null
  channelClosed: boolean
  inbound: InboundAudio | null
}

let t: WebRtcEngine
let scratch: string
let pageServer: Server
let context: BrowserContext
let page: Page

const pageState = () => page.evaluate(() => (globalThis as unknown as { hark: PageState }).hark)
/** Wait until the page's state satisfies `test` (a string of JS over `hark`, evaluated in the page). */
const waitInPage = (test: string, timeout = 20_000) =>
  page.waitForFunction(`(() => { const hark = window.hark; if (hark.error) throw new Error(hark.error); return ${test} })()`, null, {
    timeout,
    polling: 50,
  })

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash .ci/system-deps\` (installs Debian's chromium)`)
  t = await startWebRtcEngine()
  scratch = mkdtempSync(join(tmpdir(), 'hark-chromium-'))
  const wav = join(scratch, 'tone.wav')
  writeToneWav(wav, BROWSER_HZ)
  pageServer = createServer((req, res) => {
    if (req.url?.startsWith('/client.html')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      res.end(BROWSER_PAGE)
    } else {
      res.writeHead(404)
      res.end()
    }
  })
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve))
  context = await chromium.launchPersistentContext(join(scratch, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: chromiumArgs(wav),
  })
  page = context.pages()[0] ?? (await context.newPage())
}, 60_000)

afterAll(async () => {
  await context?.close()
  await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()))
  await t?.stop()
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

describe('Chromium (Debian, headless) in a room', () => {
  it('sends its Opus to a WebSocket terminal and plays the room: inbound audio with energy in getStats()', async () => {
    t.seed.addClient('browser', 'lobby')
    t.seed.addClient('device', 'lobby')
    const device = await WsTerminal.connect(t.port, await t.token('device'), t.ca)
    const deviceSession = await device.event('session')
    const browserToken = await t.issue('browser')

    const address = pageServer.address() as { port: number }
    const query = new URLSearchParams({ gateway: `https://127.0.0.1:${t.port}`, token: browserToken.token })
    await page.goto(`http://127.0.0.1:${address.port}/client.html?${query}`)
    await waitInPage(`hark.events.some((e) => e.type === 'session')`)
    const state = await pageState()
    const session = state.events[0]
    expect(session).toMatchObject({ type: 'session', clientId: 'browser', room: 'lobby', audioMode: 'mixed' })
    expect(session).toMatchObject({ participants: [{ id: 'device', sourceId: deviceSession.type === 'session' ? deviceSession.sourceId : -1 }] })
    expect(state.location).toMatch(/^\/v1\/webrtc\/peers\/wrp_/)
    const browserSourceId = session!.type === 'session' ? session!.sourceId : null
    const joined = await device.event('participant.joined', (e) => e.participant.id === 'browser')
    expect(joined.participant.sourceId).toBe(browserSourceId)
    expect(t.engine.host.presence.get(t.seed.workspaceId, 'browser')).toMatchObject({ transport: 'webrtc', room: 'lobby' })

    // Browser → room: the device receives the browser's Opus packets, tagged with its source id.
    await device.frames.next(() => device.frames.items.filter((f) => f.sourceId === browserSourceId).length >= 60, 20_000, '60 frames from the browser')
    const fromBrowser = device.frames.items.filter((f) => f.sourceId === browserSourceId)
    const sink = new PcmSink()
    for (const frame of fromBrowser) sink.decode(frame.opus)
    const heard = joinPcm(sink.frames.slice(20))
    expect(tonePower(heard, BROWSER_HZ)).toBeGreaterThan(tonePower(heard, 2500) * 100)
    // The level byte comes from the RTP audio-level extension: a steady tone is voiced and loud.
    expect(fromBrowser.slice(20).filter((f) => voiceFlag(f.levelByte)).length).toBeGreaterThan(30)

    // Recorded (spec/records.md): the browser's track holds its packets byte for byte — a run of
    // exactly what the device received from it — and every file validates with opusinfo.
    const recordings = t.engine.host.operations.recordings
    await recordings.startRecording(t.seed.workspaceId, 'lobby', 'both')
    const recordedFrom = device.frames.items.filter((f) => f.sourceId === browserSourceId).length
    await device.frames.next(() => device.frames.items.filter((f) => f.sourceId === browserSourceId).length >= recordedFrom + 50, 20_000, '50 more frames from the browser')
    const recording = await recordings.stopRecording(t.seed.workspaceId, 'lobby')
    const browserTrack = recording.trackList.find((f) => f.participantId === 'browser')!
    for (const f of recording.trackList) {
      const info = await opusinfo(join(recording.dir, f.file))
      expect(info.problems, `${f.name}: ${info.text}`).toEqual([])
      // Within 60 ms (transports/recordings.test.ts holds WebSocket and MQTT talkers to that) plus
      // two 20 ms frames: a browser's packets that a loaded machine delivers in a burst are all kept,
      // byte for byte, so its track may run up to that far ahead of the recording's clock (seen: 62 ms).
      expect(Math.abs(info.seconds * 1000 - recording.durationMs!), f.name).toBeLessThanOrEqual(100)
    }
    const recorded = audioPackets(scanOgg(readFileSync(join(recording.dir, browserTrack.file))))
      .filter((p) => !(p.length === SILENCE_PACKET.length && p.every((b, i) => b === SILENCE_PACKET[i])))
      .map((p) => Buffer.from(p).toString('hex'))
    expect(recorded.length).toBeGreaterThanOrEqual(40)
    // Every frame the recording holds reached the device too (the tap sits after the forward sinks).
    await device.frames.next(() => device.frames.items.filter((f) => f.sourceId === browserSourceId).length >= recordedFrom + recorded.length, 20_000, 'the recorded frames at the device')
    const atDevice = device.frames.items.filter((f) => f.sourceId === browserSourceId).map((f) => Buffer.from(f.opus).toString('hex'))
    const first = atDevice.indexOf(recorded[0]!, Math.max(0, recordedFrom - 5))
    expect(atDevice.slice(first, first + recorded.length)).toEqual(recorded)

    // Room → browser: the device talks; the browser's inbound audio stream has packets and energy.
    // On the audio clock, as a device's codec makes frames: a timer the loaded test process runs late
    // sends every frame that fell due meanwhile (a late frame plays; a missing one is concealed).
    const talk = (terminal: WsTerminal, hz: number) => {
      const tone = new ToneTalker(hz)
      const start = performance.now()
      let sent = 0
      const timer = setInterval(() => {
        for (const due = Math.floor((performance.now() - start) / 20) + 1; sent < due; sent++) terminal.sendAudio(tone.nextUplink())
      }, 20)
      return () => clearInterval(timer)
    }
    const stopDevice = talk(device, DEVICE_HZ)
    let stopSecond = () => {}
    try {
      await waitInPage(`hark.inbound !== null && hark.inbound.packetsReceived >= 100 && hark.inbound.totalAudioEnergy > 0.01 && hark.inbound.audioLevel > 0.01`)
      const steady = (await pageState()).inbound!
      expect(steady.packetsLost).toBe(0)

      // A second talker: the one stream becomes a server mix (source id 0), then, when the first
      // stops, the second talker's packets forwarded untouched — one SSRC, continuous numbering.
      t.seed.addClient('second', 'lobby')
      const second = await WsTerminal.connect(t.port, await t.token('second'), t.ca)
      await second.event('session')
      stopSecond = talk(second, 700)
      await waitInPage(`hark.inbound.packetsReceived >= ${steady.packetsReceived + 75}`)
      stopDevice()
      await waitInPage(`hark.inbound.packetsReceived >= ${steady.packetsReceived + 150}`)
      stopSecond()
      const inbound = (await pageState()).inbound!
      // Three sources took turns on one outbound stream; nothing was lost, and the browser played
      // it without filling gaps: concealment stays a sliver (a loaded machine delays the talkers' timers).
      expect(inbound.packetsLost).toBe(0)
      expect(inbound.totalAudioEnergy).toBeGreaterThan(steady.totalAudioEnergy)
      expect(inbound.concealedSamples / inbound.totalSamplesReceived).toBeLessThan(0.1)
      expect(await t.engine.host.metrics.getSingleMetricAsString('hark_audio_mixer_frames_total')).toMatch(/op="encode"\} [1-9]/)
      second.close()
    } finally {
      stopDevice()
      stopSecond()
    }

    // The back end revokes the browser's token: it hears why on its data channel, and is gone.
    t.engine.host.security.tokens.revoke(t.seed.workspaceId, browserToken.jti)
    await waitInPage(`hark.channelClosed && hark.events.some((e) => e.type === 'session.closing')`)
    expect((await pageState()).events.at(-1)).toMatchObject({ type: 'session.closing', code: 'token_revoked' })
    await device.event('participant.left', (e) => e.participant.id === 'browser')
    expect(t.transport().peerCount).toBe(0)

    // Connected again with a new token, the browser leaves by closing its peer connection: the
    // server hears its SCTP abort at once and the room sees it go.
    const again = new URLSearchParams({ gateway: `https://127.0.0.1:${t.port}`, token: await t.token('browser') })
    await page.goto(`http://127.0.0.1:${address.port}/client.html?${again}`)
    await waitInPage(`hark.events.some((e) => e.type === 'session')`)
    await device.event('participant.joined', (e) => e.participant.id === 'browser' && e.participant.sourceId !== browserSourceId)
    await page.evaluate(() => (globalThis as unknown as { pc: { close(): void } }).pc.close())
    await device.event('participant.left', (e) => e.participant.id === 'browser' && e.participant.sourceId !== browserSourceId)
    expect(t.transport().peerCount).toBe(0)
    device.close()
  }, 60_000)
})
