import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { mqttTransport } from './index.js'
import { connectBytes, connectDevice, RawClient, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine()
  for (const id of ['tok', 'dev', 'other', 'revoked', 'anon']) t.seed.addClient(id, 'lobby')
})
afterAll(() => t.stop())

let serial = 0

const refusalCode = async (promise: Promise<unknown>): Promise<number> => {
  try {
    await promise
  } catch (e) {
    return (e as { code: number }).code
  }
  throw new Error('the connection was accepted')
}

describe('CONNECT', () => {
  it.each([4, 5] as const)('MQTT %s: a client token logs in and the downlink is subscribed for it', async (protocolVersion) => {
    const device = await connectDevice(t.port, 'tok', { password: await t.token('tok'), protocolVersion })
    const session = await device.event('session')
    expect(session).toMatchObject({ type: 'session', protocol: 1, clientId: 'tok', room: 'lobby', audio: { codec: 'opus' } })
    expect(t.engine.host.presence.get(t.seed.workspaceId, 'tok')?.transport).toBe('mqtt')
    await device.end()
  })

  it.each([4, 5] as const)('MQTT %s: a device password logs in', async (protocolVersion) => {
    const device = await connectDevice(t.port, 'dev', { password: t.devicePassword('dev'), protocolVersion })
    expect(await device.event('session')).toMatchObject({ clientId: 'dev', room: 'lobby' })
    await device.end()
  })

  it('MQTT 5: an empty client identifier and no user name are accepted; the identifier is assigned', async () => {
    const raw = await RawClient.open(t.port, 5)
    raw.write(connectBytes({ version: 5, clientId: '', password: await t.token('anon') }))
    const connack = await raw.next('connack')
    expect(connack.reasonCode).toBe(0)
    expect(connack.properties).toMatchObject({
      assignedClientIdentifier: 'anon',
      retainAvailable: false,
      sharedSubscriptionAvailable: false,
      subscriptionIdentifiersAvailable: false,
      wildcardSubscriptionAvailable: true,
      maximumPacketSize: 16_384,
      receiveMaximum: 16,
    })
    const event = await raw.next('publish', (p) => p.topic === 'hark/anon/down/events')
    expect(JSON.parse(event.payload.toString())).toMatchObject({ type: 'session', clientId: 'anon' })
    raw.destroy()
  })

  it('MQTT 5: keepalive 0 is answered with Server Keep Alive', async () => {
    const raw = await RawClient.open(t.port, 5)
    const connack = await raw.connect('anon', await t.token('anon'), { keepalive: 0 })
    expect(connack.properties?.serverKeepAlive).toBe(1200)
    raw.destroy()
  })

  describe('refusals carry the version\'s CONNACK code', () => {
    const cases: Array<[string, () => Promise<Record<string, unknown>>, number, number]> = [
      ['a malformed token', async () => ({ password: 'not-a-jwt' }), 0x86, 0x04],
      ['an unknown device password', async () => ({ password: 'hkd_' + 'x'.repeat(24) }), 0x86, 0x04],
      ['no password', async () => ({ password: undefined }), 0x86, 0x04],
      ['a user name of another client', async () => ({ password: await t.token('tok'), username: 'other' }), 0x86, 0x04],
      ['a client identifier of another client', async () => ({ password: await t.token('tok'), clientId: 'other' }), 0x85, 0x02],
      ['a will outside the namespace', async () => ({ password: await t.token('tok'), will: { topic: 'hark/other/x', payload: 'bye', qos: 0, retain: false } }), 0x87, 0x05],
      ['a token of a deleted client', async () => {
        const clientId = `gone-${++serial}`
        t.seed.addClient(clientId, 'lobby')
        const password = await t.token(clientId)
        t.seed.deleteClient(clientId)
        return { password, clientId, username: clientId }
      }, 0x87, 0x05],
      ['a revoked token', async () => {
        const issued = await t.engine.host.security.tokens.issue(t.seed.workspaceId, 'revoked', null)
        t.engine.host.security.tokens.revoke(t.seed.workspaceId, issued.jti)
        return { password: issued.token, clientId: 'revoked', username: 'revoked' }
      }, 0x87, 0x05],
    ]
    it.each(cases)('%s', async (_what, options, v5, v311) => {
      for (const [protocolVersion, expected] of [[5, v5], [4, v311]] as const) {
        const o = await options()
        const code = await refusalCode(connectDevice(t.port, 'tok', { protocolVersion, ...o }))
        expect(code, `MQTT ${protocolVersion}`).toBe(expected)
      }
    })
  })

  it('MQTT 3.1.1: an empty client identifier with Clean Session 0 is refused with 0x02', async () => {
    const raw = await RawClient.open(t.port, 4)
    raw.write(connectBytes({ version: 4, clientId: '', username: 'tok', password: await t.token('tok'), clean: false }))
    const connack = await raw.next('connack')
    expect(connack.returnCode).toBe(0x02)
    await raw.closed
  })

  it('MQTT 5: enhanced authentication and a retained will are refused with 0x8C and 0x9A', async () => {
    const raw = await RawClient.open(t.port, 5)
    const connack = await raw.connect('tok', await t.token('tok'), { properties: { authenticationMethod: 'SCRAM-SHA-1' } })
    expect(connack.reasonCode).toBe(0x8c)
    await raw.closed
    const raw2 = await RawClient.open(t.port, 5)
    const connack2 = await raw2.connect('tok', await t.token('tok'), { will: { topic: 'hark/tok/will', payload: Buffer.from('x'), qos: 0, retain: true } })
    expect(connack2.reasonCode).toBe(0x9a)
    await raw2.closed
  })

  it.each([
    ['MQTT 3.1 (MQIsdp, level 3)', 'MQIsdp', 3],
    ['an unknown level', 'MQTT', 6],
  ])('%s is refused with CONNACK 0x01', async (_what, protocolId, level) => {
    const raw = await RawClient.open(t.port, 4)
    const name = Buffer.from(protocolId)
    const body = Buffer.concat([Buffer.from([0, name.length]), name, Buffer.from([level, 0x02, 0, 60, 0, 1, 0x78])])
    raw.write(Buffer.concat([Buffer.from([0x10, body.length]), body]))
    const connack = await raw.next('connack')
    expect(connack.returnCode).toBe(0x01)
    await raw.closed
  })

  it('an unknown protocol name is closed without CONNACK', async () => {
    const raw = await RawClient.open(t.port, 4)
    raw.write([0x10, 0x0c, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x54 + 1, 0x04, 0x02, 0x00, 0x3c, 0x00, 0x00])
    await raw.closed
    expect(raw.packets.items).toEqual([])
  })

  it('MQTT 3.1.1: a password without a user name is a malformed CONNECT: closed without CONNACK', async () => {
    const raw = await RawClient.open(t.port, 4)
    raw.write(connectBytes({ version: 4, clientId: 'tok', password: await t.token('tok') }))
    await raw.closed
    expect(raw.packets.items).toEqual([])
  })

  it('a connection that never sends CONNECT is closed after connectTimeoutSeconds on the engine clock, not before', async () => {
    const clock = new ManualClock(Date.now())
    const t2 = await startMqttEngine({ connectTimeoutSeconds: 60 }, [mqttTransport], { clock })
    try {
      t2.seed.addClient('late', 'lobby')
      t2.seed.addClient('sync', 'lobby')
      const late = await RawClient.open(t2.port, 4)
      const silent = await RawClient.open(t2.port, 4)
      // The server accepts in order: once a later connection is answered, both have their timers.
      await (await RawClient.open(t2.port, 4)).connect('sync', await t2.token('sync'))
      clock.advance(59_999)
      // Still open a moment before the minute: a CONNECT now is accepted.
      expect(await late.connect('late', await t2.token('late'))).toMatchObject({ cmd: 'connack', returnCode: 0 })
      clock.advance(1)
      await silent.closed
      expect(silent.packets.items).toEqual([])
    } finally {
      await t2.stop()
    }
  })
})
