import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { uplink } from '../../core/test/helpers.js'
import { connectDevice, startMqttEngine } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeEach(async () => {
  t = await startMqttEngine()
})
afterEach(() => t.stop())

describe('smoke', () => {
  it('two devices exchange audio', async () => {
    t.seed.addClient('a', 'lobby')
    t.seed.addClient('b', 'lobby')
    const a = await connectDevice(t.port, 'a', { password: await t.token('a') })
    const b = await connectDevice(t.port, 'b', { password: t.devicePassword('b'), protocolVersion: 5 })
    expect(await a.event('session')).toMatchObject({ room: 'lobby' })
    await b.event('session')
    await a.event('participant.joined')
    a.publishAudio(uplink([1, 2, 3]))
    const frame = parseDownlink(await b.audio.next())!
    expect([...frame.opus]).toEqual([1, 2, 3])
    await a.end()
    await b.end()
  })
})
