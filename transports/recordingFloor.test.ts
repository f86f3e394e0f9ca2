/**
 * The disk floor: recordings are written to a tmpfs (/dev/shm, a filesystem of its own) whose
 * floor (recordings.minFreeMb) sits just under its free space; a file written beside them takes
 * it below, and the running recording stops with recording.failed — its files finished and
 * valid, the terminals told, the webhook delivered once to a real receiver with the reason — while
 * the room keeps talking. A new recording is refused (409).
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../core/dataplane/frame.js'
import { opusinfo } from '../core/recordings/test/opusTools.js'
import { ToneTalker } from '../core/test/audio.js'
import { seedWorkspace, startTestEngine } from '../core/test/helpers.js'
import type { RecordingRecord } from '../core/storage/recordings.js'
import { restPlugin } from '../plugins/rest/index.js'
import { webhooksPlugin } from '../plugins/webhooks/index.js'
import { WebhookReceiver } from '../plugins/webhooks/test/receiver.js'
import { websocketTransport } from './websocket/index.js'
import { TestTerminal } from './websocket/test/terminalClient.js'

const MiB = 1024 * 1024
const shm = mkdtempSync('/dev/shm/hark-rec-floor-')
const freeMb = () => {
  const s = statfsSync(shm)
  return Math.floor((s.bavail * s.bsize) / MiB)
}

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let receiver: WebhookReceiver
beforeAll(async () => {
  // 32 MiB of headroom: the recording starts; the 128 MiB file below takes the tmpfs under the floor.
  t = await startTestEngine({
    extensions: [websocketTransport, restPlugin, webhooksPlugin],
    recordings: { dir: shm, minFreeMb: freeMb() - 32, flushMs: 100 },
    // The receiver is plain http on 127.0.0.1: allowed only with webhooks.allowPrivateNetworks.
    webhooks: { allowPrivateNetworks: true },
  })
  seed = seedWorkspace(t.engine)
  seed.addClient('a', 'hall')
  seed.addClient('b', 'hall')
  receiver = await WebhookReceiver.start()
  const endpoint = await api('/webhooks', { method: 'POST', body: JSON.stringify({ url: receiver.url, events: ['recording.started', 'recording.failed', 'recording.finished'] }) })
  expect(endpoint.status).toBe(201)
  receiver.secrets.push(((await endpoint.json()) as { secret: string }).secret)
}, 60_000)
afterAll(async () => {
  await t?.stop()
  await receiver?.close()
  rmSync(shm, { recursive: true, force: true })
})

const api = (path: string, init: RequestInit = {}) =>
  fetch(t.url(`/api/v1${path}`), { ...init, headers: { authorization: `Bearer ${seed.apiKey}`, 'content-type': 'application/json' } })

describe('the disk floor', () => {
  it('stops the recording with recording.failed, keeps its files valid, and the room keeps talking', async () => {
    const token = async (id: string) => (await t.engine.host.security.tokens.issue(seed.workspaceId, id, null)).token
    const a = await TestTerminal.connect(t.engine.ports.gateway!, { token: await token('a') }, t.engine.host.tls.cert)
    await a.event('session')
    const b = await TestTerminal.connect(t.engine.ports.gateway!, { token: await token('b') }, t.engine.host.tls.cert)
    await b.event('session')
    const ended = new Promise<RecordingRecord>((resolve) => t.engine.host.operations.recordings.onEnded(resolve))

    const res = await api('/rooms/hall/recordings', { method: 'POST', body: JSON.stringify({ tracks: 'both' }) })
    expect(res.status).toBe(201)
    await a.event('room.recording')
    const talker = new ToneTalker(500)
    let sent = 0
    const timer = setInterval(() => {
      a.sendAudio(talker.nextUplink())
      sent++
    }, 20)
    try {
      const filler = join(shm, 'filler')
      await writeFile(filler, Buffer.alloc(128 * MiB))
      const failed = await ended
      expect(failed).toMatchObject({ status: 'failed', room: 'hall' })
      expect(failed.failure).toMatch(/disk space below the floor/)
      expect(await a.event('room.recording', (e) => !e.recording)).toMatchObject({ recordingId: failed.recordingId })
      // What it wrote before it stopped is a finished, valid stream.
      for (const track of failed.trackList) {
        const info = await opusinfo(join(failed.dir, track.file))
        expect(info.problems, info.text).toEqual([])
      }
      // The room goes on: b still hears a's frames after the failure.
      const after = sent
      const frame = await b.frames.next((f) => (parseDownlink(f)?.seq ?? 0) >= after)
      expect(parseDownlink(frame)).not.toBeNull()
      // Below the floor, a new recording is refused.
      const again = await api('/rooms/hall/recordings', { method: 'POST', body: JSON.stringify({ tracks: 'mixed' }) })
      expect(again.status).toBe(409)
      expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/minFreeMb/)
      rmSync(filler)

      // The webhook: recording.started then recording.failed with the reason, each once, signed, in order.
      await receiver.acceptedCount(2)
      const mine = () => receiver.accepted.items.filter((e) => e.resource === `recording:${failed.recordingId}`)
      expect(mine().map((e) => [e.type, e.sequence])).toEqual([['recording.started', 1], ['recording.failed', 2]])
      expect(mine()[1]!.data).toEqual({
        recordingId: failed.recordingId, room: 'hall', tracks: 'both', reason: failed.failure, durationMs: failed.durationMs, sizeBytes: failed.sizeBytes,
      })
      expect(mine()[1]!.data.reason).toMatch(/disk space below the floor/)
      // Delivered once: no retry arrives while the room keeps talking (b hears 25 more of a's frames).
      const later = sent + 25
      await b.frames.next((f) => (parseDownlink(f)?.seq ?? 0) >= later)
      expect(receiver.requests.items.filter((r) => r.event.type === 'recording.failed')).toHaveLength(1)
    } finally {
      clearInterval(timer)
    }
    a.close()
    b.close()
    await Promise.all([a.closed, b.closed])
  }, 60_000) // 128 MiB written to a tmpfs: seconds on a busy machine
})
