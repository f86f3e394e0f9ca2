/**
 * Downlink writes (spec/mqtt.md, Output): what one connection has queued leaves in one socket
 * write, in order; a socket that stops taking data falls back to its stream, drops audio and
 * counts it, and what it gets later is still whole and in order. With an audio budget
 * (`mqtt.audioBatchMs`), audio waits only for a receiver that had audio written within it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { RecordingLink, uplink } from '../../core/test/helpers.js'
import { RawClient, startMqttEngine } from './test/helpers.js'

type Engine = Awaited<ReturnType<typeof startMqttEngine>>
/** `t` writes at the end of each turn (the default); `budget` has a 50 ms audio budget. */
let t: Engine
let budget: Engine
const BUDGET_MS = 50
beforeAll(async () => {
  t = await startMqttEngine()
  for (const id of ['talker', 'ear', 'slow-talker', 'slow']) t.seed.addClient(id, id.startsWith('slow') ? 'slow-room' : 'batch-room')
  budget = await startMqttEngine({ audioBatchMs: BUDGET_MS })
  for (const id of ['budget-talker', 'budget-ear', 'held-talker', 'held-ear']) budget.seed.addClient(id, id.startsWith('held') ? 'held-room' : 'budget-room')
  budget.seed.addClient('pinger', 'ping-room')
})
afterAll(() => Promise.all([t.stop(), budget.stop()]))

/** A counter's value (of the series whose labels contain `labels`); 0 before it has one. */
const metric = async (name: string, labels = '', engine = t): Promise<number> => {
  const text = await engine.engine.host.metrics.getSingleMetricAsString(name)
  const line = text.split('\n').find((l) => l.startsWith(name) && l.includes(labels))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1))
}
const backpressureDrops = () => metric('hark_audio_frames_dropped_total', 'transport="mqtt",reason="backpressure"')
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/** A talker in the hub (no socket of its own) and a raw MQTT device in the same room. */
const roomWithDevice = async (talkerId: string, deviceId: string, engine = t) => {
  const device = await RawClient.open(engine.port, 4)
  await device.connect(deviceId, await engine.token(deviceId))
  const link = new RecordingLink('test')
  const host = engine.engine.host
  const talker = host.terminals.open(await host.security.authenticateTerminal({ token: await engine.token(talkerId) }), link)
  await device.next('publish', (p) => p.topic === `hark/${deviceId}/down/events` && String(p.payload).includes('"participant.joined"'))
  // A terminal's frames count from its `session` event on (before it they are dropped, `early`).
  await link.event('session')
  return { device, talker }
}

describe('MQTT output batching', () => {
  it('several frames to one socket in one turn leave in one write and arrive in order', async () => {
    const { device, talker } = await roomWithDevice('talker', 'ear')
    // Let every packet of the join go out first: a ping answered means the socket is idle.
    device.send({ cmd: 'pingreq' })
    await device.next('pingresp')
    const before = await metric('hark_mqtt_writes_total')
    for (let i = 0; i < 5; i++) talker.pushAudio(uplink([i, i + 1]))
    const received: Array<{ payload: Buffer | string }> = []
    for (let i = 0; i < 5; i++) received.push(await device.next('publish', (p) => p.topic === 'hark/ear/down/audio' && !received.includes(p)))
    expect(received.map((p) => [...parseDownlink(p.payload as Buffer)!.opus])).toEqual([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]])
    expect(await metric('hark_mqtt_writes_total')).toBe(before + 1)
    talker.end()
    device.destroy()
  })

  it('a socket that stops reading: audio is dropped and counted, what arrives later is whole and in order', async () => {
    const { device, talker } = await roomWithDevice('slow-talker', 'slow')
    const droppedBefore = await backpressureDrops()
    device.socket.pause()
    // 1 KB frames, 16 per turn (a quarter of the 64 KB audio backlog: no turn drops on its own),
    // until the kernel's buffers are full, the socket's stream holds the rest and audio is dropped.
    const opus = Array.from({ length: 1000 }, (_, i) => i & 0xff)
    for (let turn = 0; turn < 5000 && (await backpressureDrops()) === droppedBefore; turn++) {
      for (let i = 0; i < 16; i++) talker.pushAudio(uplink(opus))
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(await backpressureDrops()).toBeGreaterThan(droppedBefore)
    device.socket.resume()
    // More frames while the backlog drains: they must queue behind it, not overtake it.
    for (let turn = 0; turn < 50; turn++) {
      for (let i = 0; i < 4; i++) talker.pushAudio(uplink(opus.slice(0, 50)))
      await new Promise((resolve) => setImmediate(resolve))
    }
    // A marker, again until the backlog has drained enough to take it (each try waits for it).
    const isMarker = (p: { topic: string; payload: Buffer | string }) => p.topic === 'hark/slow/down/audio' && p.payload.length < 10
    let last: { payload: Buffer | string } | null = null
    for (let i = 0; i < 100 && last === null; i++) {
      talker.pushAudio(uplink([7, 7, 7]))
      last = await device.next('publish', isMarker, 250).catch(() => null)
    }
    expect(last).not.toBeNull()
    const frames = device.packets.items.filter((p) => p.cmd === 'publish' && p.topic === 'hark/slow/down/audio')
    const seqs = frames.map((p) => parseDownlink((p as { payload: Buffer }).payload)!.seq)
    // Frames were dropped, never reordered or torn: sequence numbers only go up, every payload parses.
    expect(frames.length).toBeGreaterThan(1)
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]!).toBeGreaterThan(seqs[i - 1]!)
    expect([...parseDownlink(last!.payload as Buffer)!.opus]).toEqual([7, 7, 7])
    talker.end()
    device.destroy()
  })
})

