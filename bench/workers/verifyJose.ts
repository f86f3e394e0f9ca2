/**
 * token-verify, the floor of Hark's own verifier: bare jose 6 `jwtVerify` (WebCrypto HMAC) on the
 * very tokens Hark issued, with one CryptoKey per secret imported once, the secret found from the
 * token's kid, HS256 only, aud and iss, and nothing else (no revocation, no engine clock, no jti
 * time). Hark's side minus this one is what Hark adds around jose; this one minus fast-jwt is the
 * price of jose and WebCrypto. Secrets come from the same data dir, unsealed with its master key.
 * Usage: node dist/bench/workers/verifyJose.js --data DIR --workspace ID (then IPC: start, go).
 */
import { webcrypto } from 'node:crypto'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { decodeProtectedHeader, jwtVerify } from 'jose'
import { loadMasterKey, makeMasterKey } from '../../core/security/masterKey.js'
import { openStorage } from '../../core/storage/storage.js'
import { serveVerifier } from './verifyLoop.js'

const { values } = parseArgs({ options: { data: { type: 'string' }, workspace: { type: 'string' } } })
if (!values.data || !values.workspace) throw new Error('--data DIR and --workspace ID are required')
const data = values.data
const workspaceId = values.workspace

serveVerifier(async () => {
  const storage = openStorage(join(data, 'hark.db'))
  const masterKey = makeMasterKey(loadMasterKey({ value: null, file: join(data, 'master.key') }).key)
  const keys = new Map<string, webcrypto.CryptoKey>()
  for (const s of storage.signingSecrets.live(workspaceId, Date.now())) {
    const raw = masterKey.open('signing-secret', s.secretEnc)
    keys.set(s.kid, await webcrypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']))
  }
  storage.close()
  const options = { algorithms: ['HS256'], audience: 'service-client', issuer: workspaceId }
  return (token) => {
    const key = keys.get(String(decodeProtectedHeader(token).kid))
    if (!key) throw new Error('unknown secret')
    return jwtVerify(token, key, options)
  }
})
