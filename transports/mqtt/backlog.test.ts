/**
 * Output a client does not take (spec/mqtt.md, Output): audio is dropped at maxBufferedAudioBytes
 * (batching.test.ts); anything else that piles up — a client that pipelines PINGREQs and never
 * reads its PINGRESPs — closes that connection alone at maxBufferedBytes (receiver_too_slow), so
 * its memory stays bounded. A connection whose socket breaks closes alone too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RecordingLink, uplink } from '../../core/test/helpers.js'
import { ConfigError } from '../../core/index.js'
import { startTestEngine } from '../../core/test/helpers.js'
import { RawClient, startMqttEngine } from './test/helpers.js'
import { mqttTransport } from './index.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine({ maxBufferedBytes: 65_536, maxBufferedAudioBytes: 16_384 })
  for (const id of ['flood', 'calm', 'talker', 'broken', 'listener']) t.seed.addClient(id, id === 'flood' || id === 'calm' ? 'flood-room' : 'break-room')
})
afterAll(() => t.stop())

const metric = async (name: string, labels = ''): Promise<number> => {
  const text = await t.engine.host.metrics.getSingleMetricAsString(name)
  const line = text.split('\n').find((l) => l.startsWith(name) && l.includes(labels))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1))
}

const device = async (clientId: string) => {
  const c = await RawClient.open(t.port, 4)
  await c.connect(clientId, await t.token(clientId))
  return c
}

describe('MQTT output a client does not take', () => {
  it('a client that sends PINGREQs and never reads is closed (receiver_too_slow) once its backlog passes maxBufferedBytes; others go on', async () => {
    const calm = await device('calm')
    const flood = await device('flood')
    const tooSlowBefore = await metric('hark_mqtt_protocol_errors_total', 'code="receiver_too_slow"')
    flood.socket.pause()
    // 32k PINGREQs per write, until the server closes it (bounded: 32 MB, far beyond the kernel's buffers and the limit).
    const pings = Buffer.alloc(65_536)
    for (let i = 0; i < pings.length; i += 2) pings[i] = 0xc0
    for (let i = 0; i < 512 && !flood.ended; i++) {
      if (!flood.socket.write(pings)) await Promise.race([new Promise((resolve) => flood.socket.once('drain', resolve)), flood.closed])
    }
    await flood.closed
    expect(await metric('hark_mqtt_protocol_errors_total', 'code="receiver_too_slow"')).toBe(tooSlowBefore + 1)
    // The other device of the same room is untouched.
    calm.send({ cmd: 'pingreq' })
    await calm.next('pingresp')
    expect(calm.ended).toBe(false)
    calm.destroy()
  })

  it('a device whose socket is reset closes alone; its room-mate keeps hearing audio', async () => {
    const listener = await device('listener')
    const broken = await device('broken')
    const talkerLink = new RecordingLink('test')
    const talker = t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token: await t.token('talker') }), talkerLink)
    await listener.next('publish', (p) => p.topic === 'hark/listener/down/events' && String(p.payload).includes('"talker"'))
    // A terminal's frames count from its `session` event on (before it they are dropped, `early`).
    await talkerLink.event('session')
    broken.socket.resetAndDestroy()
    // Audio keeps going to both while the server finds out; the broken one leaves the room.
    talker.pushAudio(uplink([1, 2, 3]))
    await listener.next('publish', (p) => p.topic === 'hark/listener/down/events' && String(p.payload).includes('"participant.left"') && String(p.payload).includes('"broken"'))
    talker.pushAudio(uplink([4, 5, 6]))
    const heard = await listener.next('publish', (p) => p.topic === 'hark/listener/down/audio' && (p.payload as Buffer).includes(Buffer.from([4, 5, 6])))
    expect(heard).toBeDefined()
    expect(listener.ended).toBe(false)
    talker.end()
    listener.destroy()
  })

  it('refuses to start with maxBufferedBytes not above maxBufferedAudioBytes', async () => {
    await expect(
      startTestEngine({ mqtt: { port: 0, tlsPort: null, maxBufferedBytes: 65_536, maxBufferedAudioBytes: 65_536 }, extensions: [mqttTransport] }),
    ).rejects.toBeInstanceOf(ConfigError)
  })
})