describe('MQTT audio budget (mqtt.audioBatchMs)', () => {
  const writes = () => metric('hark_mqtt_writes_total', '', budget)
  const isAudio = (p: { topic: string }) => p.topic.endsWith('/down/audio')
  const opusOf = (p: { payload: Buffer | string }) => [...parseDownlink(p.payload as Buffer)!.opus]
  /** A frame without voice: no speaking events, so the device gets audio and nothing else. */
  const silent = (opus: number[]) => uplink(opus, 0)
  /** Where the device received the frame `marker`, waiting for it (arrival order: the packets' index). */
  const received = async (device: RawClient, marker: number) => {
    const packet = await device.next('publish', (p) => isAudio(p) && opusOf(p)[0] === marker)
    return device.packets.items.indexOf(packet)
  }

  it('audio to a receiver not written to within the budget leaves at the end of its turn; later frames wait and leave together, in order, before an event', async () => {
    const { device, talker } = await roomWithDevice('budget-talker', 'budget-ear', budget)
    device.send({ cmd: 'pingreq' })
    await device.next('pingresp')
    // The first frame this receiver ever gets: nothing waits, the write is made in this turn.
    let before = await writes()
    // Before the push, so before the write: what follows within the budget of this is within the budget of the write.
    let lastPushAt = performance.now()
    talker.pushAudio(silent([1]))
    await nextTurn()
    expect(await writes()).toBe(before + 1)
    expect(await received(device, 1)).toBeGreaterThan(-1)
    // The next frames come within the budget of that write: they wait for it and leave in one
    // write. The checks hold only if no stall longer than the budget came between: if one did,
    // the try is repeated.
    let marker = 10
    for (let attempt = 0; ; attempt++) {
      expect(attempt).toBeLessThan(20)
      before = await writes()
      const first = ++marker
      talker.pushAudio(silent([first]))
      await nextTurn()
      const heldAfterOneTurn = (await writes()) === before
      talker.pushAudio(silent([++marker]))
      const withinBudget = performance.now() - lastPushAt < BUDGET_MS
      expect(await received(device, first)).toBeLessThan(await received(device, first + 1))
      if (!withinBudget) {
        // A stall: the frames may have gone separately; start over from a fresh write.
        lastPushAt = performance.now()
        talker.pushAudio(silent([0]))
        await received(device, 0)
        continue
      }
      expect(heldAfterOneTurn).toBe(true)
      expect(await writes()).toBe(before + 1)
      break
    }
    // A control packet does not wait: an event queued behind waiting audio takes it along at the
    // end of the turn, audio first (one buffer, in the order queued).
    talker.pushAudio(silent([99]))
    talker.end()
    const left = await device.next('publish', (p) => p.topic === 'hark/budget-ear/down/events' && String(p.payload).includes('"participant.left"'))
    expect(await received(device, 99)).toBeLessThan(device.packets.items.indexOf(left))
    device.destroy()
  })

  it("another connection's control packet does not take waiting audio along: it waits for its budget", async () => {
    const { device, talker } = await roomWithDevice('held-talker', 'held-ear', budget)
    const pinger = await RawClient.open(budget.port, 4)
    await pinger.connect('pinger', await budget.token('pinger'))
    let marker = 0
    // Each try: a frame written at once, then one within the budget (it waits), then a ping from
    // the other device answered before the budget is up. Repeated if a stall made it too late.
    for (let attempt = 0; ; attempt++) {
      expect(attempt).toBeLessThan(20)
      const pushedAt = performance.now()
      talker.pushAudio(silent([++marker]))
      await nextTurn()
      const before = await writes()
      talker.pushAudio(silent([++marker]))
      const pings = pinger.packets.items.length
      pinger.send({ cmd: 'pingreq' })
      await pinger.packets.next((p) => p.cmd === 'pingresp' && pinger.packets.items.indexOf(p) >= pings)
      const afterPing = await writes()
      const inTime = performance.now() - pushedAt < BUDGET_MS
      await received(device, marker)
      if (!inTime) continue
      // Only the PINGRESP was written: the waiting frame was not.
      expect(afterPing).toBe(before + 1)
      break
    }
    talker.end()
    device.destroy()
    pinger.destroy()
  })
})
