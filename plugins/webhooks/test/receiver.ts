/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 (a free port) that verifies every
 * request with the `standardwebhooks` package as a back end would, answers what the test decides
 * (2xx, an error, or nothing at all), and keeps what it accepted in order.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { Inbox } from '../../../core/test/helpers.js'

export interface ReceivedEvent {
  readonly id: string
  readonly type: string
  readonly timestamp: string
  readonly workspaceId: string
  readonly resource: string
  readonly sequence: number
  readonly data: Record<string, unknown>
}

export interface ReceivedRequest {
  readonly headers: Record<string, string>
  readonly raw: string
  readonly event: ReceivedEvent
  /** Which of the receiver's secrets verified it (`Webhook.verify`), by index; empty when none did. */
  readonly verifiedBy: number[]
  /** This request's number among the requests carrying the same webhook-id (1 = first). */
  readonly attempt: number
  /** What the receiver answered (null: it held the request without answering). */
  status: number | null
}

/** Decides the answer to a request: a status, or 'hold' to never answer. */
export type Responder = (r: ReceivedRequest) => number | 'hold'

/**
 * `strict`: Webhook.verify (signature and the 5-minute timestamp window against real time).
 * `signature`: only the signature, for tests whose engine clock runs days ahead of real time.
 */
export type VerifyMode = 'strict' | 'signature'

const signatureOnly = (secret: string, raw: string, headers: Record<string, string>): boolean => {
  const ts = Number(headers['webhook-timestamp'])
  const expected = new Webhook(secret).sign(headers['webhook-id']!, new Date(ts * 1000), raw)
  return (headers['webhook-signature'] ?? '').split(' ').includes(expected)
}

export class WebhookReceiver {
  readonly requests = new Inbox<ReceivedRequest>()
  /** Events answered with a 2xx, in the order they were answered. */
  readonly accepted = new Inbox<ReceivedEvent>()
  secrets: string[] = []
  verify: VerifyMode = 'strict'
  respond: Responder = () => 200
  private readonly attempts = new Map<string, number>()
  private readonly held: ServerResponse[] = []

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/hooks'): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined
    const server = createServer((req, res) => receiver!.handle(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}${path}`)
    return receiver
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString()
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
      const verifiedBy: number[] = []
      this.secrets.forEach((secret, i) => {
        try {
          if (this.verify === 'strict') new Webhook(secret).verify(raw, headers)
          else if (!signatureOnly(secret, raw, headers)) return
          verifiedBy.push(i)
        } catch {
          // Not signed by this secret.
        }
      })
      const event = JSON.parse(raw) as ReceivedEvent
      const id = headers['webhook-id'] ?? ''
      const attempt = (this.attempts.get(id) ?? 0) + 1
      this.attempts.set(id, attempt)
      const r: ReceivedRequest = { headers, raw, event, verifiedBy, attempt, status: null }
      // Unsigned requests are refused, as a receiver would.
      const answer = verifiedBy.length === 0 ? 401 : this.respond(r)
      if (answer === 'hold') {
        this.held.push(res)
        this.requests.push(r)
        return
      }
      r.status = answer
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no')
      if (answer >= 200 && answer < 300) this.accepted.push(event)
      this.requests.push(r)
    })
  }

  /** Wait until `n` events were accepted. */
  async acceptedCount(n: number, timeoutMs = 20_000): Promise<void> {
    await this.accepted.next(() => this.accepted.items.length >= n, timeoutMs, `${n} accepted events (have ${this.accepted.items.length})`)
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy()
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

/**
 * Check what a receiver accepted: no event twice, and per resource the sequence numbers in the
 * order they were accepted are 1, 2, 3 … (complete and in order). Returns the events by resource.
 */
export const checkOrderedAndComplete = (events: ReadonlyArray<ReceivedEvent>): Map<string, ReceivedEvent[]> => {
  const ids = new Set<string>()
  const byResource = new Map<string, ReceivedEvent[]>()
  for (const e of events) {
    if (ids.has(e.id)) throw new Error(`event ${e.id} (${e.type} ${e.resource} #${e.sequence}) accepted twice`)
    ids.add(e.id)
    const list = byResource.get(e.resource) ?? []
    list.push(e)
    byResource.set(e.resource, list)
  }
  for (const [resource, list] of byResource) {
    const seqs = list.map((e) => e.sequence)
    const expected = list.map((_, i) => i + 1)
    if (seqs.join(',') !== expected.join(',')) throw new Error(`${resource}: sequence ${seqs.join(',')} is not ${expected.join(',')}`)
  }
  return byResource
}
