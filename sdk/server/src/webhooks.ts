/**
 * Verifying what Hark POSTs to a webhook endpoint (spec/webhooks.md): Standard Webhooks
 * signatures, checked by the `standardwebhooks` package, and the event typed by its `type`.
 */
import { Webhook, WebhookVerificationError as SignatureError } from 'standardwebhooks'
import { WebhookVerificationError } from './errors.js'
import type { webhooks } from './generated/openapi.js'

type EventOf<K extends keyof webhooks> = webhooks[K]['post'] extends {
  requestBody: { content: { 'application/json': infer E } }
}
  ? E
  : never

/** Every event a webhook endpoint receives, told apart by `type`. */
export type WebhookEvent = { [K in keyof webhooks]: EventOf<K> }[keyof webhooks]
export type WebhookEventType = WebhookEvent['type']
/** The event of one type: `WebhookEventOf<'client.connected'>['data']['transport']`. */
export type WebhookEventOf<K extends WebhookEventType> = Extract<WebhookEvent, { type: K }>

/** Request headers as Node (`IncomingHttpHeaders`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | ReadonlyArray<string> | undefined>

const plainHeaders = (headers: WebhookHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  if (headers instanceof Headers) headers.forEach((value, key) => (out[key] = value))
  else for (const [key, value] of Object.entries(headers)) if (value !== undefined) out[key.toLowerCase()] = typeof value === 'string' ? value : value.join(', ')
  return out
}

/** Checks webhook requests signed with one endpoint's secret (`whsec_…`). */
export class WebhookVerifier {
  private readonly webhook: Webhook

  constructor(secret: string) {
    try {
      this.webhook = new Webhook(secret)
    } catch (e) {
      throw new WebhookVerificationError(`unusable webhook secret: ${(e as Error).message}`)
    }
  }

  /**
   * The event, once its signature and its timestamp (within 5 minutes of now) verify. `body` is
   * the raw request body exactly as received: parsing and re-serialising it breaks the signature.
   */
  verify(body: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
    const payload = typeof body === 'string' ? body : new TextDecoder().decode(body)
    let event: unknown
    try {
      event = this.webhook.verify(payload, plainHeaders(headers))
    } catch (e) {
      if (e instanceof SignatureError) throw new WebhookVerificationError(e.message)
      throw new WebhookVerificationError(`webhook body is not JSON: ${(e as Error).message}`)
    }
    const type = (event as { type?: unknown } | null)?.type
    if (typeof type !== 'string') throw new WebhookVerificationError('webhook body is not a Hark event (no type)')
    return event as WebhookEvent
  }
}

/** One-off form of `new WebhookVerifier(secret).verify(body, headers)`. */
export const verifyWebhook = (secret: string, body: string | Uint8Array, headers: WebhookHeaders): WebhookEvent =>
  new WebhookVerifier(secret).verify(body, headers)
