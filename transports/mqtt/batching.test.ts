/**
 * Downlink writes (spec/mqtt.md, Output): what one connection has queued leaves in one socket
 * write, in order; a socket that stops taking data falls back to its stream, drops audio and
 * counts it, and what it gets later is still whole and in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { RecordingLink, uplink } from '../../core/test/helpers.js'
import { RawClient, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine()
  for (const id of ['talker', 'ear', 'slow-talker', 'slow']) t.seed.addClient(id, id.startsWith('slow') ? 'slow-room' : 'batch-room')
})
afterAll(() => t.stop())

/** A counter's value (of the series whose labels contain `labels`); 0 before it has one. */
const metric = async (name: string, labels = ''): Promise<number> => {
  const text = await t.engine.host.metrics.getSingleMetricAsString(name)
  const line = text.split('\n').find((l) => l.startsWith(name) && l.includes(labels))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1))
}
const backpressureDrops = () => metric('hark_audio_frames_dropped_total', 'transport="mqtt",reason="backpressure"')

/** A talker in the hub (no socket of its own) and a raw MQTT device in the same room. */
const roomWithDevice = async (talkerId: string, deviceId: string) => {
  const device = await RawClient.open(t.port, 4)
  await device.connect(deviceId, await t.token(deviceId))
  const link = new RecordingLink('test')
  const talker = t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token: await t.token(talkerId) }), link)
  await device.next('publish', (p) => p.topic === `hark/${deviceId}/down/events` && String(p.payload).includes('"participant.joined"'))
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
