/**
 * Peer for rest-token: a bare fastify route that does only what issuing a client token needs —
 * check a bearer API key (sha256 of it among the workspace's key hashes, as Hark stores them) and
 * sign the same claims as Hark (iss, sub, aud, jti a ULID, iat, exp; kid header) with jose 6 under
 * a CryptoKey imported once. No schema, no client lookup, no rate limit, no token record: Hark ÷
 * this is what Hark's REST plugin adds around the signature. The key hashes and the signing
 * secret come from Hark's data dir, the secret unsealed with its master key.
 * Usage: node dist/bench/peers/fastifyToken.js --port N --data DIR --workspace ID (IPC: ready).
 */
import { createHash, webcrypto } from 'node:crypto'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fastify } from 'fastify'
import { SignJWT } from 'jose'
import { newJti } from '../../core/ids.js'
import { TOKEN_AUDIENCE } from '../../core/security/signingKeyring.js'
import { loadMasterKey, makeMasterKey } from '../../core/security/masterKey.js'
import { openStorage } from '../../core/storage/storage.js'
import { serveWorker } from '../harness/worker.js'

const { values } = parseArgs({ options: { port: { type: 'string' }, data: { type: 'string' }, workspace: { type: 'string' } } })
const port = Number(values.port)
if (!port || !values.data || !values.workspace) throw new Error('--port N, --data DIR and --workspace ID are required')
const workspaceId = values.workspace

const storage = openStorage(join(values.data, 'hark.db'))
const masterKey = makeMasterKey(loadMasterKey({ value: null, file: join(values.data, 'master.key') }).key)
const keyHashes = new Set(storage.apiKeys.list(workspaceId).filter((k) => k.revokedAt === null).map((k) => k.keyHash))
const secret = storage.signingSecrets.live(workspaceId, Date.now())[0]
if (!secret) throw new Error(`no signing secret for ${workspaceId}`)
const kid = secret.kid
const key = await webcrypto.subtle.importKey('raw', masterKey.open('signing-secret', secret.secretEnc), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
storage.close()

const app = fastify({ logger: false })
app.post<{ Params: { clientId: string }; Body: { ttlSeconds?: unknown } | undefined }>('/api/v1/clients/:clientId/token', async (request, reply) => {
  const auth = request.headers.authorization
  const presented = auth?.startsWith('Bearer ') ? auth.slice(7) : ''
  if (!keyHashes.has(createHash('sha256').update(presented).digest('hex'))) return reply.code(401).send({ error: 'unauthorized' })
  const ttl = typeof request.body?.ttlSeconds === 'number' ? request.body.ttlSeconds : 3600
  const now = Date.now()
  const jti = newJti(now)
  const iat = Math.floor(now / 1000)
  const claims = { iss: workspaceId, sub: request.params.clientId, aud: TOKEN_AUDIENCE, jti, iat, exp: iat + ttl }
  const token = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid }).sign(key)
  return { token, clientId: request.params.clientId, jti, expiresAt: (iat + ttl) * 1000 }
})
const send = serveWorker({ deadlineMs: 60 * 60_000, onMessage: () => {}, onStop: () => app.close() })
await app.listen({ host: '127.0.0.1', port })
send({ type: 'ready', port })
