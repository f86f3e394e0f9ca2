/**
 * One delivery attempt over HTTP: a POST of the event's body signed the Standard Webhooks way
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,<base64 HMAC-SHA256>` per secret,
 * computed by the `standardwebhooks` package; during a rotation's overlap both secrets sign).
 * Only a 2xx counts; a redirect is not followed (it is a failure), the whole exchange must finish
 * within the timeout (10 s), and every connection goes through the SSRF guard: the host is resolved
 * by the guard's resolver and refused unless every address is allowed, and the connection uses the
 * very addresses checked (no second lookup a rebinding DNS could answer differently). Keep-alive
 * connections are pooled per endpoint origin, at most MAX_IN_FLIGHT sockets each, one request at a
 * time on each (undici's Pool: about half node:http's CPU per request). An answer's body
 * is read and dropped up to MAX_RESPONSE_BYTES; a longer one is not read on: the attempt is
 * settled by its status and the connection closed (a receiver streaming without end costs neither
 * the timeout nor the CPU of reading it).
 *
 * The engine runs this in the delivery thread (deliveryThread.ts, sendThread.ts), not on its own
 * event loop; the delivery worker talks to it through `AttemptSender`.
 */
import { isIP, type LookupFunction } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { Pool } from 'undici'
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

/** An endpoint origin's connections, and the guard's verdict on an IP-literal host (judged once: it cannot change). */
interface Origin {
  readonly pool: Pool
  readonly refused: string | null
}

/** URLs parsed, by their text (an endpoint's URL is the same on every attempt). */
interface Target {
  readonly origin: string
  readonly path: string
  readonly literal: string | null
}

/** Parsed URLs kept at most (a cache, cleared when full). */
const MAX_TARGETS = 1000

export class WebhookSender implements AttemptSender {
  private readonly origins = new Map<string, Origin>()
  private readonly targets = new Map<string, Target>()
  private readonly lookup: LookupFunction

  constructor(private readonly options: SenderOptions) {
    const { policy, resolve } = options
    // Called for every new connection to a host name (not for IP literals, judged once per origin
    // below): the guard resolves, checks every address, and the socket connects to those.
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

  private targetOf(text: string): Target {
    let t = this.targets.get(text)
    if (!t) {
      const url = new URL(text)
      const host = hostOf(url)
      t = { origin: url.origin, path: `${url.pathname}${url.search}`, literal: isIP(host) !== 0 ? host : null }
      if (this.targets.size >= MAX_TARGETS) this.targets.clear()
      this.targets.set(text, t)
    }
    return t
  }

  /**
   * The origin's pool: keep-alive connections, at most MAX_IN_FLIGHT, one request at a time on
   * each (no pipelining). Its timeouts are the attempt's own, which settles first.
   */
  private async originOf(t: Target): Promise<Origin> {
    let o = this.origins.get(t.origin)
    if (o) return o
    let refused: string | null = null
    if (t.literal !== null) {
      // An IP literal is never looked up, so the guard checks it here, once per origin.
      try {
        await resolveAllowed(t.literal, this.options.policy, this.options.resolve)
      } catch (e) {
        refused = `address_not_allowed: ${(e as Error).message}`
      }
    }
    o = this.origins.get(t.origin)
    if (o) return o
    const slack = this.timeoutMs + 1000
    const pool = new Pool(t.origin, {
      connections: MAX_IN_FLIGHT,
      pipelining: 1,
      headersTimeout: slack,
      bodyTimeout: slack,
      connect: { lookup: this.lookup, timeout: this.timeoutMs },
    })
    o = { pool, refused }
    this.origins.set(t.origin, o)
    return o
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? ATTEMPT_TIMEOUT_MS
  }

  /** Drop pooled connections of an origin (its endpoint changed or went away). */
  forget(origin: string): void {
    void this.origins.get(origin)?.pool.destroy().catch(() => {})
    this.origins.delete(origin)
    this.targets.clear()
  }

  close(): void {
    for (const o of this.origins.values()) void o.pool.destroy().catch(() => {})
    this.origins.clear()
    this.targets.clear()
  }

  async send(m: SignedMessage): Promise<SendOutcome> {
    const began = performance.now()
    const elapsed = () => Math.round(performance.now() - began)
    const target = this.targetOf(m.url)
    const origin = await this.originOf(target)
    if (origin.refused !== null) return { result: 'address_not_allowed', status: null, error: origin.refused, latencyMs: elapsed() }
    const headers = {
      'content-type': 'application/json',
      'user-agent': this.options.userAgent ?? 'Hark-Webhooks/1',
      ...signatureHeaders(m),
    }
    return new Promise<SendOutcome>((resolve) => {
      let settled = false
      let status: number | null = null
      let read = 0
      let abort: ((reason: Error) => void) | null = null
      const finish = (o: Omit<SendOutcome, 'latencyMs'>) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve({ ...o, latencyMs: elapsed() })
      }
      const answered = (s: number) => {
        if (s >= 200 && s < 300) finish({ result: 'success', status: s, error: null })
        else if (s >= 300 && s < 400) finish({ result: 'http_error', status: s, error: `redirect not followed (HTTP ${s})` })
        else finish({ result: 'http_error', status: s, error: `HTTP ${s}` })
      }
      // Real time on purpose: it bounds real network I/O, whatever the engine's clock says.
      const timer = setTimeout(() => {
        finish({ result: 'timeout', status: null, error: `no complete answer within ${this.timeoutMs} ms` })
        abort?.(new Error('attempt timed out'))
      }, this.timeoutMs)
      // Redirects are not followed: a plain dispatch has no redirect handling.
      origin.pool.dispatch(
        { path: target.path, method: 'POST', headers, body: m.body },
        {
          onRequestStart: (controller) => {
            if (settled) controller.abort(new Error('attempt already settled'))
            else abort = (reason) => controller.abort(reason)
          },
          onResponseStart: (_controller, statusCode) => {
            status = statusCode
          },
          // The answer's body is not needed: read to the end so the connection can be reused,
          // unless it is long; then the status decides and the connection goes.
          onResponseData: (controller, chunk) => {
            read += chunk.length
            if (read <= MAX_RESPONSE_BYTES || settled) return
            answered(status!)
            controller.abort(new Error('response too long; not read on'))
          },
          onResponseEnd: () => answered(status!),
          onResponseError: (_controller, e: Error & { code?: string }) => {
            if (e instanceof AddressNotAllowed) finish({ result: 'address_not_allowed', status: null, error: `address_not_allowed: ${e.message}` })
            else if (status !== null) finish({ result: 'network_error', status, error: 'response aborted' })
            else finish({ result: 'network_error', status: null, error: e.code ?? e.message })
          },
        },
      )
    })
  }
}
