/**
 * A console API caller for tests, as a browser would be: real HTTPS to the engine's console port
 * (trusting the engine's own certificate), the session cookie kept from Set-Cookie, the CSRF token
 * from the session, and `Origin` on every change. Options drop or falsify each of them.
 */
import { request as httpsRequest } from 'node:https'
import { Inbox } from '../../../core/test/helpers.js'

// any: tests read response bodies field by field right after checking the status.
type Json = any

export interface ConsoleResponse<T = Json> {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly body: T
}

export interface CallOptions {
  /** Send no X-CSRF-Token (or this one instead of the session's). */
  readonly csrf?: string | null
  /** Send this Origin (null: none). Default: the console's own. */
  readonly origin?: string | null
  readonly headers?: Record<string, string>
  /** A raw body, sent as is. */
  readonly raw?: string
}

export class ConsoleClient {
  /** The session cookie's value, once signed in. */
  sessionId: string | null = null
  csrfToken: string | null = null
  /** Every response this client received, for the no-secret scan. */
  readonly seen: ConsoleResponse[] = []

  constructor(
    readonly base: string,
    private readonly ca: string,
  ) {}

  /** A fresh client (no cookie) for the same console. */
  anonymous(): ConsoleClient {
    return new ConsoleClient(this.base, this.ca)
  }

  call<T = Json>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<ConsoleResponse<T>> {
    const url = new URL(this.base + path)
    const headers: Record<string, string> = { ...options.headers }
    if (this.sessionId !== null) headers.cookie = `__Host-hark_session=${this.sessionId}`
    const unsafe = method !== 'GET' && method !== 'HEAD'
    if (unsafe) {
      const origin = options.origin === undefined ? this.base : options.origin
      if (origin !== null) headers.origin = origin
      const csrf = options.csrf === undefined ? this.csrfToken : options.csrf
      if (csrf !== null) headers['x-csrf-token'] = csrf
    }
    let payload: string | undefined = options.raw
    if (body !== undefined) {
      payload = JSON.stringify(body)
      headers['content-type'] = 'application/json'
    } else if (unsafe && payload === undefined && method !== 'DELETE') {
      payload = '{}'
      headers['content-type'] = 'application/json'
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, ca: this.ca },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (d: string) => (text += d))
          res.on('end', () => {
            const type = String(res.headers['content-type'] ?? '')
            const response: ConsoleResponse<T> = {
              status: res.statusCode!,
              headers: res.headers,
              text,
              body: (type.startsWith('application/json') && text ? JSON.parse(text) : text) as T,
            }
            for (const cookie of res.headers['set-cookie'] ?? []) {
              const m = /^__Host-hark_session=([^;]*)/.exec(cookie)
              if (m) this.sessionId = m[1] === '' ? null : m[1]!
            }
            const b = response.body as { csrfToken?: unknown }
            if (typeof b === 'object' && b !== null && typeof b.csrfToken === 'string') this.csrfToken = b.csrfToken
            this.seen.push(response)
            resolve(response)
          })
        },
      )
      req.on('error', reject)
      req.end(payload)
    })
  }

  get<T = Json>(path: string, o?: CallOptions) {
    return this.call<T>('GET', path, undefined, o)
  }
  post<T = Json>(path: string, body?: unknown, o?: CallOptions) {
    return this.call<T>('POST', path, body, o)
  }
  patch<T = Json>(path: string, body?: unknown, o?: CallOptions) {
    return this.call<T>('PATCH', path, body, o)
  }
  put<T = Json>(path: string, body?: unknown, o?: CallOptions) {
    return this.call<T>('PUT', path, body, o)
  }
  delete<T = Json>(path: string, o?: CallOptions) {
    return this.call<T>('DELETE', path, undefined, o)
  }

  /** Open a workspace's event stream; its events (name and JSON data) arrive in an inbox. */
  events(workspaceId: string): Promise<EventStream> {
    const url = new URL(`${this.base}/api/workspaces/${workspaceId}/events`)
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        { host: url.hostname, port: url.port, path: url.pathname, ca: this.ca, headers: this.sessionId ? { cookie: `__Host-hark_session=${this.sessionId}` } : {} },
        (res) => {
          const stream = new EventStream(res.statusCode!, () => req.destroy())
          let buffer = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            buffer += chunk
            for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
              const block = buffer.slice(0, end)
              buffer = buffer.slice(end + 2)
              const name = /^event: (.*)$/m.exec(block)?.[1]
              const data = /^data: (.*)$/m.exec(block)?.[1]
              if (name !== undefined && data !== undefined) stream.inbox.push({ event: name, data: JSON.parse(data) })
            }
          })
          res.on('end', () => stream.inbox.push({ event: '(closed)', data: null }))
          resolve(stream)
        },
      )
      req.on('error', (e) => (e.message === 'socket hang up' ? undefined : reject(e)))
      req.end()
    })
  }

  async signIn(email: string, password: string): Promise<ConsoleResponse> {
    const r = await this.post('/api/session', { email, password })
    if (r.status !== 200) throw new Error(`sign-in of ${email} failed: ${r.status} ${r.text}`)
    return r
  }
}

/** A server-sent-event stream as it arrives. */
export class EventStream {
  readonly inbox = new Inbox<{ event: string; data: Json }>()
  constructor(
    readonly status: number,
    readonly close: () => void,
  ) {}

  next(event: string, predicate: (data: Json) => boolean = () => true, timeoutMs = 5000) {
    return this.inbox.next((e) => e.event === event && predicate(e.data), timeoutMs, `event ${event}`)
  }
}
