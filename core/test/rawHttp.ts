/**
 * HTTP for tests that send what a well-behaved client would not: raw bytes on a TCP socket (half
 * a request, a 100 KB URL, CONNECT), read until the server closes, noting a reset; and node:http
 * requests through a chosen agent, so a test can see whether a keep-alive socket is reused.
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'

export interface RawExchange {
  /** Everything the server sent, as text. */
  readonly text: string
  /** The status code of the first response line, or null when nothing came. */
  readonly status: number | null
  /** Header lines of the first response, names lower-cased. */
  readonly headers: ReadonlyMap<string, string>
  /** The first response's body (after the blank line). */
  readonly body: string
  /** The connection ended with a reset (ECONNRESET/EPIPE) rather than a clean close. */
  readonly reset: boolean
}

const parse = (text: string, reset: boolean): RawExchange => {
  const end = text.indexOf('\r\n\r\n')
  const head = end < 0 ? text : text.slice(0, end)
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = new Map<string, string>()
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine)
  return { text, status: status ? Number(status[1]) : null, headers, body: end < 0 ? '' : text.slice(end + 4), reset }
}

/**
 * Open a TCP connection, write `data` (all at once; nothing for ''), and collect what comes back
 * until the server closes the connection.
 */
export const rawExchange = (port: number, data: string | Buffer): Promise<RawExchange> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const parts: Buffer[] = []
    let reset = false
    socket.on('data', (d: Buffer) => parts.push(d))
    socket.on('error', (e: NodeJS.ErrnoException) => {
      reset ||= e.code === 'ECONNRESET' || e.code === 'EPIPE'
    })
    socket.on('close', () => resolve(parse(Buffer.concat(parts).toString('utf8'), reset)))
    socket.on('connect', () => {
      if (data.length > 0) socket.write(data)
    })
  })

/** Connect until the listener refuses (it closed); every accepted probe is closed at once. */
export const untilRefused = async (port: number, attempts = 10_000): Promise<void> => {
  for (let i = 0; i < attempts; i++) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (!accepted) return
  }
  throw new Error(`port ${port} still accepted connections after ${attempts} attempts`)
}

export interface HttpResult {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** The local port of the socket that carried the request (equal ports: the socket was reused). */
  readonly localPort: number
}

/** One node:http request to 127.0.0.1:port, through `agent` (a keep-alive agent reuses sockets). */
export const httpRequest = (
  port: number,
  path: string,
  opts: { method?: string; agent?: Agent; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResult> =>
  new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', agent: opts.agent, headers: opts.headers }, (res) => {
      const parts: Buffer[] = []
      const localPort = res.socket.localPort ?? 0
      res.on('data', (d: Buffer) => parts.push(d))
      res.on('error', reject)
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8'), localPort }))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
