/**
 * A xiaozhi device's room recorded per participant: its 60 ms Opus packets land on its track
 * byte for byte, with silence where it was quiet, and the file validates with opusinfo. (The
 * device is not told that it is recorded: its protocol has no such message, spec/terminal-protocol.md.)
 */
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SILENCE_PACKET } from '../../core/recordings/oggOpus.js'
import { audioPackets, scanOgg } from '../../core/recordings/oggRead.js'
import { opusinfo } from '../../core/recordings/test/opusTools.js'
import { seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { tone } from '../../core/test/speech.js'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { websocketTransport } from '../websocket/index.js'
import { TestTerminal } from '../websocket/test/terminalClient.js'
import { xiaozhi } from './index.js'
import { FRAME_MS, XiaozhiDevice } from './test/device.js'

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
beforeAll(async () => {
  t = await startTestEngine({ extensions: [websocketTransport, ...xiaozhi], recordings: { minFreeMb: 0 } })
  seed = seedWorkspace(t.engine)
}, 60_000)
afterAll(() => t?.stop())

const isSilence = (p: Uint8Array) => p.length === SILENCE_PACKET.length && p.every((b, i) => b === SILENCE_PACKET[i])

describe('recording a xiaozhi device', () => {
  it('keeps its 60 ms packets byte for byte on an aligned, valid track', async () => {
    seed.addClient('speaker', 'kitchen')
    const token = t.engine.host.security.devicePasswords.reset(seed.workspaceId, 'speaker').password
    const xz = await XiaozhiDevice.connect({ url: `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`, ca: t.engine.host.tls.cert, token, device: { mac: '07:00:00:00:00:aa', uuid: randomUUID() } })
    await xz.hello({})
    // A WebSocket terminal in the room: when it has heard the device's last packet, so has the recording.
    seed.addClient('observer', 'kitchen')
    const observer = await TestTerminal.connect(t.engine.ports.gateway!, { token: (await t.engine.host.security.tokens.issue(seed.workspaceId, 'observer', null)).token }, t.engine.host.tls.cert)
    await observer.event('session')
    const recordings = t.engine.host.operations.recordings
    const rec = await recordings.startRecording(seed.workspaceId, 'kitchen', 'per-participant')
    xz.listenStart('manual')
    const packets = xz.encode(tone(1200, 440))
    await new Promise<void>((resolve) => {
      let i = 0
      const timer = setInterval(() => {
        xz.sendOpus(packets[i++]!)
        if (i === packets.length) {
          clearInterval(timer)
          resolve()
        }
      }, FRAME_MS) // a microphone's pace
    })
    await observer.frames.next((f) => parseDownlink(f)?.seq === packets.length - 1)
    xz.listenStop()
    const done = await recordings.stopRecording(seed.workspaceId, 'kitchen')
    expect(done.trackList.map((f) => f.participantId)).toEqual(['speaker', 'observer'])
    const path = join(done.dir, done.trackList[0]!.file)
    const info = await opusinfo(path)
    expect(info.problems, info.text).toEqual([])
    expect(Math.abs(info.seconds * 1000 - done.durationMs!)).toBeLessThanOrEqual(60)
    const recorded = audioPackets(scanOgg(readFileSync(path))).filter((p) => !isSilence(p)).map((p) => Buffer.from(p))
    expect(recorded).toEqual(packets.map((p) => Buffer.from(p)))
    expect(rec.recordingId).toBe(done.recordingId)
    xz.close()
    observer.close()
  })
})
