/**
 * Graceful overload end to end (issue 39): two terminals talk at their nominal 50 frames/s from a
 * process of their own while the engine's process is kept busy (a 1.2 s stall, then turns of
 * 100 ms), as an engine past its capacity would be. The engine sheds the same share of both
 * talkers' frames (counted `overload`), tells their room `room.degraded` and, once it keeps up
 * again, that it is over (a room where nobody talks is told nothing); the frames the stall bunched up are not taken for the terminals' own excess
 * (no `rate` drops).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { websocketTransport } from './index.js'
import { TestTerminal } from './test/terminalClient.js'

let t: Awaited<ReturnType<typeof startTestEngine<[typeof websocketTransport]>>>
beforeAll(async () => {
  // Two talkers are far below the default minTalkers: this engine sheds with one.
  t = await startTestEngine({ extensions: [websocketTransport], overload: { targetLagMs: 50, minTalkers: 1 } })
})
afterAll(() => t.stop())

/** Keep this process busy for `ms` (what an overloaded engine's event loop looks like). */
const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until);
}
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('overload', () => {
  it('sheds the same share of each talker, says room.degraded and when it is over, and takes bunched frames without rate drops', async () => {
    const { engine } = t
    const seed = seedWorkspace(engine)
    for (const id of ['t1', 't2', 'ear']) seed.addClient(id, 'busy-room')
    seed.addClient('quiet', 'quiet-room')
    const token = async (clientId: string) => (await engine.host.security.tokens.issue(seed.workspaceId, clientId, null)).token
    const ear = await TestTerminal.connect(engine.ports.gateway!, { token: await token('ear') }, engine.host.tls.cert)
    await ear.event('session')
    // A room with nobody talking loses nothing and is told nothing.
    const quiet = await TestTerminal.connect(engine.ports.gateway!, { token: await token('quiet') }, engine.host.tls.cert)
    await quiet.event('session')
    const caFile = join(t.dir, 'ca.pem')
    writeFileSync(caFile, engine.host.tls.cert)
    const script = fileURLToPath(new URL('./test/pacedTalkers.mjs', import.meta.url))
    const seconds = 6
    const talkers = spawn(process.execPath, [script, `wss://127.0.0.1:${engine.ports.gateway}/v1/connect`, caFile, String(seconds), await token('t1'), await token('t2')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    const lines = createInterface({ input: talkers.stdout! })
    const line = (what: string) => new Promise<void>((resolve) => lines.on('line', (l) => l.startsWith(what) && resolve()))
    await line('ready')
    await ear.event('participant.joined', (e) => e.participant.id === 't2')
    talkers.stdin!.write('go\n')
    await ear.frames.next()

    // The stall bunches ~60 frames of each talker (more than the burst of 50); then the busy turns.
    busy(1200)
    await turn()
    for (let i = 0; i < 10; i++) {
      busy(150)
      await turn()
    }
    const degraded = await ear.event('room.degraded', (e) => e.degraded)
    expect(degraded).toMatchObject({ room: 'busy-room', reason: 'server_overload' })
    expect(degraded.shedPercent).toBeGreaterThan(0)
    // Over once the engine keeps up again (at the latest once the talkers stop, on a busy machine).
    const over = await ear.events.next((e) => e.type === 'room.degraded' && !e.degraded, 15_000, 'room.degraded over')
    expect(over).toEqual({ type: 'room.degraded', room: 'busy-room', degraded: false, reason: 'server_overload', shedPercent: 0 })
    const [code] = await once(talkers, 'exit')
    expect(code).toBe(0)

    // The talkers left after their last frame; a pong after that comes after every frame routed to ear.
    for (const id of ['t1', 't2']) await ear.event('participant.left', (e) => e.participant.id === id)
    ear.send({ type: 'ping', id: 'counted' })
    await ear.event('pong', (e) => e.id === 'counted')
    const received = new Map<number, number>()
    for (const f of ear.frames.items) {
      const { sourceId } = parseDownlink(f)!
      received.set(sourceId, (received.get(sourceId) ?? 0) + 1)
    }
    const [a, b] = [...received.values()]
    const sent = seconds * 50
    expect(received.size).toBe(2)
    expect(a!).toBeLessThan(sent)
    expect(Math.abs(a! - b!)).toBeLessThanOrEqual(3) // the same share of each

    const metrics = await engine.host.metrics.metrics()
    const dropped = (reason: string) => Number(metrics.match(new RegExp(`hark_audio_frames_dropped_total\\{transport="websocket",reason="${reason}"\\} (\\d+)`))?.[1] ?? 0)
    // Shed (or, read past overload.staleMs, stale): every frame the room did not carry is one of them.
    expect(dropped('overload') + dropped('stale')).toBe(2 * sent - a! - b!)
    expect(dropped('overload')).toBeGreaterThan(0)
    expect(dropped('rate')).toBe(0)
    expect(metrics).toMatch(/\nhark_audio_overload_shed_ratio \d/)
    expect(metrics).toMatch(/\nhark_audio_overload_degraded [01]\n/)
    quiet.send({ type: 'ping', id: 'last' })
    await quiet.event('pong')
    expect(quiet.events.items.filter((e) => e.type === 'room.degraded')).toEqual([])
    ear.close()
    quiet.close()
  })
})
