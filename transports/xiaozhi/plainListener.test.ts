/**
 * The plain LAN listener's liveness check on the engine's clock: every PING_INTERVAL_MS it pings
 * each device, and drops one that did not answer the previous ping — a device that lost power
 * without a close frame — while one that answers stays, and so does its room.
 */
import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/index.js'
import { Inbox, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { websocketTransport } from '../websocket/index.js'
import { defineXiaozhi, xiaozhi } from './index.js'
import { PING_INTERVAL_MS } from './plainListener.js'
import { XiaozhiDevice } from './test/device.js'

const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000)
let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let n = 0

beforeAll(async () => {
  t = await startTestEngine({ extensions: [websocketTransport, ...xiaozhi], xiaozhi: { plainPort: 0, autoAgent: false } }, { clock })
  seed = seedWorkspace(t.engine)
})
afterAll(() => t?.stop())

const device = (clientId: string, autoPong: boolean) => {
  seed.addClient(clientId, 'lan')
  const token = t.engine.host.security.devicePasswords.reset(seed.workspaceId, clientId).password
  const mac = `0c:00:00:00:00:${(++n).toString(16).padStart(2, '0')}`
  return XiaozhiDevice.connect({
    url: `ws://127.0.0.1:${t.engine.ports['xiaozhi-plain']}/xiaozhi/v1/`, token, device: { mac, uuid: randomUUID() }, autoPong,
  })
}

/** A request and its answer on the same connection: whatever the device sent before (a pong) has reached the server. */
const roundTrip = async (d: XiaozhiDevice) => {
  const before = d.messages.items.length
  d.sendJson({ type: 'dance' })
  await d.messages.next((m) => m.type === 'error' && d.messages.items.indexOf(m) >= before, 5000, 'an answer')
}

describe('the plain listener on the engine clock', () => {
  it('pings every interval and drops a device that did not answer the last ping, not one that did', async () => {
    const alive = await device('lan-alive', true)
    const silent = await device('lan-silent', false)
    const pings = new Inbox<string>()
    alive.ws.on('ping', () => pings.push('alive'))
    silent.ws.on('ping', () => pings.push('silent'))

    clock.advance(PING_INTERVAL_MS - 1)
    expect(pings.items).toEqual([])
    clock.advance(1)
    await pings.next((p) => p === 'alive', 5000, 'a ping to the answering device')
    await pings.next((p) => p === 'silent', 5000, 'a ping to the silent device')
    // Its pong is in (any message counts as a sign of life too, so the silent one sends nothing).
    await roundTrip(alive)

    clock.advance(PING_INTERVAL_MS)
    // Dropped without a close frame, as it went.
    expect((await silent.closed).code).toBe(1006)
    await roundTrip(alive)
    expect(t.engine.host.terminals.roomView(seed.workspaceId, 'lan')!.participants.map((p) => p.id)).toEqual(['lan-alive'])
    alive.close()
  })
})

describe('the plain listener and a connection that says nothing', () => {
  it('closes it at xiaozhi.helloTimeoutMs without a request head (Node held it 60–90 s)', async () => {
    const e = await startTestEngine({ extensions: [websocketTransport, ...defineXiaozhi({ helloTimeoutMs: 1000 })], xiaozhi: { plainPort: 0, autoAgent: false } })
    try {
      const socket = connect(e.engine.ports['xiaozhi-plain']!, '127.0.0.1')
      await expect(new Promise((resolve) => socket.on('close', resolve))).resolves.toBe(false)
    } finally {
      await e.stop()
    }
  })
})
