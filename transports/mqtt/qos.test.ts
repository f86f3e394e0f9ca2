import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../../core/events.js'
import { ManualClock } from '../../core/clock.js'
import { mqttTransport } from './index.js'
import { connectDevice, RawClient, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine({ maxInflight: 2, maxQueuedEvents: 50 })
  t.seed.addClient('q', 'lobby')
  // Alone in their rooms: no other member's join or leave takes a slot of their inflight window.
  for (const id of ['r', 's', 'q2']) t.seed.addClient(id, `solo-${id}`)
})
afterAll(() => t.stop())

const eventOf = (p: { payload: Buffer | string }) => JSON.parse(p.payload.toString()) as ServerEvent
const ping = (id: string) => Buffer.from(JSON.stringify({ type: 'ping', id }))

describe('QoS', () => {
  it.each([4, 5] as const)('MQTT %s: a QoS 1 control message is acknowledged and answered by a QoS 1 event', async (protocolVersion) => {
    const device = await connectDevice(t.port, 'q', { password: await t.token('q'), protocolVersion })
    await device.event('session')
    const sent = await device.client.publishAsync(device.ns.upControl, ping('rt'), { qos: 1 })
    expect(await device.received.next((p) => p.cmd === 'puback' && p.messageId === sent?.messageId)).toBeTruthy()
    const pong = await device.messages.next((m) => m.topic === device.ns.downEvents && eventOf(m).type === 'pong')
    expect(pong.packet).toMatchObject({ qos: 1 })
    expect(eventOf(pong)).toMatchObject({ type: 'pong', id: 'rt' })
    await device.end()
  })

  it('MQTT 5: a control message of unknown type gets an error event and PUBACK 0x99; the session goes on', async () => {
    const device = await connectDevice(t.port, 'q', { password: await t.token('q'), protocolVersion: 5 })
    await device.event('session')
    const refused = await device.client
      .publishAsync(device.ns.upControl, JSON.stringify({ type: 'nope', id: 'n1' }), { qos: 1 })
      .catch((e: { code: number }) => e)
    expect(refused).toMatchObject({ code: 0x99 })
    expect(await device.event('error')).toMatchObject({ code: 'validation_failed', id: 'n1' })
    await device.client.publishAsync(device.ns.upControl, ping('still-here'), { qos: 0 })
    await device.event('pong', (e) => e.id === 'still-here')
    await device.end()
  })

  it.each([
    ['not JSON', 'protocol_error', 0x82, () => [Buffer.from('not json')]],
    ['larger than 4096 bytes', 'frame_too_large', 0x95, () => [Buffer.from(JSON.stringify({ type: 'ping', pad: 'x'.repeat(5000) }))]],
    ['more than 40 at once (20/s sustained)', 'rate_limited', 0x96, () => Array.from({ length: 45 }, (_, i) => ping(`r${i}`))],
  ] as const)('MQTT 5: a control message %s closes the session with %s (DISCONNECT %i)', async (_what, code, reason, payloads) => {
    const device = await connectDevice(t.port, 'q', { password: await t.token('q'), protocolVersion: 5 })
    await device.event('session')
    for (const payload of payloads()) device.client.publish(device.ns.upControl, payload, { qos: 0 })
    expect(await device.event('session.closing')).toMatchObject({ code })
    expect(await device.disconnects.next()).toMatchObject({ reasonCode: reason })
    await device.closed
  })

  it('keeps at most maxInflight QoS 1 events unacknowledged, sends the rest on PUBACK', async () => {
    const raw = await RawClient.open(t.port, 4)
    await raw.connect('r', await t.token('r'))
    const first = await raw.next('publish', (p) => eventOf(p).type === 'session')
    expect(first.qos).toBe(1)
    for (const id of ['a', 'b', 'c']) raw.send({ cmd: 'publish', topic: 'hark/r/up/control', payload: ping(id), qos: 0, dup: false, retain: false })
    const second = await raw.next('publish', (p) => eventOf(p).type === 'pong')
    expect(eventOf(second)).toMatchObject({ id: 'a' })
    // Window of 2 is full (session + pong a): pong b waits for a PUBACK. A PINGRESP proves the
    // server has handled the three pings before we look.
    raw.send({ cmd: 'pingreq' })
    await raw.next('pingresp')
    expect(raw.packets.items.filter((p) => p.cmd === 'publish')).toHaveLength(2)
    raw.send({ cmd: 'puback', messageId: first.messageId! })
    expect(eventOf(await raw.next('publish', (p) => eventOf(p).type === 'pong' && JSON.parse(p.payload.toString()).id === 'b'))).toMatchObject({ id: 'b' })
    raw.send({ cmd: 'pingreq' })
    await raw.packets.next((p) => p.cmd === 'pingresp' && raw.packets.items.filter((q) => q.cmd === 'pingresp').length === 2)
    expect(raw.packets.items.filter((p) => p.cmd === 'publish')).toHaveLength(3)
    raw.destroy()
  })

  it('resends unacknowledged events with DUP and the same packet identifier when a session resumes', async () => {
    const first = await RawClient.open(t.port, 4)
    const connack = await first.connect('s', await t.token('s'), { clean: false })
    expect(connack.sessionPresent).toBe(false)
    const session = await first.next('publish', (p) => eventOf(p).type === 'session')
    expect(session.dup).toBe(false)
    first.destroy()
    await first.closed

    const second = await RawClient.open(t.port, 4)
    const resumed = await second.connect('s', await t.token('s'), { clean: false })
    expect(resumed.sessionPresent).toBe(true)
    const again = await second.next('publish', (p) => p.dup)
    expect(again.messageId).toBe(session.messageId)
    expect(eventOf(again)).toEqual(eventOf(session))
    // …and then the new connection's own `session` event.
    const fresh = await second.next('publish', (p) => !p.dup && eventOf(p).type === 'session')
    expect(fresh.messageId).not.toBe(session.messageId)
    second.destroy()
    await second.closed

    const clean = await RawClient.open(t.port, 4)
    expect((await clean.connect('s', await t.token('s'), { clean: true })).sessionPresent).toBe(false)
    clean.destroy()
  })

  it('MQTT 5: a subscription at QoS 2 is granted 1; a QoS 2 publish runs PUBREC / PUBREL / PUBCOMP once', async () => {
    const raw = await RawClient.open(t.port, 5)
    await raw.connect('q2', await t.token('q2'))
    raw.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'hark/q2/down/events', qos: 2 }] })
    expect((await raw.next('suback')).granted).toEqual([1])
    const control = { cmd: 'publish' as const, topic: 'hark/q2/up/control', payload: ping('x2'), qos: 2 as const, messageId: 9, retain: false }
    raw.send({ ...control, dup: false })
    expect(await raw.next('pubrec')).toMatchObject({ messageId: 9 })
    raw.send({ ...control, dup: true }) // resent before PUBREL: acknowledged again, not handled again
    await raw.packets.next((p) => p.cmd === 'pubrec' && raw.packets.items.filter((q) => q.cmd === 'pubrec').length === 2)
    raw.send({ cmd: 'pubrel', messageId: 9, reasonCode: 0 })
    expect(await raw.next('pubcomp')).toMatchObject({ messageId: 9, reasonCode: 0 })
    raw.send({ cmd: 'pingreq' })
    await raw.next('pingresp')
    expect(raw.packets.items.filter((p) => p.cmd === 'publish' && eventOf(p).type === 'pong')).toHaveLength(1)
    raw.destroy()
  })
})

