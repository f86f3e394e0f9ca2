/**
 * One delivery attempt over HTTP: a POST of the event's body signed the Standard Webhooks way
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,<base64 HMAC-SHA256>` per secret,
 * computed by the `standardwebhooks` package; during a rotation's overlap both secrets sign).
 * Only a 2xx counts; a redirect is not followed (it is a failure), the whole exchange must finish
 * within the timeout (10 s), and every connection goes through the SSRF guard: the host is resolved
 * by the guard's resolver and refused unless every address is allowed, and the connection uses the
 * very addresses checked (no second lookup a rebinding DNS could answer differently). Keep-alive
 * connections are pooled per endpoint origin, at most MAX_IN_FLIGHT sockets each. An answer's body
 * is read and dropped up to MAX_RESPONSE_BYTES; a longer one is not read on: the attempt is
 * settled by its status and the connection closed (a receiver streaming without end costs neither
 * the timeout nor the CPU of reading it).
 *
 * The engine runs this in the delivery thread (deliveryThread.ts, sendThread.ts), not on its own
 * event loop; the delivery worker talks to it through `AttemptSender`.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { AddressNotAllowed, hostOf, resolveAllowed, type HostResolver, type UrlPolicy } from '../../core/webhooks/addressGuard.js'

/** Requests at once per endpoint. */
export const MAX_IN_FLIGHT = 4
export const ATTEMPT_TIMEOUT_MS = 10_000
/** Response body bytes read (and dropped) before the connection is closed instead. */
export const MAX_RESPONSE_BYTES = 64 * 1024

export type AttemptResult = 'success' | 'http_error' | 'timeout' | 'network_error' | 'address_not_allowed'

export interface SendOutcome {
  readonly result: AttemptResult
  readonly status: number | null
  /** Why it failed, short and secret-free; null on success. */
  readonly error: string | null
  readonly latencyMs: number
}

export interface SignedMessage {
  readonly url: string
  /** The event id: `webhook-id`, the same on every attempt. */
  readonly eventId: string
  readonly body: string
  /** Signing time (ms): `webhook-timestamp`. */
  readonly timestamp: number
  /** whsec_ secrets; each adds a signature. */
  readonly secrets: ReadonlyArray<string>
}

/** Signers by secret (a Webhook decodes its secret once). */
const signers = new Map<string, Webhook>()
const signer = (secret: string): Webhook => {
  let w = signers.get(secret)
  if (!w) {
    if (signers.size >= 1000) signers.clear()
    signers.set(secret, (w = new Webhook(secret)))
  }
  return w
}

/** The three Standard Webhooks headers of a message. */
export const signatureHeaders = (m: Pick<SignedMessage, 'eventId' | 'body' | 'timestamp' | 'secrets'>): Record<string, string> => {
  const at = new Date(m.timestamp)
  return {
    'webhook-id': m.eventId,
    'webhook-timestamp': String(Math.floor(m.timestamp / 1000)),
    'webhook-signature': m.secrets.map((s) => signer(s).sign(m.eventId, at, m.body)).join(' '),
  }
}

/** What the delivery worker sends attempts through (a WebhookSender, here or in the delivery thread). */
export interface AttemptSender {
  send(m: SignedMessage): Promise<SendOutcome>
  /** Drop pooled connections of an origin (its endpoint changed or went away). */
  forget(origin: string): void
  close(): void
}

export interface SenderOptions {
  readonly policy: UrlPolicy
  readonly resolve: HostResolver
  readonly timeoutMs?: number
  readonly userAgent?: string
}

export class WebhookSender implements AttemptSender {
  private readonly agents = new Map<string, HttpAgent>()
  private readonly lookup: LookupFunction

  constructor(private readonly options: SenderOptions) {
    const { policy, resolve } = options
    // Node calls this for every new connection to a host name (not for IP literals, checked below).
    this.lookup = ((hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      resolveAllowed(hostname, policy, resolve).then(
        (addresses) => {
          if (opts.all) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })))
          else callback(null, addresses[0]!.address, addresses[0]!.family)
        },
        (e: unknown) => callback(e),
      )
    }) as LookupFunction
  }

  private agentFor(url: URL): HttpAgent {
    const key = url.origin
    let agent = this.agents.get(key)
    if (!agent) {
      const opts = { keepAlive: true, maxSockets: MAX_IN_FLIGHT, maxFreeSockets: MAX_IN_FLIGHT, timeout: this.timeoutMs }
      agent = url.protocol === 'https:' ? new HttpsAgent(opts) : new HttpAgent(opts)
      this.agents.set(key, agent)
    }
    return agent
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? ATTEMPT_TIMEOUT_MS
  }

  /** Drop pooled connections of an origin (its endpoint changed or went away). */
  forget(origin: string): void {
    this.agents.get(origin)?.destroy()
    this.agents.delete(origin)
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy()
    this.agents.clear()
  }

  async send(m: SignedMessage): Promise<SendOutcome> {
    const began = performance.now()
    const elapsed = () => Math.round(performance.now() - began)
    const url = new URL(m.url)
    const host = hostOf(url)
    if (isIP(host) !== 0) {
      // An IP literal is never looked up, so the guard checks it here.
      try {
        await resolveAllowed(host, this.options.policy, this.options.resolve)
      } catch (e) {
        return { result: 'address_not_allowed', status: null, error: `address_not_allowed: ${(e as Error).message}`, latencyMs: elapsed() }
      }
    }
    const body = Buffer.from(m.body)
    const headers = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': this.options.userAgent ?? 'Hark-Webhooks/1',
      ...signatureHeaders(m),
    }
    return new Promise<SendOutcome>((resolve) => {
      let settled = false
      const finish = (o: Omit<SendOutcome, 'latencyMs'>) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve({ ...o, latencyMs: elapsed() })
      }
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
        url,
        { method: 'POST', headers, agent: this.agentFor(url), lookup: this.lookup },
        (res: IncomingMessage) => {
          const status = res.statusCode ?? 0
          const answered = () => {
            if (status >= 200 && status < 300) finish({ result: 'success', status, error: null })
            else if (status >= 300 && status < 400) finish({ result: 'http_error', status, error: `redirect not followed (HTTP ${status})` })
            else finish({ result: 'http_error', status, error: `HTTP ${status}` })
          }
          // The answer's body is not needed: read it to the end so the connection can be reused,
          // unless it is long; then the status decides and the connection goes.
          let read = 0
          res.on('data', (chunk: Buffer) => {
            read += chunk.length
            if (read <= MAX_RESPONSE_BYTES || settled) return
            answered()
            req.destroy()
          })
          res.on('error', () => finish({ result: 'network_error', status, error: 'response aborted' }))
          res.on('end', answered)
        },
      )
      // Real time on purpose: it bounds real network I/O, whatever the engine's clock says.
      const timer = setTimeout(() => {
        finish({ result: 'timeout', status: null, error: `no complete answer within ${this.timeoutMs} ms` })
        req.destroy()
      }, this.timeoutMs)
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (e instanceof AddressNotAllowed) finish({ result: 'address_not_allowed', status: null, error: `address_not_allowed: ${e.message}` })
        else finish({ result: 'network_error', status: null, error: e.code ?? e.message })
      })
      req.end(body)
    })
  }
}
