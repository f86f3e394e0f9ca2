/**
 * Transports share rooms: an MQTT device and a WebSocket page mapped to one room hear each
 * other's audio (same uplink and downlink layouts, same source ids) and each other's joins and
 * leaves. Lives beside both transports because it needs both; neither imports the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../core/dataplane/frame.js'
import { uplink } from '../core/test/helpers.js'
import { mqttTransport } from './mqtt/index.js'
import { connectDevice, startMqttEngine } from './mqtt/test/helpers.js'
import { websocketTransport } from './websocket/index.js'
import { TestTerminal } from './websocket/test/terminalClient.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine({}, [mqttTransport, websocketTransport])
  t.seed.addClient('device', 'kitchen')
  t.seed.addClient('page', 'kitchen')
})
afterAll(() => t.stop())

describe('MQTT and WebSocket in one room', () => {
  it.each([4, 5] as const)('MQTT %s device and a WebSocket page exchange audio and presence', async (protocolVersion) => {
    const device = await connectDevice(t.port, 'device', { password: t.devicePassword('device'), protocolVersion })
    const deviceSession = await device.event('session')
    const page = await TestTerminal.connect(t.engine.ports.gateway!, { token: await t.token('page') }, t.engine.host.tls.cert)
    const pageSession = await page.event('session')
    expect(pageSession.participants).toEqual([expect.objectContaining({ id: 'device', sourceId: deviceSession.sourceId })])
    expect(await device.event('participant.joined', (e) => e.participant.id === 'page')).toMatchObject({
      participant: { sourceId: pageSession.sourceId },
    })

    device.publishAudio(uplink([0x78, 1, 2], 0x92))
    const atPage = parseDownlink(await page.frames.next())!
    expect(atPage).toMatchObject({ sourceId: deviceSession.sourceId, levelByte: 0x92, seq: 0 })
    expect([...atPage.opus]).toEqual([0x78, 1, 2])

    page.sendAudio(uplink([0x78, 9, 9, 9], 0x9e))
    const atDevice = parseDownlink(await device.audio.next())!
    expect(atDevice).toMatchObject({ sourceId: pageSession.sourceId, levelByte: 0x9e })
    expect([...atDevice.opus]).toEqual([0x78, 9, 9, 9])

    await device.end()
    expect(await page.event('participant.left', (e) => e.participant.id === 'device')).toBeTruthy()
    page.ws.close()
    await page.closed
  })
})
