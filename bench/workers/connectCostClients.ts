/**
 * The clients of connectCost.ts, in a process of their own so their CPU is not the engine's: on
 * `connect`, every token's WSS connection is opened, 64 at a time, until each heard `session`; on
 * `close`, all are closed and their close handshakes awaited. Answers each request when done.
 */
import WebSocket from 'ws'

export type ClientsRequest =
  | { readonly type: 'init'; readonly url: string; readonly tokens: ReadonlyArray<string>; readonly ca: string }
  | { readonly type: 'connect' }
  | { readonly type: 'close' }

const LANES = 64
let config: Extract<ClientsRequest, { type: 'init' }> | null = null
let open: WebSocket[] = []

/** Connects that failed (a socket error or a close before `session`) and were made again. */
let retries = 0
const MAX_ATTEMPTS = 5

const attempt = (url: string, ca: string) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { ca, perMessageDeflate: false })
    let session = false
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary && (JSON.parse(data.toString()) as { type: string }).type === 'session') {
        session = true
        resolve(ws)
      }
    })
    ws.on('error', reject)
    ws.on('close', (code: number, reason: Buffer) => {
      if (!session) reject(new Error(`closed before session: ${code} ${reason.toString()}`))
    })
  })

/** One terminal's connect; on a loaded machine a handshake may fail, and the terminal tries again. */
const connectOne = async (url: string, ca: string): Promise<WebSocket> => {
  for (let n = 1; ; n++) {
    try {
      return await attempt(url, ca)
    } catch (e) {
      if (n >= MAX_ATTEMPTS) throw e
      retries++
    }
  }
}

process.on('message', (request: ClientsRequest) => {
  void (async () => {
    if (request.type === 'init') config = request
    else if (request.type === 'connect' && config !== null) {
      const { url, tokens, ca } = config
      let next = 0
      const lane = async () => {
        while (next < tokens.length) open.push(await connectOne(url + tokens[next++]!, ca))
      }
      await Promise.all(Array.from({ length: LANES }, lane))
    } else if (request.type === 'close') {
      await Promise.all(open.map((ws) => new Promise((resolve) => {
        ws.on('close', resolve)
        ws.close(1000)
      })))
      open = []
    }
    process.send!({ retries })
  })()
})
