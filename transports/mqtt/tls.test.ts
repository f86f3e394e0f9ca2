import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectBytes, connectDevice, RawClient, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine({ tlsPort: 0 })
  t.seed.addClient('secure', 'lobby')
})
afterAll(() => t.stop())

describe('MQTT over TLS', () => {
  it('accepts a device on the TLS listener with the engine certificate', async () => {
    const port = t.engine.ports['mqtt-tls']!
    expect(port).toBeGreaterThan(0)
    const device = await connectDevice(port, 'secure', {
      protocol: 'mqtts',
      ca: t.engine.host.tls.cert,
      servername: 'localhost',
      password: t.devicePassword('secure'),
      protocolVersion: 5,
    })
    expect(await device.event('session')).toMatchObject({ clientId: 'secure', room: 'lobby' })
    await device.end()
  })

  it('a plain-TCP client on the TLS port fails the handshake without harming the listener', async () => {
    const port = t.engine.ports['mqtt-tls']!
    const plain = await RawClient.open(port, 4)
    plain.write(connectBytes({ version: 4, clientId: 'secure', username: 'secure', password: 'x' }))
    await plain.closed
    const device = await connectDevice(port, 'secure', { protocol: 'mqtts', rejectUnauthorized: false, password: t.devicePassword('secure') })
    await device.event('session')
    await device.end()
  })
})
