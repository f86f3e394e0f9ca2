import { afterEach, expect, it } from 'vitest'
import { startWebRtcEngine, type WebRtcEngine } from './test/engine.js'
import { WeriftTerminal } from './test/weriftTerminal.js'
import { WsTerminal } from './test/wsTerminal.js'
let t: WebRtcEngine
afterEach(() => t?.stop())
it('smoke', async () => {
  t = await startWebRtcEngine()
  t.seed.addClient('b', 'lobby'); t.seed.addClient('d', 'lobby')
  const dev = await WsTerminal.connect(t.port, await t.token('d'), t.ca)
  await dev.event('session')
  const browser = await WeriftTerminal.connect(t.port, await t.token('b'), t.ca)
  console.log(browser.response.status, browser.location)
  console.log(await browser.event('session'))
  await dev.event('participant.joined')
  await browser.sendOpus(Buffer.from([0x78, 1, 2, 3]), 0x80 | 17)
  console.log(await dev.frames.next())
  dev.sendAudio(Uint8Array.of(0x80 | 10, 0x78, 9, 9))
  console.log(await browser.packets.next())
  await browser.close()
  await dev.event('participant.left')
  expect(t.transport().peerCount).toBe(0)
})
