import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { RecordingLink, uplink } from '../../core/test/helpers.js'
import { connectBytes, connectDevice, RawClient, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine({ tlsPort: 0 })
  t.seed.addClient('secure', 'lobby')
  t.seed.addClient('secure-ear', 'tls-room')
  t.seed.addClient('tls-peer', 'tls-room')
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

  it('audio both ways over TLS (its output goes through the TLS stream, not the descriptor)', async () => {
    const device = await connectDevice(t.engine.ports['mqtt-tls']!, 'secure-ear', {
      protocol: 'mqtts',
      ca: t.engine.host.tls.cert,
      servername: 'localhost',
      password: t.devicePassword('secure-ear'),
    })
    await device.event('session')
    const link = new RecordingLink('test')
    const peer = t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token: await t.token('tls-peer') }), link)
    await device.event('participant.joined')
    // Its frames count from its `session` event on (before it they are dropped, `early`).
    await link.event('session')
    for (let i = 0; i < 3; i++) peer.pushAudio(uplink([i, 9]))
    const opus = (frame: Uint8Array) => [...parseDownlink(frame)!.opus]
    await device.audio.next((f) => opus(f)[0] === 2)
    expect(device.audio.items.map(opus)).toEqual([[0, 9], [1, 9], [2, 9]])
    device.publishAudio(uplink([4, 2]))
    expect([...parseDownlink(await link.frames.next())!.opus]).toEqual([4, 2])
    peer.end()
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

describe('MQTT over TLS: a socket that never starts TLS', () => {
  it('is closed at the CONNECT deadline (mqtt.connectTimeoutSeconds), not after Node’s 120 s handshake timeout', async () => {
    const e = await startMqttEngine({ tlsPort: 0, connectTimeoutSeconds: 1 })
    try {
      const silent = await RawClient.open(e.engine.ports['mqtt-tls']!, 4)
      // Before, Node held it 120 s: far past this test's own timeout.
      await expect(silent.closed).resolves.toBeUndefined()
    } finally {
      await e.stop()
    }
  })
})
