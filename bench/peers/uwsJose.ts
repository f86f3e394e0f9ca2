/**
 * Peer for reconnect: a bare uWebSockets.js 20.30 SSLApp that admits a terminal only with a valid
 * client token — the same HS256 JWTs Hark issues (bench seed), verified with jose 6 `jwtVerify`
 * (WebCrypto HMAC, one CryptoKey per signing secret imported once, found by the token's kid; HS256
 * only, aud and iss) in an asynchronous upgrade — then subscribes the socket to its room's topic.
 * No revocation, no client lookup, no session, no presence: Hark ÷ this is what Hark adds around
 * the same TLS handshake and the same signature check. The secrets come from Hark's data dir,
 * unsealed with its master key (as bench/workers/verifyJose.ts).
 * Usage: node dist/bench/peers/uwsJose.js --port N --cert FILE --key FILE --data DIR --workspace ID
 * (IPC: ready). Query: ?room=ROOM&client=CLIENT_ID&token=JWT (the token's sub must be the client).
 */
import { webcrypto } from 'node:crypto'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { decodeProtectedHeader, jwtVerify } from 'jose'
import uWS from 'uWebSockets.js'
import { TOKEN_AUDIENCE } from '../../core/security/signingKeyring.js'
import { loadMasterKey, makeMasterKey } from '../../core/security/masterKey.js'
import { openStorage } from '../../core/storage/storage.js'
import { serveWorker } from '../harness/worker.js'

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
    data: { type: 'string' },
    workspace: { type: 'string' },
  },
})
const port = Number(values.port)
if (!port || !values.cert || !values.key || !values.data || !values.workspace) {
  throw new Error('--port N, --cert FILE, --key FILE, --data DIR and --workspace ID are required')
}
const workspaceId = values.workspace

const storage = openStorage(join(values.data, 'hark.db'))
const masterKey = makeMasterKey(loadMasterKey({ value: null, file: join(values.data, 'master.key') }).key)
const keys = new Map<string, webcrypto.CryptoKey>()
for (const s of storage.signingSecrets.live(workspaceId, Date.now())) {
  const raw = masterKey.open('signing-secret', s.secretEnc)
  keys.set(s.kid, await webcrypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']))
}
storage.close()
if (keys.size === 0) throw new Error(`no signing secret for ${workspaceId}`)
const verifyOptions = { algorithms: ['HS256'], audience: TOKEN_AUDIENCE, issuer: workspaceId }

/** The client the token admits, or a thrown error. */
const verify = async (token: string, clientId: string): Promise<string> => {
  const key = keys.get(String(decodeProtectedHeader(token).kid))
  if (!key) throw new Error('unknown secret')
  const { payload } = await jwtVerify(token, key, verifyOptions)
  if (payload.sub !== clientId) throw new Error('token of another client')
  return payload.sub
}

interface Terminal {
  readonly room: string
  readonly clientId: string
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
      // Everything of `req` is read now: it is gone once this function returns.
      const room = req.getQuery('room')
      const clientId = req.getQuery('client')
      const token = req.getQuery('token')
      const wsKey = req.getHeader('sec-websocket-key')
      const wsProtocol = req.getHeader('sec-websocket-protocol')
      const wsExtensions = req.getHeader('sec-websocket-extensions')
      if (!room || !clientId || !token) {
        res.writeStatus('400 Bad Request').end('room, client and token required')
        return
      }
      let aborted = false
      res.onAborted(() => {
        aborted = true
      })
      verify(token, clientId).then(
        () => {
          if (aborted) return
          res.cork(() => res.upgrade<Terminal>({ room, clientId }, wsKey, wsProtocol, wsExtensions, context))
        },
        () => {
          if (aborted) return
          res.cork(() => res.writeStatus('401 Unauthorized').end('invalid token'))
        },
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
      send({ type: 'error', message: `uws-jose: cannot listen on 127.0.0.1:${port}` })
      process.exit(1)
    }
    listenSocket = socket
    send({ type: 'ready', port })
  })