describe('keepalive, on the engine clock', () => {
  // An engine of its own whose clock moves only when a test says so: no test waits in real time.
  let k: Awaited<ReturnType<typeof startMqttEngine>>
  let clock: ManualClock
  beforeAll(async () => {
    clock = new ManualClock(Date.now())
    k = await startMqttEngine({}, [mqttTransport], { clock })
    for (const id of ['k', 'k5', 'alive']) k.seed.addClient(id, 'lobby')
  })
  afterAll(() => k.stop())
  const online = (clientId: string) => k.engine.host.presence.isOnline(k.seed.workspaceId, clientId)

  it('MQTT 3.1.1: silence for 1.5 x keepalive closes the connection, not a moment before', async () => {
    const raw = await RawClient.open(k.port, 4)
    await raw.connect('k', await k.token('k'), { keepalive: 1 })
    clock.advance(1499)
    expect(online('k')).toBe(true)
    clock.advance(1)
    expect(online('k')).toBe(false)
    await raw.closed
    expect(raw.packets.items.some((p) => p.cmd === 'disconnect')).toBe(false)
  })

  it('MQTT 5: silence for 1.5 x keepalive sends DISCONNECT 0x8D, then closes', async () => {
    const raw = await RawClient.open(k.port, 5)
    await raw.connect('k5', await k.token('k5'), { keepalive: 1 })
    clock.advance(1499)
    expect(online('k5')).toBe(true)
    clock.advance(1)
    expect(await raw.next('disconnect')).toMatchObject({ reasonCode: 0x8d })
    await raw.closed
  })

  it('PINGREQ keeps a connection alive and is answered; silence after it still closes it', async () => {
    const raw = await RawClient.open(k.port, 4)
    await raw.connect('alive', await k.token('alive'), { keepalive: 1 })
    // Four keepalive periods with a ping in each: the connection stays.
    for (let i = 1; i <= 8; i++) {
      clock.advance(500)
      raw.send({ cmd: 'pingreq' })
      await raw.packets.next((p) => p.cmd === 'pingresp' && raw.packets.items.filter((q) => q.cmd === 'pingresp').length === i)
    }
    expect(online('alive')).toBe(true)
    // Then nothing: closed within 1.5 to 2 x keepalive of the last ping, never sooner.
    clock.advance(1499)
    expect(online('alive')).toBe(true)
    clock.advance(501)
    expect(online('alive')).toBe(false)
    await raw.closed
  })
})

