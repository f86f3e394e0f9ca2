/**
 * Room recordings with real terminals: an MQTT device and a WebSocket page talk in one room while
 * the REST API records it. Every file validates with opusinfo; each per-participant track lasts
 * as long as the recording (±60 ms) and holds its talker's packets byte for byte; the terminals
 * are told; a Range download resumes; list filters and paging; downloads and deletions audited;
 * a recording below the disk floor fails cleanly and the room keeps talking. Lives beside both
 * transports because it needs both; neither imports the other.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../core/dataplane/frame.js'
import { SILENCE_PACKET } from '../core/recordings/oggOpus.js'
import { audioPackets, scanOgg } from '../core/recordings/oggRead.js'
import { opusinfo } from '../core/recordings/test/opusTools.js'
import { ToneTalker } from '../core/test/audio.js'
import { seedWorkspace, startTestEngine, tempDir } from '../core/test/helpers.js'
import type { RecordingView } from '../core/recordings/view.js'
import type { RecordingRecord } from '../core/storage/recordings.js'
import { restPlugin } from '../plugins/rest/index.js'
import { webhooksPlugin } from '../plugins/webhooks/index.js'
import { WebhookReceiver } from '../plugins/webhooks/test/receiver.js'
import { mqttTransport } from './mqtt/index.js'
import { connectDevice } from './mqtt/test/helpers.js'
import { websocketTransport } from './websocket/index.js'
import { TestTerminal } from './websocket/test/terminalClient.js'

const isSilence = (p: Uint8Array) => p.length === SILENCE_PACKET.length && p.every((b, i) => b === SILENCE_PACKET[i])

/** Send `count` frames 20 ms apart, as a terminal streams its microphone (real-time pacing, not a wait). */
const stream = (count: number, send: (i: number) => void): Promise<void> =>
  new Promise((resolve) => {
    let i = 0
    const timer = setInterval(() => {
      send(i++)
      if (i === count) {
        clearInterval(timer)
        resolve()
      }
    }, 20)
  })

/** An engine with both transports, REST and webhooks, its workspace seeded (what mqtt/test/helpers' startMqttEngine gives, with webhooks allowed to 127.0.0.1). */
const startEngine = async () => {
  const e = await startTestEngine({
    mqtt: { port: 0, tlsPort: null },
    // The receiver is plain http on 127.0.0.1: allowed only with webhooks.allowPrivateNetworks.
    webhooks: { allowPrivateNetworks: true },
    extensions: [mqttTransport, websocketTransport, restPlugin, webhooksPlugin],
  })
  const seed = seedWorkspace(e.engine)
  const token = async (clientId: string) => (await e.engine.host.security.tokens.issue(seed.workspaceId, clientId, null)).token
  const devicePassword = (clientId: string) => e.engine.host.security.devicePasswords.reset(seed.workspaceId, clientId).password
  return { ...e, seed, port: e.engine.ports.mqtt!, token, devicePassword }
}

let t: Awaited<ReturnType<typeof startEngine>>
let receiver: WebhookReceiver
const files = tempDir('hark-rec-dl-')
beforeAll(async () => {
  t = await startEngine()
  t.seed.addClient('device', 'kitchen')
  t.seed.addClient('page', 'kitchen')
  receiver = await WebhookReceiver.start()
  receiver.verify = 'signature'
  const endpoint = await api('/webhooks', { method: 'POST', body: JSON.stringify({ url: receiver.url, events: ['recording.started', 'recording.finished', 'recording.failed'] }) })
  expect(endpoint.status).toBe(201)
  receiver.secrets.push(((await endpoint.json()) as { secret: string }).secret)
}, 60_000)
afterAll(async () => {
  await t?.stop()
  await receiver?.close()
  files.remove()
})

const api = (path: string, init: RequestInit = {}) =>
  fetch(t.url(`/api/v1${path}`), { ...init, headers: { authorization: `Bearer ${t.seed.apiKey}`, 'content-type': 'application/json', ...init.headers } })

