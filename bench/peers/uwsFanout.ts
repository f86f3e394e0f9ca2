/**
 * Peer: a bare uWebSockets.js fan-out server, the floor for Hark's WebSocket gateway. TLS like
 * the gateway (the same self-signed EC P-256 material), one topic per room, every binary message
 * published to the sender's room with uWS pub/sub (which batches its writes per event-loop turn).
 * No authentication, no framing, no JSON: a ceiling for what Node + uWS can forward.
 * Usage: node dist/bench/peers/uwsFanout.js --port N --cert FILE --key FILE (IPC: ready).
 */
import { parseArgs } from 'node:util'
import uWS from 'uWebSockets.js'
import { serveWorker } from '../harness/worker.js'

const { values } = parseArgs({ options: { port: { type: 'string' }, cert: { type: 'string' }, key: { type: 'string' } } })
const port = Number(values.port)
if (!port || !values.cert || !values.key) throw new Error('--port, --cert and --key are required')

interface Terminal {
  readonly room: string
}

let listenSocket: uWS.us_listen_socket | null = null
const send = serveWorker({
  deadlineMs: 60 * 60_000,
  onMessage: () => {},
  onStop: () => {
    if (listenSocket) uWS.us_listen_socket_close(listenSocket)
  },
})

uWS
  .SSLApp({ cert_file_name: values.cert, key_file_name: values.key })
  .ws<Terminal>('/v1/connect', {
    compression: uWS.DISABLED,
    maxPayloadLength: 64 * 1024,
    maxBackpressure: 1024 * 1024,
    idleTimeout: 120,
    upgrade: (res, req, context) => {
      const room = req.getQuery('room')
      if (!room) {
        res.writeStatus('400 Bad Request').end('room required')
        return
      }
      res.upgrade<Terminal>(
        { room },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      )
    },
    open: (ws) => {
      ws.subscribe(ws.getUserData().room)
    },
    message: (ws, message, isBinary) => {
      if (isBinary) ws.publish(ws.getUserData().room, message, true)
    },
  })
  .get('/healthz', (res) => {
    res.end('ok')
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) {
      send({ type: 'error', message: `uws: cannot listen on 127.0.0.1:${port}` })
      process.exit(1)
    }
    listenSocket = socket
    send({ type: 'ready', port })
  })
