import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { RecordingLink } from '../../core/test/helpers.js'
import { mqttTransport } from './index.js'
import { connectDevice, RawClient, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
let room: RecordingLink
// Will delays run on the engine's clock: they pass only when a test advances it.
const clock = new ManualClock(Date.now())
beforeAll(async () => {
  t = await startMqttEngine({}, [mqttTransport], { clock })
  for (const id of ['w', 'x', 'y', 'listener']) t.seed.addClient(id, 'lobby')
  room = new RecordingLink('test')
  t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token: await t.token('listener') }), room)
  await room.event('session')
})
afterAll(() => t.stop())

const wills = () => room.events.items.filter((e) => e.type === 'participant.will')
/** Round trip through the room: every event the room had queued before it has been delivered. */
let marks = 0
const settle = async () => {
  const id = `m${++marks}`
  t.engine.host.terminals.broadcast(t.seed.workspaceId, 'lobby', { type: 'pong', id, serverTime: 0 })
  await room.event('pong', (e) => e.id === id)
}

describe('will', () => {
  it('an ungraceful drop tells the room the will (UTF-8 payload as text)', async () => {
    const device = await connectDevice(t.port, 'w', {
      password: await t.token('w'),
      will: { topic: 'hark/w/status', payload: Buffer.from('{"state":"lost"}'), qos: 0, retain: false },
    })
    await room.event('participant.joined', (e) => e.participant.id === 'w')
    device.client.stream.destroy()
    const will = await room.event('participant.will')
    expect(will).toEqual({ type: 'participant.will', room: 'lobby', participantId: 'w', topic: 'hark/w/status', payload: '{"state":"lost"}', encoding: 'utf8' })
    await room.event('participant.left', (e) => e.participant.id === 'w')
  })

  it('a normal DISCONNECT publishes no will', async () => {
    const before = wills().length
    const device = await connectDevice(t.port, 'w', {
      password: await t.token('w'),
      will: { topic: 'hark/w/status', payload: Buffer.from('bye'), qos: 0, retain: false },
    })
    await room.event('participant.joined', (e) => e.participant.id === 'w' && room.events.items.filter((x) => x.type === 'participant.joined').length >= 2)
    await device.end()
    await settle()
    expect(wills()).toHaveLength(before)
  })

  it('MQTT 5: DISCONNECT with reason 0x04 publishes the will; a binary payload comes base64', async () => {
    const raw = await RawClient.open(t.port, 5)
    await raw.connect('x', await t.token('x'), { will: { topic: 'hark/x/will', payload: Buffer.from([0xff, 0x00, 0x10]), qos: 0, retain: false } })
    await raw.next('publish')
    raw.send({ cmd: 'disconnect', reasonCode: 0x04 })
    const will = await room.event('participant.will', (e) => e.participantId === 'x')
    expect(will).toMatchObject({ payload: Buffer.from([0xff, 0x00, 0x10]).toString('base64'), encoding: 'base64', topic: 'hark/x/will' })
  })

  it('MQTT 5: the Will Delay Interval holds the will back, and a reconnect within it cancels it', async () => {
    const before = wills().length
    // x: 60 s delay, reconnects at once (cancelled). y: 120 s delay, never returns (delivered).
    // Minutes of the engine's clock: far longer than the test runs in real time.
    const x = await RawClient.open(t.port, 5)
    await x.connect('x', await t.token('x'), {
      clean: false,
      properties: { sessionExpiryInterval: 600 },
      will: { topic: 'hark/x/will', payload: Buffer.from('x gone'), qos: 0, retain: false, properties: { willDelayInterval: 60 } },
    })
    const y = await RawClient.open(t.port, 5)
    await y.connect('y', await t.token('y'), {
      clean: false,
      properties: { sessionExpiryInterval: 600 },
      will: { topic: 'hark/y/will', payload: Buffer.from('y gone'), qos: 0, retain: false, properties: { willDelayInterval: 120 } },
    })
    x.destroy()
    y.destroy()
    await room.event('participant.left', (e) => e.participant.id === 'x')
    await room.event('participant.left', (e) => e.participant.id === 'y')
    const back = await RawClient.open(t.port, 5)
    await back.connect('x', await t.token('x'), { clean: false, properties: { sessionExpiryInterval: 60 } })
    clock.advance(119_999)
    await settle()
    expect(wills()).toHaveLength(before)
    clock.advance(1)
    const will = await room.event('participant.will', (e) => e.participantId === 'y')
    expect(will).toMatchObject({ payload: 'y gone' })
    expect(wills().slice(before).map((e) => (e.type === 'participant.will' ? e.participantId : ''))).toEqual(['y'])
    back.destroy()
  })
})
