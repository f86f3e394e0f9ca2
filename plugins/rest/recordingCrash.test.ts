/**
 * A recording survives a crash: a real engine process records a real WebSocket terminal and is
 * killed with SIGKILL mid-recording. The file it left plays (opusdec) up to its last flushed
 * page; the next start's recovery pass finishes it (end of stream, opusinfo clean) and the record
 * says `finished` with what the file holds.
 */
import { existsSync, readFileSync, watch } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { FLAG_EOS } from '../../core/recordings/oggOpus.js'
import { playedSeconds, scanOgg } from '../../core/recordings/oggRead.js'
import { opusdec, opusinfo } from '../../core/recordings/test/opusTools.js'
import type { RecordingView } from '../../core/recordings/view.js'
import { ToneTalker } from '../../core/test/audio.js'
import { cliJson, repoRoot, tempDir } from '../../core/test/helpers.js'
import { killLeftovers, spawnHark } from '../../cli/test/harkProcess.js'

afterEach(killLeftovers)

/** `hark start` on free ports with pages flushed every 200 ms and no disk floor; its ports once running. */
const start = async (dataDir: string) => {
  const hark = spawnHark([process.execPath, join(repoRoot, 'bin/hark.js'), 'start', '--data', dataDir, '--rest-port', '0', '--gateway-port', '0',
    '--mqtt-port', '0', '--console-port', '0', '--log-level', 'info', '--recordings-flush-ms', '200', '--recordings-min-free-mb', '0'])
  return { hark, ports: await hark.running() }
}
type Running = Awaited<ReturnType<typeof start>>

/** Resolves once the file at `path` plays at least `seconds` (checked on every change of its directory). */
const whenPlays = (path: string, seconds: number): Promise<number> =>
  new Promise((resolve) => {
    const check = () => {
      if (!existsSync(path)) return false
      const played = playedSeconds(scanOgg(readFileSync(path)))
      if (played < seconds) return false
      watcher.close()
      resolve(played)
      return true
    }
    const watcher = watch(join(path, '..'), () => void check())
    check()
  })

describe('a recording across a crash (real engine process)', () => {
  it('leaves a playable file after kill -9, finished by the recovery pass at the next start', async () => {
    const dir = tempDir()
    try {
      const data = ['--data', dir.path]
      const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data])
      const { apiKey } = await cliJson<{ apiKey: string }>(['apikey', 'create', '--workspace', workspaceId, ...data])
      await cliJson(['client', 'create', 'dev-1', '--workspace', workspaceId, '--room', 'lobby', ...data])
      const { token } = await cliJson<{ token: string }>(['token', 'issue', 'dev-1', '--workspace', workspaceId, ...data])
      const api = (r: Running, path: string, init: RequestInit = {}) =>
        fetch(`http://127.0.0.1:${r.ports.rest}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } })

      const first = await start(dir.path)
      const ca = readFileSync(join(dir.path, 'tls-self-signed.crt'), 'utf8')
      const ws = new WebSocket(`wss://127.0.0.1:${first.ports.gateway}/v1/connect?token=${token}`, { ca })
      await new Promise<void>((resolve, reject) => {
        ws.once('message', () => resolve())
        ws.once('error', reject)
      })
      ws.on('error', () => {})
      const res = await api(first, '/rooms/lobby/recordings', { method: 'POST', body: JSON.stringify({ tracks: 'per-participant' }) })
      expect(res.status).toBe(201)
      const rec = (await res.json()) as RecordingView
      const track = join(dir.path, 'recordings', workspaceId, rec.recordingId, 'p1.opus')

      const talker = new ToneTalker(440)
      const timer = setInterval(() => ws.send(talker.nextUplink()), 20)
      let leftSeconds: number
      try {
        await whenPlays(track, 1.5)
        // Killed by the signal: no exit code.
        expect(await first.hark.stop('SIGKILL')).toBeNull()
      } finally {
        clearInterval(timer)
      }

      // What the dead engine left: whole pages up to its last flush, no end of stream, and it plays.
      const left = scanOgg(readFileSync(track))
      expect(left.pages.at(-1)!.flags & FLAG_EOS).toBe(0)
      leftSeconds = playedSeconds(left)
      expect(leftSeconds).toBeGreaterThanOrEqual(1.5)
      const pcm = await opusdec(track)
      expect(pcm.length / 16000).toBeGreaterThanOrEqual(leftSeconds - 0.05)

      const second = await start(dir.path)
      const after = scanOgg(readFileSync(track))
      expect(after.pages.at(-1)!.flags & FLAG_EOS).toBe(FLAG_EOS)
      const info = await opusinfo(track)
      expect(info.problems, info.text).toEqual([])
      expect(Math.abs(info.seconds - leftSeconds)).toBeLessThanOrEqual(0.06)
      const recovered = (await (await api(second, `/recordings/${rec.recordingId}`)).json()) as RecordingView
      expect(recovered).toMatchObject({ status: 'finished', participants: [{ id: 'dev-1', kind: 'terminal' }] })
      expect(Math.abs(recovered.durationMs! - leftSeconds * 1000)).toBeLessThanOrEqual(60)
      expect(recovered.files[0]!.bytes).toBe(after.validBytes)

      expect(await second.hark.stop('SIGTERM')).toBe(0)
    } finally {
      dir.remove()
    }
  }, 120_000) // two engine processes and four CLI runs: a few seconds each on a busy machine
})
