import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { uplink } from '../../core/test/helpers.js'
import { connectDevice, RawClient, startMqttEngine } from './test/helpers.js'
import { filterMatches, isValidTopicFilter, topicNamespace } from './topics.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine()
  for (const id of ['a', 'b', 'c']) t.seed.addClient(id, 'lobby')
})
afterAll(() => t.stop())

describe('topic filters', () => {
  it.each([
    ['hark/a/down/#', 'hark/a/down/audio', true],
    ['hark/a/#', 'hark/a', true],
    ['hark/a/+/audio', 'hark/a/down/audio', true],
    ['hark/a/+', 'hark/a/down/audio', false],
    ['hark/a/down/events', 'hark/a/down/audio', false],
  ])('%s matches %s: %s', (filter, topic, expected) => expect(filterMatches(filter, topic)).toBe(expected))

  it.each([
    ['hark/a/#', true],
    ['hark/a/+/x', true],
    ['hark/a/#/x', false],
    ['hark/a/x#', false],
    ['hark/a/x+', false],
    ['', false],
  ])('%s is a valid filter: %s', (filter, expected) => expect(isValidTopicFilter(filter)).toBe(expected))
})

describe('namespace and ACL', () => {
  it('MQTT 3.1.1: SUBACK grants own filters (QoS 2 → 1) and refuses others with 0x80', async () => {
    const raw = await RawClient.open(t.port, 4)
    await raw.connect('a', await t.token('a'))
    raw.send({
      cmd: 'subscribe',
      messageId: 3,
      subscriptions: [
        { topic: 'hark/a/down/events', qos: 2 },
        { topic: 'hark/a/down/#', qos: 0 },
        { topic: 'hark/b/down/audio', qos: 0 },
        { topic: '#', qos: 0 },
        { topic: 'hark/+/down/audio', qos: 0 },
        { topic: '$SYS/#', qos: 0 },
      ],
    })
    expect((await raw.next('suback')).granted).toEqual([1, 0, 0x80, 0x80, 0x80, 0x80])
    raw.destroy()
  })

  it('mqtt.js hears a refused subscription as an error with the code', async () => {
    const a = await connectDevice(t.port, 'a', { password: await t.token('a'), protocolVersion: 5 })
    const error = await a.client.subscribeAsync('hark/b/down/events', { qos: 1 }).catch((e: Error) => e)
    expect(error).toMatchObject({ message: 'Subscribe error: Not authorized', packet: { granted: [0x87] } })
    await a.end()
  })

  it('MQTT 5: SUBACK refuses other namespaces with 0x87', async () => {
    const raw = await RawClient.open(t.port, 5)
    await raw.connect('a', await t.token('a'))
    raw.send({
      cmd: 'subscribe',
      messageId: 7,
      subscriptions: [
        { topic: 'hark/a/down/audio', qos: 1 },
        { topic: 'hark/b/#', qos: 0 },
        { topic: '$SYS/#', qos: 0 },
      ],
    })
    const suback = await raw.next('suback')
    expect(suback.messageId).toBe(7)
    expect(suback.granted).toEqual([1, 0x87, 0x87])
    raw.destroy()
  })

  it.each([4, 5] as const)('MQTT %s: a filter that is not a filter closes the connection, valid filters before it included', async (version) => {
    const raw = await RawClient.open(t.port, version)
    await raw.connect('a', await t.token('a'))
    raw.send({ cmd: 'subscribe', messageId: 8, subscriptions: [{ topic: 'hark/a/down/audio', qos: 0 }, { topic: 'hark/a/#/x', qos: 0 }] })
    await raw.closed
    const answers = raw.packets.items.filter((p) => p.cmd === 'suback' || p.cmd === 'disconnect')
    expect(answers).toEqual(version === 5 ? [expect.objectContaining({ cmd: 'disconnect', reasonCode: 0x81 })] : [])
  })

  it('MQTT 5: PUBLISH outside the namespace gets PUBACK 0x87 at QoS 1 and DISCONNECT 0x87 at QoS 0', async () => {
    const a = await connectDevice(t.port, 'a', { password: await t.token('a'), protocolVersion: 5 })
    await a.event('session')
    const refused = await a.client.publishAsync('hark/b/up/audio', Buffer.from([0x80, 1]), { qos: 1 }).catch((e: { code: number }) => e)
    expect(refused).toMatchObject({ code: 0x87 })
    // The connection is still up and working: a ping on the own control topic is answered.
    await a.client.publishAsync(a.ns.upControl, JSON.stringify({ type: 'ping', id: 'p1' }), { qos: 1 })
    expect(await a.event('pong')).toMatchObject({ id: 'p1' })
    a.client.publish('hark/a/down/events', 'x', { qos: 0 })
    const disconnect = await a.disconnects.next()
    expect(disconnect).toMatchObject({ cmd: 'disconnect', reasonCode: 0x87 })
    await a.closed
  })

  it('MQTT 3.1.1: PUBLISH outside the namespace closes the connection', async () => {
    const a = await connectDevice(t.port, 'a', { password: await t.token('a') })
    await a.event('session')
    a.client.publish('hark/b/up/control', '{}', { qos: 1 })
    await a.closed
    expect(t.engine.host.presence.isOnline(t.seed.workspaceId, 'a')).toBe(false)
  })

  it('an explicit SUBSCRIBE to the own topics works, and UNSUBSCRIBE from down/audio stops audio only', async () => {
    const a = await connectDevice(t.port, 'a', { password: await t.token('a') })
    const b = await connectDevice(t.port, 'b', { password: await t.token('b'), protocolVersion: 5 })
    await b.event('session')
    await a.event('participant.joined', (e) => e.participant.id === 'b')
    const granted = await b.client.subscribeAsync(b.ns.downAudio, { qos: 0 })
    expect(granted[0]?.qos).toBe(0)
    a.publishAudio(uplink([9]))
    expect([...parseDownlink(await b.audio.next())!.opus]).toEqual([9])
    await b.client.unsubscribeAsync(b.ns.downAudio)
    expect(await b.received.next((p) => p.cmd === 'unsuback')).toMatchObject({ granted: [0] })
    a.publishAudio(uplink([10]))
    // Events still arrive; audio does not (a later ping is answered and no frame 10 came before it).
    await b.client.publishAsync(b.ns.upControl, JSON.stringify({ type: 'ping', id: 'after' }), { qos: 1 })
    await a.client.publishAsync(a.ns.upControl, JSON.stringify({ type: 'ping', id: 'after-a' }), { qos: 1 })
    await a.event('pong', (e) => e.id === 'after-a')
    await b.event('pong', (e) => e.id === 'after')
    expect(b.audio.items.map((f) => parseDownlink(f)!.opus[0])).toEqual([9])
    await a.end()
    await b.end()
  })

  it('uses the clientId verbatim in the namespace', () => {
    const ns = topicNamespace('dev-1')
    expect({ prefix: ns.prefix, upAudio: ns.upAudio, upControl: ns.upControl, downAudio: ns.downAudio, downEvents: ns.downEvents }).toEqual({
      prefix: 'hark/dev-1/',
      upAudio: 'hark/dev-1/up/audio',
      upControl: 'hark/dev-1/up/control',
      downAudio: 'hark/dev-1/down/audio',
      downEvents: 'hark/dev-1/down/events',
    })
  })

  it('knows its two uplink topics without building them, and nothing else', () => {
    const ns = topicNamespace('dev-1')
    expect(ns.isUpAudio('hark/dev-1/up/audio')).toBe(true)
    expect(ns.isUpControl('hark/dev-1/up/control')).toBe(true)
    for (const other of ['hark/dev-1/up/control', 'hark/dev-2/up/audio', 'hark/dev-1/up/audio/x', 'xhark/dev-1/up/audio', 'hark/dev-1up/audio', 'hark/dev-1/down/audio']) {
      expect(ns.isUpAudio(other)).toBe(false)
    }
    expect(ns.isUpControl('hark/dev-10/up/control')).toBe(false)
  })
})
