/**
 * A terminal for tests: a real `ws` client over TLS speaking terminal protocol v1, with inboxes
 * for events and audio frames and a promise of the close code and reason.
 */
import WebSocket from 'ws'
import type { ServerEvent } from '../../../core/events.js'
import { Inbox, nextEvent } from '../../../core/test/helpers.js'

export interface Refusal {
  readonly status: number
  readonly body: { error: { message: string; code: string } }
}

export interface Closed {
  readonly code: number
  readonly reason: string
}

export class TestTerminal {
  readonly events = new Inbox<ServerEvent>()
  readonly frames = new Inbox<Uint8Array>()
  /** Every message in arrival order: events by type, frames as 'audio'. */
  readonly order: string[] = []
  readonly closed: Promise<Closed>
  /** The client-side error that ended the connection, if any. */
  error: Error | null = null

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })))
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) {
        this.order.push('audio')
        this.frames.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
      } else {
        const event = JSON.parse(data.toString()) as ServerEvent
        this.order.push(event.type)
        this.events.push(event)
      }
    })
    ws.on('error', (e) => { this.error = e })
  }

  /** Open `wss://127.0.0.1:port/v1/connect?…`, trusting the engine's certificate. */
  static connect(port: number, query: Record<string, string>, ca: string, path = '/v1/connect'): Promise<TestTerminal> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`wss://127.0.0.1:${port}${path}?${new URLSearchParams(query)}`, { ca, perMessageDeflate: false })
      const terminal = new TestTerminal(ws)
      ws.once('open', () => resolve(terminal))
      ws.once('unexpected-response', (_req, res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += d))
        res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body) })))
      })
      ws.once('error', reject)
    })
  }

  /** The refusal of a connection attempt that must fail. */
  static async refused(port: number, query: Record<string, string>, ca: string, path?: string): Promise<Refusal> {
    try {
      const t = await TestTerminal.connect(port, query, ca, path)
      t.ws.terminate()
    } catch (e) {
      const r = e as Partial<Refusal>
      if (typeof r.status === 'number') return { status: r.status, body: r.body! }
      throw e
    }
    throw new Error('connection was accepted')
  }

  event<T extends ServerEvent['type']>(type: T, predicate?: (e: Extract<ServerEvent, { type: T }>) => boolean) {
    return nextEvent(this.events, type, predicate)
  }

  sendAudio(uplink: Uint8Array): void {
    this.ws.send(uplink, { binary: true })
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message))
  }

  sendText(text: string): void {
    this.ws.send(text, { binary: false })
  }

  close(): void {
    this.ws.close()
  }
}
