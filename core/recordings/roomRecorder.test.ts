/**
 * The recorder on its own (no engine): real Opus packets fed through its tap on a time line the
 * test stamps, files checked with opusinfo/opusdec, packets read back byte for byte, tracks
 * aligned with silence, the mixed track made of both talkers, and a torn file repaired.
 */
import { appendFileSync, readFileSync, statSync, truncateSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ToneTalker, tonePower } from '../test/audio.js'
import { tempDir } from '../test/helpers.js'
import { FLAG_EOS, SILENCE_PACKET } from './oggOpus.js'
import { audioPackets, repairOgg, scanOgg } from './oggRead.js'
import { RoomRecorder, type TrackInfo } from './roomRecorder.js'
import { opusdec, opusinfo } from './test/opusTools.js'

const dir = tempDir('hark-rec-')
afterAll(() => dir.remove())

const isSilence = (p: Uint8Array) => p.length === SILENCE_PACKET.length && p.every((b, i) => b === SILENCE_PACKET[i])

const participants = [
  { id: 'alice', kind: 'terminal' as const, sourceId: 1, name: null },
  { id: 'bob', kind: 'terminal' as const, sourceId: 2, name: null },
]

describe('RoomRecorder', () => {
  it('writes aligned per-participant tracks with the talkers’ packets untouched, and a mixed track of both', async () => {
    let now = 1000
    const tracks: TrackInfo[][] = []
    const failures: string[] = []
    const recorder = new RoomRecorder({
      recordingId: 'rec_test', room: 'lobby', tracks: 'both', dir: join(dir.path, 'a'), now: () => now, minFreeBytes: 0,
      failed: (r) => failures.push(r), tracksChanged: (t) => tracks.push([...t]),
    })
    await recorder.start()
    recorder.roster(participants)
    const alice = new ToneTalker(440)
    const bob = new ToneTalker(1000)
    const sentAlice: Uint8Array[] = []
    const sentBob: Uint8Array[] = []
    // Alice talks for the first second; Bob is quiet, then talks from 1.5 s to 2.5 s; the recording ends at 3 s.
    for (let i = 0; i < 150; i++) {
      now = 1000 + i * 20
      if (i < 50) {
        const f = alice.nextUplink()
        sentAlice.push(f.slice(1))
        recorder.frame(1, f, now)
      }
      if (i >= 75 && i < 125) {
        const f = bob.nextUplink()
        sentBob.push(f.slice(1))
        recorder.frame(2, f, now)
      }
    }
    now = 4000
    const summary = await recorder.stop()
    expect(failures).toEqual([])
    expect(tracks.at(-1)!.map((t) => t.name)).toEqual(['mixed', 'p1', 'p2'])
    expect(summary.durationMs).toBe(3000)

    for (const t of summary.tracks) {
      const path = join(dir.path, 'a', t.file)
      const info = await opusinfo(path)
      expect(info.problems, info.text).toEqual([])
      expect(Math.abs(info.seconds - 3)).toBeLessThanOrEqual(0.06)
      expect(t.bytes).toBe(statSync(path).size)
      const scan = scanOgg(readFileSync(path))
      expect(scan.validBytes).toBe(t.bytes)
      expect(scan.pages.at(-1)!.flags & FLAG_EOS).toBe(FLAG_EOS)
    }
    const p1 = audioPackets(scanOgg(readFileSync(join(dir.path, 'a', 'p1.opus'))))
    const p2 = audioPackets(scanOgg(readFileSync(join(dir.path, 'a', 'p2.opus'))))
    expect(p1.filter((p) => !isSilence(p)).map((p) => Buffer.from(p))).toEqual(sentAlice.map((p) => Buffer.from(p)))
    expect(p2.filter((p) => !isSilence(p)).map((p) => Buffer.from(p))).toEqual(sentBob.map((p) => Buffer.from(p)))
    // Aligned: Bob's first packet, which arrived 1.5 s in (when its 20 ms were over), starts at 1.48 s.
    expect(p2.findIndex((p) => !isSilence(p))).toBe(74)

    // The mix: Alice's tone in its first second, Bob's from 1.5 s, silence at the end.
    const mixed = await opusdec(join(dir.path, 'a', 'mixed.opus'))
    const at = (s: number) => mixed.subarray(Math.round(s * 16000), Math.round(s * 16000) + 3200)
    expect(tonePower(at(0.4), 440)).toBeGreaterThan(tonePower(at(0.4), 1000) * 10)
    expect(tonePower(at(2.0), 1000)).toBeGreaterThan(tonePower(at(2.0), 440) * 10)
    expect(tonePower(at(2.8), 1000)).toBeLessThan(tonePower(at(2.0), 1000) / 100)
    // Per-participant silence decodes to silence.
    const bobPcm = await opusdec(join(dir.path, 'a', 'p2.opus'))
    expect(bobPcm.subarray(0, 16000).every((s) => s === 0)).toBe(true)
  })

  it('a torn last page is cut and the stream closed: the file plays up to its last whole page', async () => {
    let now = 0
    const recorder = new RoomRecorder({
      recordingId: 'rec_torn', room: 'lobby', tracks: 'per-participant', dir: join(dir.path, 'b'), now: () => now, minFreeBytes: 0,
      failed: () => {}, tracksChanged: () => {},
    })
    await recorder.start()
    recorder.roster(participants.slice(0, 1))
    const talker = new ToneTalker(440)
    for (let i = 0; i < 100; i++) {
      recorder.frame(1, talker.nextUplink(), (now = i * 20))
      if (i % 25 === 24) recorder.flush() // what its timer does every flushMs
    }
    now = 2000
    await recorder.stop()
    const path = join(dir.path, 'b', 'p1.opus')
    // A crash: the end-of-stream page never made it, and only half of the page before it did.
    const whole = readFileSync(path)
    const last = scanOgg(whole).pages.at(-2)!
    truncateSync(path, last.offset)
    appendFileSync(path, whole.subarray(last.offset, last.offset + (last.length >> 1)))
    const before = scanOgg(readFileSync(path))
    expect(before.pages.at(-1)!.flags & FLAG_EOS).toBe(0)
    const repaired = await repairOgg(path)
    expect(repaired.empty).toBe(false)
    expect(statSync(path).size).toBe(last.offset)
    const after = scanOgg(readFileSync(path))
    expect(after.pages.at(-1)!.flags & FLAG_EOS).toBe(FLAG_EOS)
    const info = await opusinfo(path)
    expect(info.problems, info.text).toEqual([])
    expect(info.seconds).toBeCloseTo(repaired.seconds, 2)
  })
})
