import { generate } from 'mqtt-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { RecordingLink, uplink } from '../../core/test/helpers.js'
import { OutputBuffer } from './outputBuffer.js'
import { PublishTemplate } from './publishTemplate.js'
import { connectDevice, RawClient, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine()
  for (const id of ['a', 'b', 'c', 'web', 'alias', 'lone']) t.seed.addClient(id, 'lobby')
  t.seed.addClient('elsewhere', 'other')
})
afterAll(() => t.stop())

describe('downlink PUBLISH framing', () => {
  it.each([4, 5] as const)('MQTT %s: the template writes exactly what mqtt-packet encodes', (version) => {
    for (const size of [7, 126, 127, 128, 300, 16_383, 16_390]) {
      const frame = Uint8Array.from({ length: size }, (_, i) => i & 0xff)
      const template = new PublishTemplate('hark/dev-1/down/audio', version === 5)
      const out = new OutputBuffer()
      out.audio(template, frame, template.size(frame.length))
      out.packet(Buffer.from([0xd0, 0x00]))
      out.audio(template, frame, template.size(frame.length))
      const expected = generate(
        { cmd: 'publish', topic: 'hark/dev-1/down/audio', payload: Buffer.from(frame), qos: 0, dup: false, retain: false },
        { protocolVersion: version },
      )
      expect(out.drain()).toEqual(Buffer.concat([expected, Buffer.from([0xd0, 0x00]), expected]))
    }
  })
})

describe('audio', () => {
  it('an MQTT 3.1.1 device and an MQTT 5 device in one room hear each other with source ids', async () => {
    const a = await connectDevice(t.port, 'a', { password: await t.token('a') })
    const b = await connectDevice(t.port, 'b', { password: t.devicePassword('b'), protocolVersion: 5 })
    const sa = await a.event('session')
    const sb = await b.event('session')
    await a.event('participant.joined', (e) => e.participant.id === 'b')
    a.publishAudio(uplink([1, 2, 3], 0x80 | 12))
    const atB = parseDownlink(await b.audio.next())!
    expect(atB).toMatchObject({ sourceId: sa.sourceId, levelByte: 0x80 | 12, seq: 0 })
    expect([...atB.opus]).toEqual([1, 2, 3])
    b.publishAudio(uplink([4, 5]))
    b.publishAudio(uplink([6]))
    const frames = [await a.audio.next(), await a.audio.next((f) => parseDownlink(f)!.seq === 1)]
    expect(frames.map((f) => parseDownlink(f)!.sourceId)).toEqual([sb.sourceId, sb.sourceId])
    expect(frames.map((f) => [...parseDownlink(f)!.opus])).toEqual([[4, 5], [6]])
    expect(a.audio.items.every((f) => parseDownlink(f)!.sourceId !== sa.sourceId)).toBe(true)
    await a.end()
    await b.end()
  })

  it('an MQTT device and a terminal of another transport (core RecordingLink) exchange audio', async () => {
    const device = await connectDevice(t.port, 'c', { password: await t.token('c'), protocolVersion: 5 })
    const deviceSession = await device.event('session')
    const link = new RecordingLink('websocket')
    const identity = await t.engine.host.security.authenticateTerminal({ token: await t.token('web') })
    const web = t.engine.host.terminals.open(identity, link)
    const webSession = await link.event('session')
    await device.event('participant.joined', (e) => e.participant.id === 'web')
    device.publishAudio(uplink([11, 12]))
    expect(parseDownlink(await link.frames.next())).toMatchObject({ sourceId: deviceSession.sourceId })
    web.pushAudio(uplink([21, 22, 23]))
    const heard = parseDownlink(await device.audio.next())!
    expect(heard.sourceId).toBe(webSession.type === 'session' ? webSession.sourceId : -1)
    expect([...heard.opus]).toEqual([21, 22, 23])
    web.end()
    await device.event('participant.left', (e) => e.participant.id === 'web')
    await device.end()
  })

  it('MQTT 5: uplink audio with a topic alias set by the client', async () => {
    const device = await connectDevice(t.port, 'alias', { password: await t.token('alias'), protocolVersion: 5 })
    const peer = new RecordingLink('test')
    t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token: await t.token('lone') }), peer)
    await device.event('participant.joined', (e) => e.participant.id === 'lone')
    device.client.publish(device.ns.upAudio, Buffer.from(uplink([1])), { qos: 0, properties: { topicAlias: 3 } })
    device.client.publish('', Buffer.from(uplink([2])), { qos: 0, properties: { topicAlias: 3 } })
    device.client.publish('', Buffer.from(uplink([3])), { qos: 0, properties: { topicAlias: 3 } })
    await peer.frames.next((f) => parseDownlink(f)!.opus[0] === 3)
    expect(peer.frames.items.map((f) => parseDownlink(f)!.opus[0])).toEqual([1, 2, 3])
    await device.end()
  })

  it('audio from a room does not reach another room', async () => {
    const a = await connectDevice(t.port, 'a', { password: await t.token('a') })
    const other = await connectDevice(t.port, 'elsewhere', { password: await t.token('elsewhere') })
    await other.event('session')
    const peer = await RawClient.open(t.port, 4)
    await peer.connect('b', await t.token('b'))
    await a.event('participant.joined', (e) => e.participant.id === 'b')
    a.publishAudio(uplink([77]))
    await peer.next('publish', (p) => p.topic === 'hark/b/down/audio')
    other.client.publish(other.ns.upControl, JSON.stringify({ type: 'ping', id: 'z' }))
    await other.event('pong')
    expect(other.audio.items).toEqual([])
    peer.destroy()
    await a.end()
    await other.end()
  })
})

describe('uplink audio rate', () => {
  it('drops frames beyond the burst of 50 (100/s sustained) and counts them; the session goes on', async () => {
    t.seed.addClient('fast', 'rate-room')
    t.seed.addClient('ear', 'rate-room')
    const ear = new RecordingLink('test')
    t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token: await t.token('ear') }), ear)
    const fast = await connectDevice(t.port, 'fast', { password: await t.token('fast'), protocolVersion: 5 })
    await fast.event('session')
    await ear.event('participant.joined', (e) => e.participant.id === 'fast')
    for (let i = 0; i < 80; i++) fast.publishAudio(uplink([i]))
    // The server handles the packets of one connection in order: once the pong is back, every frame was routed or dropped.
    fast.client.publish(fast.ns.upControl, JSON.stringify({ type: 'ping', id: 'after-burst' }))
    await fast.event('pong', (e) => e.id === 'after-burst')
    const delivered = ear.frames.items.length
    expect(delivered).toBeGreaterThanOrEqual(50)
    expect(delivered).toBeLessThan(80)
    const metrics = await t.engine.host.metrics.getSingleMetricAsString('hark_audio_frames_dropped_total')
    expect(metrics).toContain(`hark_audio_frames_dropped_total{transport="mqtt",reason="rate"} ${80 - delivered}`)
    await fast.end()
  })
})
