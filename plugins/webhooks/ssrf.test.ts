import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressRange, checkWebhookUrl, type HostResolver, type ResolvedAddress } from '../../core/webhooks/urlGuard.js'
import { startWebhookEngine, type WebhookEngine } from './test/webhookEngine.js'

/** DNS the test plays: host -> addresses, changed at will. */
const dns = new Map<string, ResolvedAddress[]>()
const resolve: HostResolver = async (host) => {
  const found = dns.get(host)
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
  return found
}
const v4 = (address: string): ResolvedAddress[] => [{ address, family: 4 }]

let t: WebhookEngine
/** A TCP listener on loopback that counts every connection made to it (nothing should arrive). */
let trap: Server
let trapConnections = 0
beforeAll(async () => {
  trap = createServer((socket) => {
    trapConnections++
    socket.destroy()
  })
  await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r))
  t = await startWebhookEngine({ config: { webhooks: { allowPrivateNetworks: false } }, plugin: { resolve } })
})
afterAll(async () => {
  await t.stop()
  await new Promise<void>((r) => trap.close(() => r()))
})

describe('the SSRF guard (webhooks.allowPrivateNetworks false)', () => {
  it('classifies addresses with ipaddr.js: only global unicast passes', () => {
    expect(addressRange('93.184.216.34')).toBe('unicast')
    expect(addressRange('2606:2800:220:1:248:1893:25c8:1946')).toBe('unicast')
    for (const [address, range] of [
      ['127.0.0.1', 'loopback'], ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['192.168.1.1', 'private'],
      ['169.254.169.254', 'linkLocal'], ['224.0.0.1', 'multicast'], ['0.0.0.0', 'unspecified'], ['100.64.0.1', 'carrierGradeNat'],
      ['::1', 'loopback'], ['fe80::1', 'linkLocal'], ['fd00::1', 'uniqueLocal'], ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'loopback'], ['::ffff:10.0.0.1', 'private'],
    ]) {
      expect(addressRange(address!), address).toBe(range)
    }
  })

  it('refuses at create time: http, loopback, private, link-local, multicast and mapped addresses, hosts resolving to them', async () => {
    dns.set('intranet.example', v4('192.168.7.7'))
    dns.set('mixed.example', [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.9', family: 4 }])
    const ws = t.workspace('guarded')
    for (const url of [
      'http://hooks.example/',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://[::1]/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://224.0.0.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://intranet.example/hook',
      'https://mixed.example/hook',
      'https://nowhere.example/hook',
    ]) {
      const res = await ws.api.post('/webhooks', { url })
      expect(res.status, url).toBe(400)
      expect(res.body.error.code, url).toBe('validation_failed')
      expect(res.body.error.message, url).toMatch(/^url: /)
    }
    expect((await ws.api.get('/webhooks')).body.webhooks).toEqual([])
  })

  it('checks again at delivery time: a host re-pointed at loopback (DNS rebinding) is refused before any connection', async () => {
    dns.set('hooks.example', v4('93.184.216.34'))
    const ws = t.workspace('rebound')
    const created = await ws.api.post('/webhooks', { url: `https://hooks.example:${(trap.address() as { port: number }).port}/hook` })
    expect(created.status).toBe(201)
    // The name now answers with the loopback address where something listens.
    dns.set('hooks.example', v4('127.0.0.1'))
    const sent = await ws.api.post(`/webhooks/${created.body.webhookId}/test`)
    const attempt = await t.attempts.next((a) => a.delivery.deliveryId === sent.body.deliveryId)
    expect(attempt.outcome.result).toBe('address_not_allowed')
    expect(attempt.outcome.error).toMatch(/hooks\.example resolves to 127\.0\.0\.1 \(loopback\)/)
    expect(attempt.state).toBe('pending')
    expect(trapConnections).toBe(0)
    await t.engine.host.storage.batch(() => null)
    const page = await ws.api.get(`/webhooks/${created.body.webhookId}/deliveries`)
    expect(page.body.deliveries[0]).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null })
    expect(page.body.deliveries[0].error).toMatch(/^address_not_allowed: /)
  })

  it('lets a public host through the same check', async () => {
    dns.set('public.example', v4('93.184.216.34'))
    await expect(checkWebhookUrl('https://public.example/x', { allowPrivateNetworks: false }, resolve)).resolves.toBeInstanceOf(URL)
    await expect(checkWebhookUrl('https://127.0.0.1/x', { allowPrivateNetworks: true }, resolve)).resolves.toBeInstanceOf(URL)
    await expect(checkWebhookUrl('http://127.0.0.1/x', { allowPrivateNetworks: true }, resolve)).resolves.toBeInstanceOf(URL)
  })
})
