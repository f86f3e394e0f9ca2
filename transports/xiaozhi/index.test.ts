/**
 * Registering the xiaozhi extensions: the transport needs a way in for devices (the WebSocket
 * transport's gateway, or its own plain listener), and the OTA plugin needs the transport whose
 * settings it reads; otherwise the engine refuses to start with one line that says so.
 */
import { describe, expect, it } from 'vitest'
import { startTestEngine } from '../../core/test/helpers.js'
import { websocketTransport } from '../websocket/index.js'
import { xiaozhi, xiaozhiOta, xiaozhiTransport } from './index.js'

const refusal = (start: Promise<{ stop: () => Promise<void> }>) =>
  start.then(
    async (t) => {
      await t.stop()
      throw new Error('the engine started')
    },
    (e: Error) => e.message,
  )

describe('registering the xiaozhi extensions', () => {
  it('refuses the OTA plugin without the transport that declares its settings', async () => {
    expect(await refusal(startTestEngine({ extensions: [websocketTransport, xiaozhiOta] }))).toMatch(
      /the xiaozhi-ota plugin reads the settings of the xiaozhi transport: register both/,
    )
  })

  it('refuses the transport with neither the WebSocket gateway before it nor a plain listener, and starts with either', async () => {
    expect(await refusal(startTestEngine({ extensions: [xiaozhiTransport] }))).toMatch(
      /the xiaozhi transport needs the websocket transport registered before it .* or xiaozhi.plainPort/,
    )
    const plain = await startTestEngine({ extensions: [xiaozhiTransport], xiaozhi: { plainPort: 0 } })
    expect(plain.engine.ports['xiaozhi-plain']).toBeGreaterThan(0)
    await plain.stop()
    const gateway = await startTestEngine({ extensions: [websocketTransport, ...xiaozhi] })
    expect(gateway.engine.ports.gateway).toBeGreaterThan(0)
    await gateway.stop()
  })
})
