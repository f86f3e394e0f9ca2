import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliJson, runCli } from '../../core/test/helpers.js'
import { WebhookReceiver } from './test/receiver.js'
import { startWebhookEngine, type WebhookEngine } from './test/webhookEngine.js'

let t: WebhookEngine
let receiver: WebhookReceiver
beforeAll(async () => {
  receiver = await WebhookReceiver.start()
  t = await startWebhookEngine()
})
afterAll(async () => {
  await t.stop()
  await receiver.close()
})

const env = { HARK_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }

describe('hark webhook … (real CLI processes beside a running engine on the same data dir)', () => {
  type View = { webhookId: string; url: string; events: string[] | null; description: string | null; enabled: boolean; secret: string }
  const cli = (workspaceId: string) => <T>(...args: string[]) =>
    cliJson<T>(['webhook', ...args, '--workspace', workspaceId, '--data', t.dir], env)

  it('creates an endpoint and queues a test event; the engine delivers it, and the events of the CLI’s own changes', async () => {
    const { workspaceId } = t.workspace('cli')
    const hark = cli(workspaceId)
    const created = await hark<View>('create', receiver.url, '--events', 'client.created,webhook.test', '--description', 'from the shell')
    expect(created).toMatchObject({ url: receiver.url, events: ['client.created', 'webhook.test'], description: 'from the shell', enabled: true })
    expect(created.secret).toMatch(/^whsec_/)
    receiver.secrets.push(created.secret)

    // The CLI queues a test event; the engine hears the change and sends it, signed with the secret.
    const test = await hark<{ eventId: string; deliveryId: string }>('test', created.webhookId)
    const delivered = await receiver.accepted.next((e) => e.id === test.eventId)
    expect(delivered.type).toBe('webhook.test')
    // A client the CLI creates gets its event in the CLI's own transaction; the engine delivers it.
    await cliJson(['client', 'create', 'dev-9', '--workspace', workspaceId, '--data', t.dir], env)
    const clientEvent = await receiver.accepted.next((e) => e.type === 'client.created' && e.workspaceId === workspaceId)
    expect(clientEvent).toMatchObject({ resource: 'client:dev-9', sequence: 1, data: { clientId: 'dev-9' } })
    expect(receiver.requests.items.every((r) => r.verifiedBy.length > 0)).toBe(true)

    await t.worker().whenIdle()
    await t.engine.host.storage.batch(() => null)
    const page = await hark<{ deliveries: Array<{ deliveryId: string; status: string; type: string }> }>('deliveries', created.webhookId)
    expect(page.deliveries.map((d) => [d.type, d.status])).toEqual([['client.created', 'delivered'], ['webhook.test', 'delivered']])
    const again = await hark<{ status: string; eventId: string }>('redeliver', created.webhookId, test.deliveryId)
    expect(again).toMatchObject({ status: 'pending', eventId: test.eventId })
    await receiver.accepted.next(() => receiver.accepted.items.filter((e) => e.id === test.eventId).length === 2)
  })

  it('lists, updates, rotates the secret of and deletes an endpoint', async () => {
    const ws = await t.workspaceWithEndpoint(receiver, 'cli-edit')
    const hark = cli(ws.workspaceId)
    expect((await hark<View[]>('list')).map((w) => w.webhookId)).toEqual([ws.webhookId])
    expect(await hark<View>('update', ws.webhookId, '--disable', '--events', 'client.deleted')).toMatchObject({ enabled: false, events: ['client.deleted'] })
    const rotated = await hark<View>('rotate-secret', ws.webhookId)
    expect(rotated.secret).toMatch(/^whsec_/)
    expect(rotated.secret).not.toBe(ws.secret)
    expect(await hark('delete', ws.webhookId)).toEqual({ webhookId: ws.webhookId, deleted: true })
  })

  it('refuses bad input with one line and the documented exit codes', async () => {
    const { workspaceId } = t.workspace('cli-bad')
    const run = (...args: string[]) => runCli(['webhook', ...args, '--workspace', workspaceId, '--data', t.dir])
    const unknownType = await run('create', 'ftp://example.com/h', '--events', 'client.levitated')
    expect(unknownType.code).toBe(2)
    expect(unknownType.stderr).toMatch(/^hark: events: unknown event type "client.levitated" .*\(validation_failed\)\n$/)
    // Without the setting, loopback is refused.
    const loopback = await run('create', 'https://127.0.0.1/h')
    expect(loopback.code).toBe(2)
    expect(loopback.stderr).toMatch(/loopback.*\(validation_failed\)/)
    const missing = await run('show', 'wh_0000000000000000')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/\(not_found\)/)
    expect(missing.stdout).toBe('')
    // A config without the webhooks plugin has no webhooks (nor their setting).
    const config = join(t.dir, 'no-webhooks.mjs')
    writeFileSync(config, 'export default { extensions: [] }\n')
    const without = await run('list', '--config', config)
    expect(without.code).toBe(1)
    expect(without.stderr).toBe('hark: the webhooks plugin is not registered in this config\n')
  })
})
