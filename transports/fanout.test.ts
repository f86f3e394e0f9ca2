/**
 * Native fan-out (core/dataplane/fanout.ts, spec/websocket.md): a room's WebSocket receivers get
 * each frame through one uWS publish, the room's other receivers (an MQTT device here) frame by
 * frame, and the protocol's promises hold either way — the same bytes at every receiver, nothing
 * back to the sender, each source in order, moves and slow receivers handled, drops counted.
 * Lives beside both transports because one test needs both.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { parseDownlink } from '../core/dataplane/frame.js'
import { audioDrops } from '../core/dataplane/drops.js'
import type { Engine } from '../core/engine.js'
import type { Extension } from '../core/extension.js'
import { seedWorkspace, startTestEngine, uplink } from '../core/test/helpers.js'
import { mqttTransport } from './mqtt/index.js'
import { connectDevice, startMqttEngine } from './mqtt/test/helpers.js'
import { defineWebSocketTransport, websocketTransport } from './websocket/index.js'
import { TestTerminal } from './websocket/test/terminalClient.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
afterEach(() => t?.stop())

const start = async (ws: Extension = websocketTransport) => {
  t = await startMqttEngine({}, [mqttTransport, ws])
}

const connect = async (clientId: string) => {
  const terminal = await TestTerminal.connect(t.engine.ports.gateway!, { token: await t.token(clientId) }, t.engine.host.tls.cert)
  await terminal.event('session')
  return terminal
}

/** `hark_audio_frames_routed_total{direction}` as the engine would report it now. */
const routed = async (engine: Engine, direction: 'in' | 'out' | 'published') => {
  const metric = await engine.host.metrics.getSingleMetric('hark_audio_frames_routed_total')!.get()
  return metric.values.find((v) => v.labels.direction === direction)?.value ?? 0
}

/** Everything the server sent `terminal` before this returns has arrived (events and audio share one ordered stream). */
const settled = async (terminal: TestTerminal, id: string) => {
  terminal.send({ type: 'ping', id })
  await terminal.event('pong', (e) => e.id === id)
}

const fromSource = (terminal: TestTerminal, sourceId: number) =>
  terminal.frames.items.map((f) => parseDownlink(f)!).filter((d) => d.sourceId === sourceId)

