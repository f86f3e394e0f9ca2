/**
 * An HTTPS client for tests of the gateway port: node:https trusting the engine's certificate,
 * with repeatable headers (an array value is sent as one header line per value) and the whole
 * response read back (status, every header, body).
 */
import { request } from 'node:https'
import type { IncomingHttpHeaders } from 'node:http'

export interface HttpsResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
  readonly text: string
  /** The body parsed as JSON (throws when it is not JSON). */
  json<T = unknown>(): T
}

export interface HttpsRequestOptions {
  readonly method?: string
  readonly headers?: Record<string, string | string[]>
  readonly body?: string | Buffer
  /** Send the body in this many chunks with `Transfer-Encoding: chunked` (no Content-Length). */
  readonly chunks?: number
}

/** One request to `https://127.0.0.1:port/path`. */
export const httpsRequest = (port: number, path: string, ca: string, opts: HttpsRequestOptions = {}): Promise<HttpsResponse> =>
  new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.from(opts.body)
    const headers: Record<string, string | string[]> = { ...(opts.headers ?? {}) }
    if (body && !opts.chunks) headers['content-length'] = String(body.length)
    const req = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers, ca, servername: 'localhost', agent: false },
      (res) => {
        const parts: Buffer[] = []
        res.on('data', (d: Buffer) => parts.push(d))
        res.on('error', reject)
        res.on('end', () => {
          const buffer = Buffer.concat(parts)
          const text = buffer.toString('utf8')
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buffer, text, json: <T>() => JSON.parse(text) as T })
        })
      },
    )
    req.on('error', reject)
    if (body && opts.chunks) {
      const size = Math.ceil(body.length / opts.chunks)
      for (let at = 0; at < body.length; at += size) req.write(body.subarray(at, at + size))
      req.end()
    } else req.end(body)
  })