describe('keepalive on shared timers', () => {
  let k: Awaited<ReturnType<typeof startMqttEngine>>
  let clock: ManualClock
  beforeAll(async () => {
    clock = new ManualClock(Date.now())
    k = await startMqttEngine({}, [mqttTransport], { clock })
    for (const id of ['early', 'late']) k.seed.addClient(id, 'lobby')
  })
  afterAll(() => k.stop())
  const online = (clientId: string) => k.engine.host.presence.isOnline(k.seed.workspaceId, clientId)

  it('a device joining a running keepalive timer mid-period is still closed no sooner than 1.5 x keepalive, and no later than 2 x', async () => {
    const early = await RawClient.open(k.port, 4)
    await early.connect('early', await k.token('early'), { keepalive: 1 })
    // The shared timer of 1 s devices runs from here; the next device comes 300 ms into its half period.
    clock.advance(300)
    const late = await RawClient.open(k.port, 4)
    await late.connect('late', await k.token('late'), { keepalive: 1 })
    clock.advance(1200)
    expect(online('early')).toBe(false)
    await early.closed
    // 1.5 s after its CONNECT, minus a moment: the first look after it joined did not count.
    clock.advance(299)
    expect(online('late')).toBe(true)
    clock.advance(201)
    expect(online('late')).toBe(false)
    await late.closed
  })
})

describe('a receiver that stops acknowledging', () => {
  it('is closed with receiver_too_slow (MQTT 5: DISCONNECT 0x97) once its event queue overflows', async () => {
    const t2 = await startMqttEngine({ maxInflight: 2, maxQueuedEvents: 5 })
    try {
      t2.seed.addClient('mute', 'solo-mute')
      const raw = await RawClient.open(t2.port, 5)
      await raw.connect('mute', await t2.token('mute'))
      await raw.next('publish', (p) => eventOf(p).type === 'session')
      // Never acknowledged: session + 1 pong fill the window, 5 more queue, the next one overflows.
      for (let i = 0; i < 8; i++) raw.send({ cmd: 'publish', topic: 'hark/mute/up/control', payload: ping(`m${i}`), qos: 0, dup: false, retain: false })
      expect(await raw.next('disconnect')).toMatchObject({ reasonCode: 0x97 })
      await raw.closed
      const closing = raw.packets.items.flatMap((p) => (p.cmd === 'publish' ? [eventOf(p)] : [])).find((e) => e.type === 'session.closing')
      expect(closing).toMatchObject({ code: 'receiver_too_slow' })
      expect(raw.packets.items.filter((p) => p.cmd === 'publish' && p.qos === 1)).toHaveLength(2)
    } finally {
      await t2.stop()
    }
  })
})
