/**
 * `npm run docs:screenshots`: the README's console screenshots, taken from a real run. It starts an
 * engine (every built-in transport, temp data dir, free ports), makes an admin and a workspace
 * through the same core operations the CLI uses, connects real terminals (mqtt.js devices, a
 * WebSocket terminal), dispatches an echo agent, and records 90 days of past sessions into the
 * usage meter's tables (the one thing a minute-long run cannot produce); then drives Debian's
 * Chromium through the console and writes PNGs to docs/console/. A local HTTP receiver stands in for
 * a webhook back end (so webhooks.allowPrivateNetworks is on), and a xiaozhi device waiting with an
 * activation code is announced as its OTA poll would. Dev tooling: it needs the
 * devDependencies playwright-core and mqtt.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import defaultConfig from '../../../engine.config.js'
import { createEngine } from '../../../core/engine.js'
import { OPERATOR } from '../../../core/people/audit.js'
import { People } from '../../../core/people/people.js'
import { createApiKey, revealDevicePassword } from '../../../core/operations/credentials.js'
import { createClient, updateClient } from '../../../core/operations/clients.js'
import { issueClientToken } from '../../../core/operations/tokens.js'
import { randomBase62 } from '../../../core/ids.js'

const OUT = fileURLToPath(new URL('../../../../docs/console/', import.meta.url))
const CHROMIUM = process.env.HARK_TEST_CHROMIUM || '/usr/bin/chromium'
const ADMIN = { email: 'ada@example.com', password: 'screenshots passphrase' }
const DAY = 86_400_000

const main = async () => {
  const { chromium } = await import('playwright-core')
  const mqtt = (await import('mqtt')).default
  const { default: WebSocket } = await import('ws')
  const dataDir = mkdtempSync(join(tmpdir(), 'hark-screenshots-'))
  const engine = createEngine({
    ...defaultConfig,
    dataDir,
    log: { level: 'warn', format: 'json' },
    rest: { ...defaultConfig.rest, port: 0 },
    gateway: { port: 0 },
    mqtt: { ...defaultConfig.mqtt, port: 0 },
    console: { ...defaultConfig.console, port: 0 },
    webhooks: { allowPrivateNetworks: true },
  })
  await engine.start()
  const closers: Array<() => void> = []
  try {
    const host = engine.host
    const people = new People(host.storage, host.security, host.clock)
    const admin = await people.createUser({ email: ADMIN.email, name: 'Ada', password: ADMIN.password }, OPERATOR)
    const workspace = people.createWorkspace(admin.userId, 'Acme Devices', OPERATOR)
    const ws = workspace.workspaceId
    const bob = await people.createUser({ email: 'bob@example.com', name: 'Bob', password: 'another passphrase' }, OPERATOR)
    people.grant(ws, bob.userId, 'developer', OPERATOR)
    people.invite(ws, { email: 'carol@example.com', role: 'viewer' }, { userId: admin.userId, label: ADMIN.email, ip: '127.0.0.1' })
    createApiKey(host, ws, 'production back end', OPERATOR)
    const clients: Array<[string, string, string, string]> = [
      ['kitchen-speaker', 'Kitchen speaker', 'device', 'kitchen'],
      ['hall-panel', 'Hall panel', 'device', 'lobby'],
      ['front-desk', 'Front desk tablet', 'app', 'lobby'],
      ['garden-mic', 'Garden microphone', 'device', 'garden'],
      ['web-visitor', 'Website widget', 'web', 'lobby'],
    ]
    for (const [clientId, name, kind, room] of clients) createClient(host, ws, { clientId, name, kind, room })
    host.storage.agentPresets.insert({ workspaceId: ws, presetId: 'greeter', name: 'Greeter', provider: 'echo', config: {}, createdAt: host.clock.now(), updatedAt: host.clock.now() })

    // Live terminals: two MQTT devices with their device passwords, one WebSocket app.
    for (const clientId of ['kitchen-speaker', 'hall-panel']) {
      const { password } = revealDevicePassword(host, ws, clientId, OPERATOR, { generate: true })
      const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${engine.ports.mqtt}`, { clientId, username: clientId, password, reconnectPeriod: 0 })
      closers.push(() => device.end(true))
    }
    const { token } = await issueClientToken(host, ws, 'front-desk', 3600)
    const app = new WebSocket(`wss://127.0.0.1:${engine.ports.gateway}/v1/connect?token=${token}`, { ca: host.tls.cert })
    await new Promise((resolve, reject) => app.once('open', resolve).once('error', reject))
    closers.push(() => app.close())
    await host.agents.dispatch(ws, 'lobby', { presetId: 'greeter', overrides: null })
    updateClient(host, ws, 'garden-mic', { room: 'garden' })

    // 90 days of past sessions, recorded as the meter records them (opened, then closed).
    const now = host.clock.now()
    for (let d = 89; d >= 1; d--) {
      const weekday = new Date(now - d * DAY).getUTCDay()
      const count = Math.round((weekday === 0 || weekday === 6 ? 4 : 11) + 5 * Math.sin(d / 9) + (d % 7))
      for (let i = 0; i < count; i++) {
        const startedAt = now - d * DAY + ((i * 53) % 600) * 60_000
        const sessionId = `ses_${randomBase62(16)}`
        host.storage.usage.open({ sessionId, workspaceId: ws, clientId: clients[i % clients.length]![0], transport: 'mqtt', node: 'screenshots', startedAt })
        host.storage.usage.close(sessionId, startedAt + (4 + ((i * 7 + d) % 19)) * 60_000)
      }
    }

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--ignore-certificate-errors'],
    })
    closers.push(() => void browser.close())
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1 })
    const page = await context.newPage()
    const base = `https://127.0.0.1:${engine.ports.console}`
    mkdirSync(OUT, { recursive: true })
    const shot = async (name: string) => {
      await page.screenshot({ path: join(OUT, `${name}.png`) })
      process.stdout.write(`docs/console/${name}.png\n`)
    }

    await page.goto(`${base}/sign-in`)
    await page.getByLabel('Email').fill(ADMIN.email)
    await shot('sign-in')
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('tr[data-client="kitchen-speaker"][data-status="online"]').waitFor()
    await page.locator('tr[data-client="front-desk"][data-status="online"]').waitFor()
    await shot('clients')
    await page.getByRole('link', { name: 'hall-panel' }).click()
    await page.getByRole('button', { name: 'Reveal device password' }).click()
    await page.getByLabel('Device password').waitFor()
    await shot('client')
    await page.getByRole('link', { name: 'Rooms', exact: true }).click()
    await page.locator('[data-participant="agent@greeter"]').waitFor()
    await shot('rooms')
    await page.getByRole('link', { name: 'Usage', exact: true }).click()
    await page.locator('.chart canvas').waitFor()
    await shot('usage')
    await page.getByRole('link', { name: 'API keys', exact: true }).click()
    await page.getByLabel('Key name').fill('staging back end')
    await page.getByRole('button', { name: 'Create API key' }).click()
    await page.getByLabel('New API key').waitFor()
    await shot('api-keys')
    await page.getByRole('link', { name: 'Members', exact: true }).click()
    await page.getByRole('cell', { name: 'carol@example.com', exact: true }).waitFor()
    await shot('members')

    // Webhooks: an endpoint to a local receiver (answers 204), created and tested in the page.
    const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()))
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    closers.push(() => receiver.close())
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click()
    await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hark-events`)
    await page.getByLabel('Description').fill('CRM sync')
    for (const type of ['client.connected', 'client.disconnected', 'agent.failed']) await page.getByLabel(type, { exact: true }).check()
    await page.getByRole('button', { name: 'Create webhook' }).click()
    await page.getByLabel('Signing secret', { exact: true }).waitFor()
    await shot('webhooks')
    await page.locator('tr[data-webhook] a').click()
    await page.getByRole('button', { name: 'Send test event' }).click()
    await page.locator('tr[data-delivery][data-status="delivered"]').waitFor({ timeout: 20_000 })
    await shot('webhook')

    // Add device by code: a xiaozhi device waits with the code its OTA poll got.
    const waiting = host.security.deviceEnrollment.announce({ deviceId: 'a4:cf:12:0b:7e:31', instanceId: 'screenshots-device', kind: 'xiaozhi' })
    if (waiting.state !== 'pending') throw new Error('the device should wait with a code')
    await page.getByRole('link', { name: 'Add device', exact: true }).click()
    await page.getByLabel('Activation code').fill(waiting.code)
    await page.getByLabel('Client ID').fill('desk-speaker')
    await page.getByLabel('Room', { exact: true }).fill('lobby')
    await page.getByRole('button', { name: 'Add device' }).click()
    await page.locator('tr[data-device="a4:cf:12:0b:7e:31"]').waitFor()
    await shot('add-device')
  } finally {
    for (const close of closers.reverse()) close()
    await engine.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`docs:screenshots failed: ${(e as Error).stack ?? String(e)}\n`)
    process.exit(1)
  },
)