describe('recording a room of an MQTT device and a WebSocket page', () => {
  it('records aligned per-participant tracks byte for byte and a mixed track; downloads resume; erasure removes the files', async () => {
    const device = await connectDevice(t.port, 'device', { password: t.devicePassword('device') })
    const deviceSession = await device.event('session')
    const page = await TestTerminal.connect(t.engine.ports.gateway!, { token: await t.token('page') }, t.engine.host.tls.cert)
    const pageSession = await page.event('session')

    const started = await api('/rooms/kitchen/recordings', { method: 'POST', body: JSON.stringify({ tracks: 'both' }) })
    expect(started.status).toBe(201)
    const rec = (await started.json()) as RecordingView
    expect(rec).toMatchObject({ room: 'kitchen', tracks: 'both', status: 'recording', startedBy: 'api' })
    for (const told of [await device.event('room.recording'), await page.event('room.recording')]) {
      expect(told).toEqual({ type: 'room.recording', room: 'kitchen', recording: true, recordingId: rec.recordingId, tracks: 'both' })
    }
    // A second start of the same room is refused.
    expect((await api('/rooms/kitchen/recordings', { method: 'POST', body: JSON.stringify({ tracks: 'mixed' }) })).status).toBe(409)

    const deviceTalker = new ToneTalker(440)
    const pageTalker = new ToneTalker(1000)
    const fromDevice: Buffer[] = []
    const fromPage: Buffer[] = []
    await stream(40, () => {
      const f = deviceTalker.nextUplink()
      fromDevice.push(Buffer.from(f.subarray(1)))
      device.publishAudio(f)
    })
    await stream(30, () => {
      const f = pageTalker.nextUplink()
      fromPage.push(Buffer.from(f.subarray(1)))
      page.sendAudio(f)
    })
    // The room still forwards while it records: the page heard the device's last frame.
    expect(parseDownlink(await page.frames.next((f) => parseDownlink(f)?.seq === 39))!.sourceId).toBe(deviceSession.sourceId)

    const stopped = await api('/rooms/kitchen/recordings', { method: 'DELETE' })
    expect(stopped.status).toBe(200)
    const done = (await stopped.json()) as RecordingView
    expect(await page.event('room.recording', (e) => !e.recording)).toMatchObject({ recordingId: rec.recordingId })
    expect(done.status).toBe('finished')
    expect(done.participants).toEqual([{ id: 'device', kind: 'terminal' }, { id: 'page', kind: 'terminal' }])
    expect(done.files.map((f) => f.track)).toEqual(['mixed', 'p1', 'p2'])
    expect(done.sizeBytes).toBe(done.files.reduce((n, f) => n + f.bytes, 0))
    expect(done.durationMs!).toBeGreaterThan(1300)

    const got = (await (await api(`/recordings/${rec.recordingId}`)).json()) as RecordingView
    expect(got).toEqual(done)
    // The webhooks, once each, in order, signed.
    await receiver.acceptedCount(2)
    expect(receiver.accepted.items.filter((e) => e.resource === `recording:${rec.recordingId}`).map((e) => [e.type, e.sequence, e.data])).toEqual([
      ['recording.started', 1, { recordingId: rec.recordingId, room: 'kitchen', tracks: 'both' }],
      ['recording.finished', 2, { recordingId: rec.recordingId, room: 'kitchen', tracks: 'both', reason: 'stopped', durationMs: done.durationMs, sizeBytes: done.sizeBytes }],
    ])

    for (const f of done.files) {
      const res = await api(`/recordings/${rec.recordingId}/tracks/${f.track}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('audio/ogg')
      expect(res.headers.get('accept-ranges')).toBe('bytes')
      const body = Buffer.from(await res.arrayBuffer())
      expect(body.length).toBe(f.bytes)
      const path = join(files.path, `${f.track}.opus`)
      writeFileSync(path, body)
      const info = await opusinfo(path)
      expect(info.problems, info.text).toEqual([])
      // Every track spans the whole recording: aligned.
      expect(Math.abs(info.seconds * 1000 - done.durationMs!)).toBeLessThanOrEqual(60)
      if (f.track === 'mixed') continue
      const sent = f.participantId === 'device' ? fromDevice : fromPage
      const packets = audioPackets(scanOgg(body)).filter((p) => !isSilence(p)).map((p) => Buffer.from(p))
      expect(packets).toEqual(sent)
    }
    // The page's packets start after the device's: its track leads with ~0.8 s of silence.
    const p2 = audioPackets(scanOgg(Buffer.from(await (await api(`/recordings/${rec.recordingId}/tracks/p2`)).arrayBuffer())))
    expect(p2.findIndex((p) => !isSilence(p))).toBeGreaterThanOrEqual(35)

    // A download cut short resumes with a Range request.
    const whole = Buffer.from(await (await api(`/recordings/${rec.recordingId}/tracks/p1`)).arrayBuffer())
    const head = await api(`/recordings/${rec.recordingId}/tracks/p1`, { headers: { range: 'bytes=0-999' } })
    expect(head.status).toBe(206)
    expect(head.headers.get('content-range')).toBe(`bytes 0-999/${whole.length}`)
    const tail = await api(`/recordings/${rec.recordingId}/tracks/p1`, { headers: { range: 'bytes=1000-' } })
    expect(tail.status).toBe(206)
    expect(Buffer.concat([Buffer.from(await head.arrayBuffer()), Buffer.from(await tail.arrayBuffer())])).toEqual(whole)
    const past = await api(`/recordings/${rec.recordingId}/tracks/p1`, { headers: { range: `bytes=${whole.length + 10}-` } })
    expect(past.status).toBe(416)
    expect((await api(`/recordings/${rec.recordingId}/tracks/p9`)).status).toBe(404)
    expect((await api(`/recordings/${rec.recordingId}/tracks/..%2Fhark.db`)).status).toBe(400)

    // Listing: filters and paging.
    const list = async (q: string) => (await (await api(`/recordings${q}`)).json()) as { recordings: RecordingView[]; nextCursor: string | null }
    expect((await list('?room=kitchen')).recordings.map((r) => r.recordingId)).toEqual([rec.recordingId])
    expect((await list('?status=failed')).recordings).toEqual([])
    expect((await list(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).recordings).toEqual([])
    expect((await api('/recordings?from=yesterday')).status).toBe(400)

    const audit = t.engine.host.storage.auditEvents.ofWorkspace(t.seed.workspaceId, { limit: 50 })
    expect(audit.filter((e) => e.action === 'recording.downloaded' && e.target === rec.recordingId).length).toBeGreaterThanOrEqual(6)
    expect(audit[0]).toMatchObject({ actor: `apikey:${t.seed.keyId}` })

    const deleted = await api(`/recordings/${rec.recordingId}`, { method: 'DELETE' })
    expect(await deleted.json()).toEqual({ recordingId: rec.recordingId, deleted: true })
    expect((await api(`/recordings/${rec.recordingId}`)).status).toBe(404)
    expect((await api(`/recordings/${rec.recordingId}/tracks/p1`)).status).toBe(404)
    expect(t.engine.host.storage.auditEvents.ofWorkspace(t.seed.workspaceId, { limit: 1 })[0]).toMatchObject({ action: 'recording.deleted', target: rec.recordingId })

    await device.end()
    page.close()
    await page.closed
  })

  it('a room setting records every session; the recording finishes when the room closes', async () => {
    const put = await api('/rooms/porch/recording-setting', { method: 'PUT', body: JSON.stringify({ tracks: 'per-participant' }) })
    expect(await put.json()).toEqual({ room: 'porch', tracks: 'per-participant' })
    t.seed.addClient('porch-cam', 'porch')
    const page = await TestTerminal.connect(t.engine.ports.gateway!, { token: await t.token('porch-cam') }, t.engine.host.tls.cert)
    await page.event('session')
    const told = await page.event('room.recording')
    expect(told).toMatchObject({ room: 'porch', recording: true, tracks: 'per-participant' })
    const ended = new Promise<RecordingRecord>((resolve) => {
      const off = t.engine.host.operations.recordings.onEnded((r) => {
        off()
        resolve(r)
      })
    })
    const talker = new ToneTalker(600)
    await stream(10, () => page.sendAudio(talker.nextUplink()))
    page.close()
    await page.closed
    expect((await ended).recordingId).toBe(told.recordingId)
    const record = (await (await api(`/recordings/${told.recordingId}`)).json()) as RecordingView
    expect(record).toMatchObject({ status: 'finished', startedBy: 'room', participants: [{ id: 'porch-cam', kind: 'terminal' }] })
  })

  it('bad input: an unknown room, a bad body and a bad id are refused, the engine goes on', async () => {
    expect((await api('/rooms/nobody-here/recordings', { method: 'POST', body: JSON.stringify({ tracks: 'both' }) })).status).toBe(409)
    expect((await api('/rooms/kitchen/recordings', { method: 'POST', body: JSON.stringify({ tracks: 'stereo' }) })).status).toBe(400)
    expect((await api('/rooms/kitchen/recordings', { method: 'POST', body: '{"tracks":' })).status).toBe(400)
    expect((await api('/rooms/kitchen/recordings', { method: 'DELETE' })).status).toBe(404)
    expect((await api('/recordings/not-an-id')).status).toBe(400)
    expect((await api('/recordings/rec_01JD3M5Q8T7V2XW4YZ6A9BCDEF')).status).toBe(404)
  })
})
