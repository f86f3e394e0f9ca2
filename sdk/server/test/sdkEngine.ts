/**
 * What the SDK tests run against: a real engine (REST, webhooks with loopback receivers allowed,
 * the WebSocket transport, the echo agent provider) on free ports, a workspace and API key made
 * with the real CLI as README's operator does, and a webhook receiver that checks every request
 * with @hark/server's own verifier.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { verifyWebhook, type WebhookEvent } from '@hark/server'
import { echoAgent } from '../../../agents/echo/index.js'
import type { EngineConfig } from '../../../core/index.js'
import { cliJson, Inbox } from '../../../core/test/helpers.js'
import { startWebhookEngine } from '../../../plugins/webhooks/test/webhookEngine.js'
import { websocketTransport } from '../../../transports/websocket/index.js'

export const startSdkEngine = (config: EngineConfig = {}) =>
  startWebhookEngine({ config: { ...config, extensions: [websocketTransport, echoAgent] } as EngineConfig })

export type SdkEngine = Awaited<ReturnType<typeof startSdkEngine>>

/** `hark workspace create` and `hark apikey create` on the engine's data dir (README, First steps). */
export const operatorWorkspace = async (dataDir: string, name = 'acme') => {
  const data = ['--data', dataDir]
  const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', name, ...data])
  const { apiKey } = await cliJson<{ apiKey: string }>(['apikey', 'create', '--workspace', workspaceId, ...data])
  return { workspaceId, apiKey }
}

export interface Delivery {
  readonly raw: string
  readonly headers: Record<string, string>
  readonly event: WebhookEvent
}

/** A back end's webhook endpoint on 127.0.0.1: verifies with `secret` (set once the endpoint exists), 2xx only when it verifies. */
export class SdkReceiver {
  readonly deliveries = new Inbox<Delivery>()
  readonly refused = new Inbox<string>()
  secret = ''

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<SdkReceiver> {
    let receiver: SdkReceiver | undefined
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString()
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
        try {
          const event = verifyWebhook(receiver!.secret, raw, req.headers)
          res.writeHead(204).end()
          receiver!.deliveries.push({ raw, headers, event })
        } catch (e) {
          res.writeHead(401).end()
          receiver!.refused.push((e as Error).message)
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    receiver = new SdkReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hark`)
    return receiver
  }

  /** The first verified event of `type` matching `predicate`. */
  event<K extends WebhookEvent['type']>(type: K, predicate: (e: Extract<WebhookEvent, { type: K }>) => boolean = () => true) {
    return this.deliveries
      .next((d) => d.event.type === type && predicate(d.event as Extract<WebhookEvent, { type: K }>), 15_000, `webhook ${type}`)
      .then((d) => ({ ...d, event: d.event as Extract<WebhookEvent, { type: K }> }))
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
