/**
 * token-verify, the peer: fast-jwt (synchronous node:crypto HMAC) verifying the very tokens Hark
 * issued, doing the same checks Hark does — kid and iss read from the token, the secret looked
 * up by (iss, kid), HS256 only, aud, iss, exp, sub and jti required, a revocation set, and the
 * jti's ULID time decoded (Hark also refuses an iat far ahead, one comparison). Secrets come
 * from the same data dir, unsealed with its master key.
 * Usage: node dist/bench/workers/verifyFastJwt.js --data DIR --workspace ID (then IPC: start, go).
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createDecoder, createVerifier } from 'fast-jwt'
import { decodeTime } from 'ulid'
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
  const verifiers = new Map<string, (token: string) => { sub?: unknown; jti?: unknown }>()
  for (const s of storage.signingSecrets.live(workspaceId, Date.now())) {
    const key = masterKey.open('signing-secret', s.secretEnc)
    verifiers.set(`${workspaceId} ${s.kid}`, createVerifier({
      key,
      algorithms: ['HS256'],
      allowedAud: 'service-client',
      allowedIss: workspaceId,
      requiredClaims: ['sub', 'jti'],
      // Distinct tokens would miss a cache anyway; off, so every call does the HMAC.
      cache: false,
    }))
  }
  storage.close()
  const decode = createDecoder({ complete: true }) as (t: string) => { header: { kid?: unknown }; payload: { iss?: unknown } }
  const revoked = new Set<string>()
  return (token) => {
    const { header, payload } = decode(token)
    const verifier = verifiers.get(`${String(payload.iss)} ${String(header.kid)}`)
    if (!verifier) throw new Error('unknown secret')
    const claims = verifier(token)
    const jti = String(claims.jti)
    if (revoked.has(jti)) throw new Error('revoked')
    return { clientId: claims.sub, jti, issuedAt: decodeTime(jti) }
  }
})