describe('native fan-out of WebSocket rooms', () => {
  it('sends each frame by one publish: byte-identical at every other member, never back to the sender, each source in order', async () => {
    await start()
    const ids = ['a', 'b', 'c', 'd']
    for (const id of ids) t.seed.addClient(id, 'lobby')
    const members: TestTerminal[] = []
    for (const id of ids) members.push(await connect(id))
    for (const m of members.slice(0, 3)) await m.event('participant.joined', (e) => e.participant.id === 'd')
    const sourceIds = members.map((m) => m.events.items.find((e) => e.type === 'session')!.sourceId as number)

    // Interleaved talk, every frame of every source different (length and bytes).
    const N = 25
    const payload = (member: number, i: number) => Uint8Array.from({ length: 3 + ((member * 7 + i) % 40) }, (_, k) => (member * 31 + i * 7 + k) & 0xff)
    for (let i = 0; i < N; i++) members.forEach((m, j) => m.sendAudio(uplink(payload(j, i), 0x80 | j)))
    for (const [j, m] of members.entries()) {
      await m.frames.next(() => m.frames.items.length >= 3 * N, 5000, `${3 * N} frames at ${ids[j]}`)
      await settled(m, `done-${j}`)
    }

    for (const [j, m] of members.entries()) {
      expect(m.frames.items).toHaveLength(3 * N)
      expect(fromSource(m, sourceIds[j]!)).toEqual([]) // its own frames never come back
      for (const [k, source] of sourceIds.entries()) {
        if (k === j) continue
        const got = fromSource(m, source)
        expect(got.map((d) => d.seq)).toEqual([...Array(N).keys()])
        expect(got.map((d) => [...d.opus])).toEqual([...Array(N).keys()].map((i) => [...payload(k, i)]))
        expect(got.every((d) => d.levelByte === (0x80 | k))).toBe(true)
      }
    }
    // The very same bytes at every receiver of a frame.
    const bytesAt = (m: TestTerminal, source: number, seq: number) =>
      Buffer.from(m.frames.items.find((f) => ((f[2]! << 8) | f[3]!) === source && ((f[4]! << 8) | f[5]!) === seq)!).toString('hex')
    for (const [k, source] of sourceIds.entries()) {
      const receivers = members.filter((_, j) => j !== k)
      for (let seq = 0; seq < N; seq++) expect(new Set(receivers.map((m) => bytesAt(m, source, seq))).size).toBe(1)
    }
    // One publish per frame, three deliveries each.
    expect(await routed(t.engine, 'published')).toBe(4 * N)
    expect(await routed(t.engine, 'out')).toBe(12 * N)
  })

  it('keeps delivering to everyone when an MQTT device joins: pages by publish, the device frame by frame, and back', async () => {
    await start()
    for (const id of ['p1', 'p2', 'device']) t.seed.addClient(id, 'kitchen')
    const p1 = await connect('p1')
    const p2 = await connect('p2')
    await p1.event('participant.joined', (e) => e.participant.id === 'p2')
    p1.sendAudio(uplink([1, 1]))
    await p2.frames.next((f) => parseDownlink(f)!.opus[0] === 1)
    expect(await routed(t.engine, 'published')).toBe(1)

    const device = await connectDevice(t.port, 'device', { password: t.devicePassword('device') })
    const deviceSource = (await device.event('session')).sourceId
    await p1.event('participant.joined', (e) => e.participant.id === 'device')
    await p2.event('participant.joined', (e) => e.participant.id === 'device')
    p1.sendAudio(uplink([2, 2]))
    const atDevice = parseDownlink(await device.audio.next((f) => f[6] === 2))!
    expect(atDevice.seq).toBe(1)
    expect([...atDevice.opus]).toEqual([2, 2])
    expect(parseDownlink(await p2.frames.next((f) => parseDownlink(f)!.opus[0] === 2))!.seq).toBe(1)
    device.publishAudio(uplink([3, 3]))
    for (const page of [p1, p2]) expect(parseDownlink(await page.frames.next((f) => parseDownlink(f)!.opus[0] === 3))!.sourceId).toBe(deviceSource)
    // The pages are still reached by publish (p1's frame and the device's); the device never hears itself.
    expect(await routed(t.engine, 'published')).toBe(3)
    expect(await routed(t.engine, 'out')).toBe(1 + 2 + 2)
    expect(device.audio.items.every((f) => parseDownlink(f)!.sourceId !== deviceSource)).toBe(true)

    await device.end()
    await p1.event('participant.left', (e) => e.participant.id === 'device')
    p2.sendAudio(uplink([4, 4]))
    await p1.frames.next((f) => parseDownlink(f)!.opus[0] === 4)
    for (const [i, m] of [p1, p2].entries()) await settled(m, `end-${i}`)
    expect(p2.frames.items.map((f) => parseDownlink(f)!.opus[0])).toEqual([1, 2, 3])
    expect(p1.frames.items.map((f) => parseDownlink(f)!.opus[0])).toEqual([3, 4])
  })

  it('moves a terminal from one room topic to the other on a mapping change', async () => {
    await start()
    for (const [id, room] of [['mover', 'r1'], ['x', 'r1'], ['y', 'r2']] as const) t.seed.addClient(id, room)
    const mover = await connect('mover')
    const x = await connect('x')
    const y = await connect('y')
    await mover.event('participant.joined', (e) => e.participant.id === 'x')
    x.sendAudio(uplink([1]))
    await mover.frames.next((f) => parseDownlink(f)!.opus[0] === 1)

    t.seed.moveClient('mover', 'r2')
    const changed = await mover.event('room.changed')
    expect(changed).toMatchObject({ from: 'r1', to: 'r2' })
    await y.event('participant.joined', (e) => e.participant.id === 'mover')
    await x.event('participant.left', (e) => e.participant.id === 'mover')

    x.sendAudio(uplink([2])) // r1: the mover must not hear it any more
    y.sendAudio(uplink([3])) // r2: it must
    mover.sendAudio(uplink([4]))
    await mover.frames.next((f) => parseDownlink(f)!.opus[0] === 3)
    await y.frames.next((f) => parseDownlink(f)!.opus[0] === 4)
    for (const [i, m] of [mover, x, y].entries()) await settled(m, `moved-${i}`)
    expect(mover.frames.items.map((f) => parseDownlink(f)!.opus[0])).toEqual([1, 3])
    expect(x.frames.items).toHaveLength(0)
    expect(y.frames.items.map((f) => parseDownlink(f)!.opus[0])).toEqual([4])
    // Nothing of r2 before the room.changed that put it there.
    expect(mover.order.indexOf('room.changed')).toBeLessThan(mover.order.lastIndexOf('audio'))
    expect(mover.order.slice(0, mover.order.indexOf('room.changed')).filter((o) => o === 'audio')).toHaveLength(1)
    // Every frame went by publish (x's second one to nobody).
    expect(await routed(t.engine, 'published')).toBe(4)
  })

  it('counts every frame a receiver that stops reading misses: its seq gaps equal the backpressure drops', async () => {
    await start(defineWebSocketTransport({ audioFramesPerSecond: 1e9, audioFrameBurst: 1e9 }))
    for (const id of ['talker', 'fast', 'slow']) t.seed.addClient(id, 'lobby')
    const talker = await connect('talker')
    const fast = await connect('fast')
    const slow = await connect('slow')
    await talker.event('participant.joined', (e) => e.participant.id === 'slow')
    await fast.event('participant.joined', (e) => e.participant.id === 'slow')
    const socket = (slow.ws as unknown as { _socket: import('node:net').Socket })._socket
    socket.pause()

    const drops = audioDrops(t.engine.host.metrics)
    const packet = new Uint8Array(1400).fill(5)
    let sent = 0
    const send = (marker: number) => {
      packet[0] = marker
      talker.sendAudio(uplink(packet))
      sent++
    }
    // Rounds of 40 frames (56 kB) until the server reports drops for the stalled receiver.
    while (drops.total('websocket') === 0 && sent < 200_000) {
      for (let i = 0; i < 40; i++) send(1)
      await fast.frames.next(() => fast.frames.items.length >= sent)
    }
    expect(drops.total('websocket')).toBeGreaterThan(0)
    expect(fast.frames.items).toHaveLength(sent)

    // It reads again: a marker frame at a time until one reaches it (the first may still be dropped).
    socket.resume()
    for (let round = 0; !slow.frames.items.some((f) => f[6] === 0xee); round++) {
      if (round === 1000) throw new Error('the resumed receiver never caught up')
      send(0xee)
      await fast.frames.next(() => fast.frames.items.length >= sent)
      await settled(slow, `catch-up-${round}`)
    }
    // Every frame sent is either at the slow receiver or counted as dropped for it.
    const seqs = slow.frames.items.map((f) => parseDownlink(f)!.seq)
    expect(seqs).toEqual([...seqs].sort((p, q) => p - q))
    expect(slow.frames.items.length + drops.total('websocket')).toBe(sent)
    expect(drops.cell('websocket', 'backpressure').count).toBe(drops.total('websocket'))
    // The talker's frames went by publish all along (the slow receiver was walked meanwhile), and it hears new audio.
    expect(await routed(t.engine, 'published')).toBe(sent)
    send(0xef)
    await slow.frames.next((f) => f[6] === 0xef)
  })

  it('with gateway.pubsub off sends frame by frame: the same frames arrive, nothing is published', async () => {
    const off = await startTestEngine({ gateway: { port: 0, pubsub: false }, extensions: [websocketTransport] })
    try {
      const seed = seedWorkspace(off.engine)
      const members: TestTerminal[] = []
      for (const id of ['a', 'b', 'c']) {
        seed.addClient(id, 'lobby')
        const token = (await off.engine.host.security.tokens.issue(seed.workspaceId, id, null)).token
        members.push(await TestTerminal.connect(off.engine.ports.gateway!, { token }, off.engine.host.tls.cert))
      }
      for (const m of members.slice(0, 2)) await m.event('participant.joined', (e) => e.participant.id === 'c')
      // A terminal's frames count from its `session` event on (before it they are dropped, `early`).
      for (const m of members) await m.event('session')
      members.forEach((m, j) => m.sendAudio(uplink([j, j])))
      for (const [j, m] of members.entries()) {
        await m.frames.next(() => m.frames.items.length >= 2)
        expect(m.frames.items.map((f) => parseDownlink(f)!.opus[0]).sort()).toEqual([0, 1, 2].filter((k) => k !== j))
      }
      expect(await routed(off.engine, 'out')).toBe(6)
      expect(await routed(off.engine, 'published')).toBe(0)
    } finally {
      await off.stop()
    }
  })
})
