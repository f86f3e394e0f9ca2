/**
 * The OTA and activation endpoints on the REST port (spec/xiaozhi.md, OTA and activation): what a
 * device gets before and after activation, lenient bodies, and refusals with the error envelope.
 */
import { randomUUID } from 'node:crypto'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/index.js'
import { seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { websocketTransport } from '../websocket/index.js'
import { xiaozhi } from './index.js'
import { OTA_REQUESTS_PER_MINUTE } from './ota.js'
import { pollActivation, pollOta } from './test/device.js'

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let otaUrl: string
/** The engine's clock: the per-IP request windows run on it. */
const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000)

beforeAll(async () => {
  t = await startTestEngine(
    { extensions: [websocketTransport, ...xiaozhi], xiaozhi: { websocketUrl: 'wss://hark.example.com/xiaozhi/v1/' } },
    { clock },
  )
  seed = seedWorkspace(t.engine)
  otaUrl = `http://127.0.0.1:${t.engine.ports.rest}/xiaozhi/ota/`
})
afterAll(() => t?.stop())

/** A raw request to the REST port. */
const raw = (path: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}) =>
  new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(`http://127.0.0.1:${t.engine.ports.rest}${path}`, { method: opts.method ?? 'POST', headers: opts.headers }, (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }))
    })
    req.on('error', reject)
    req.end(opts.body)
  })

describe('xiaozhi OTA endpoint', () => {
  it('answers the configured WebSocket URL and the device password once the device is claimed', async () => {
    const device = { mac: '0A:00:00:00:00:01', uuid: randomUUID(), firmware: '1.6.2' }
    const pending = await pollOta(otaUrl, device)
    expect(pending.body.firmware).toEqual({ version: '1.6.2', url: '' })
    const code = (pending.body.activation as { code: string }).code
    const claim = t.engine.host.security.deviceEnrollment.claim({ code, workspaceId: seed.workspaceId, clientId: 'ota-1', room: 'r' })
    expect(claim.clientCreated).toBe(true)
    const bound = await pollOta(otaUrl, device)
    const password = t.engine.host.security.devicePasswords.show(seed.workspaceId, 'ota-1').password
    expect(bound.body.websocket).toEqual({ url: 'wss://hark.example.com/xiaozhi/v1/', token: password })
    expect(t.engine.host.security.deviceEnrollment.bindings(seed.workspaceId)[0]!.info).toMatchObject({ firmware: '1.6.2', chip: 'esp32s3' })
  })

  it('reads any body leniently and takes GET as well', async () => {
    const headers = { 'Device-Id': '0a:00:00:00:00:02', 'Client-Id': randomUUID() }
    const broken = await raw('/xiaozhi/ota/', { headers: { ...headers, 'Content-Type': 'application/json' }, body: '{"version":2,"ota":{"label":"ota_0"},},"board":{' })
    expect(broken.status).toBe(200)
    expect(broken.body).toMatchObject({ firmware: { version: '', url: '' }, activation: { code: expect.stringMatching(/^[0-9]{6}$/) } })
    const get = await raw('/xiaozhi/ota/', { method: 'GET', headers })
    expect((get.body.activation as { code: string }).code).toBe((broken.body.activation as { code: string }).code)
    // Firmware before v1.2.1 sends no Client-Id: its MAC stands for the install.
    const old = await raw('/xiaozhi/ota', { headers: { 'Device-Id': '0a:00:00:00:00:03' }, body: '' })
    expect(old.status).toBe(200)
  })

  it('refuses a missing or malformed Device-Id and an oversized body with the envelope', async () => {
    expect(await raw('/xiaozhi/ota/', { body: '{}' })).toEqual({
      status: 400,
      body: { error: { code: 'validation_failed', message: 'the Device-Id header (the device MAC address) is required' } },
    })
    expect((await raw('/xiaozhi/ota/', { headers: { 'Device-Id': 'not a mac!' }, body: '{}' })).body).toMatchObject({ error: { code: 'validation_failed' } })
    const big = await raw('/xiaozhi/ota/', { headers: { 'Device-Id': '0a:00:00:00:00:04' }, body: Buffer.alloc(70_000, 32) })
    expect(big).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } })
  })

  it('tells the activation poll to wait, then that the device is activated, and 404 without a pending code', async () => {
    const device = { mac: '0A:00:00:00:00:05', uuid: randomUUID() }
    expect((await pollActivation(otaUrl, device)).status).toBe(404)
    const code = ((await pollOta(otaUrl, device)).body.activation as { code: string }).code
    expect(await pollActivation(otaUrl, device)).toMatchObject({ status: 202, body: { status: 'waiting' } })
    t.engine.host.security.deviceEnrollment.claim({ code, workspaceId: seed.workspaceId, clientId: 'ota-5' })
    expect(await pollActivation(otaUrl, device)).toEqual({ status: 200, body: { status: 'activated' } })
  })

  it('limits requests per client IP in one-minute windows of the engine clock (429 rate_limited with Retry-After)', async () => {
    const headers = { 'Device-Id': '0a:00:00:00:00:06', 'Client-Id': 'x' }
    // A fresh window, whatever the tests above used of the current one.
    clock.advance(60_000)
    const statuses: number[] = []
    for (let i = 0; i < OTA_REQUESTS_PER_MINUTE; i++) statuses.push((await raw('/xiaozhi/ota/activate', { headers, body: '{}' })).status)
    expect(statuses.every((s) => s === 404)).toBe(true)
    const over = await raw('/xiaozhi/ota/activate', { headers, body: '{}' })
    expect(over).toMatchObject({ status: 429, body: { error: { code: 'rate_limited', message: 'rate limit exceeded, retry in 60 s' } } })
    // Not a moment before the window ends; then the device is heard again.
    clock.advance(59_999)
    expect((await raw('/xiaozhi/ota/activate', { headers, body: '{}' })).status).toBe(429)
    clock.advance(1)
    expect((await raw('/xiaozhi/ota/activate', { headers, body: '{}' })).status).toBe(404)
  })
})
