import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { mqttTransport } from './index.js'
import { connectDevice, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
// The engine's clock, on a whole second as token times are: expiry moves only when a test says so.
let clock: ManualClock
beforeEach(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000)
  t = await startMqttEngine({}, [mqttTransport], { clock })
  for (const id of ['dev', 'tok', 'del', 'bystander']) t.seed.addClient(id, 'lobby')
})
afterEach(() => t.stop())

describe('live sessions closed by the server', () => {
  it('a device-password reset kicks the live MQTT 5 session with DISCONNECT 0x87; the old password is refused', async () => {
    const old = t.devicePassword('dev')
    const device = await connectDevice(t.port, 'dev', { password: old, protocolVersion: 5 })
    const bystander = await connectDevice(t.port, 'bystander', { password: await t.token('bystander') })
    await device.event('session')
    t.engine.host.security.devicePasswords.reset(t.seed.workspaceId, 'dev')
    expect(await device.event('session.closing')).toMatchObject({ code: 'device_password_reset' })
    expect(await device.disconnects.next()).toMatchObject({ cmd: 'disconnect', reasonCode: 0x87, properties: { reasonString: 'device password was reset' } })
    await device.closed
    expect(await bystander.event('participant.left', (e) => e.participant.id === 'dev')).toBeTruthy()
    const code = await connectDevice(t.port, 'dev', { password: old, protocolVersion: 5 }).then(
      () => 0,
      (e: { code: number }) => e.code,
    )
    expect(code).toBe(0x86)
    expect(bystander.client.connected).toBe(true)
    await bystander.end()
  })

  it('MQTT 3.1.1: a revoked token closes the live session (no reason code in 3.1.1)', async () => {
    const issued = await t.engine.host.security.tokens.issue(t.seed.workspaceId, 'tok', null)
    const device = await connectDevice(t.port, 'tok', { password: issued.token })
    await device.event('session')
    t.engine.host.security.tokens.revoke(t.seed.workspaceId, issued.jti)
    expect(await device.event('session.closing')).toMatchObject({ code: 'token_revoked' })
    await device.closed
    expect(device.disconnects.items).toEqual([])
  })

  it('deleting the client sends DISCONNECT 0x87 to MQTT 5', async () => {
    const device = await connectDevice(t.port, 'del', { password: await t.token('del'), protocolVersion: 5 })
    await device.event('session')
    t.seed.deleteClient('del')
    expect(await device.disconnects.next()).toMatchObject({ reasonCode: 0x87 })
    await device.closed
  })

  it('a newer connection of the same client takes over: the older hears DISCONNECT 0x8E', async () => {
    const older = await connectDevice(t.port, 'tok', { password: await t.token('tok'), protocolVersion: 5 })
    await older.event('session')
    const newer = await connectDevice(t.port, 'tok', { password: await t.token('tok'), protocolVersion: 5 })
    expect(await older.disconnects.next()).toMatchObject({ reasonCode: 0x8e })
    await older.closed
    expect(await newer.event('session')).toMatchObject({ clientId: 'tok' })
    expect(t.engine.host.terminals.roomView(t.seed.workspaceId, 'lobby')?.participants.map((p) => p.id)).toEqual(['tok'])
    await newer.end()
  })

  it('stopping the engine sends DISCONNECT 0x8B (server shutting down)', async () => {
    const device = await connectDevice(t.port, 'tok', { password: await t.token('tok'), protocolVersion: 5 })
    await device.event('session')
    const stopped = t.engine.stop()
    expect(await device.disconnects.next()).toMatchObject({ reasonCode: 0x8b })
    await device.closed
    await stopped
  })

  it('an expiring token closes the session when it expires, with DISCONNECT 0x87 (0x86 exists in CONNACK only)', async () => {
    const device = await connectDevice(t.port, 'tok', { password: await t.token('tok', 1), protocolVersion: 5 })
    await device.event('session')
    clock.advance(999)
    expect(t.engine.host.presence.isOnline(t.seed.workspaceId, 'tok')).toBe(true)
    clock.advance(1)
    expect(t.engine.host.presence.isOnline(t.seed.workspaceId, 'tok')).toBe(false)
    expect(await device.event('session.closing')).toMatchObject({ code: 'token_expired' })
    expect(await device.disconnects.next()).toMatchObject({ reasonCode: 0x87, properties: { reasonString: 'credential expired' } })
    await device.closed
  })
})
