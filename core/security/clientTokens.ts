/**
 * Client tokens: HS256 JWTs with iss = workspaceId, sub = clientId, aud = "service-client",
 * jti (a ULID), iat, exp only when a TTL is given, and the signing secret's id in the `kid`
 * header. Signing and verification use fast-jwt (synchronous node:crypto HMAC): jose 6 runs
 * every HMAC through WebCrypto's job dispatch, which capped verification at ~34k/s per core here
 * against ~100k/s. Verification checks the algorithm, audience, issuer-to-secret, expiry (on the
 * engine clock) and revocation; the caller checks the client still exists.
 */
import { createDecoder, TokenError } from 'fast-jwt'
import type { ClockShape } from '../clock.js'
import { NotFound, TokenExpired, TokenInvalid, TokenRevoked, WorkspaceNotFound } from '../errors.js'
import { jtiTime, newJti } from '../ids.js'
import type { IssuedTokenRecord } from '../storage/issuedTokens.js'
import type { StorageShape } from '../storage/storage.js'
import type { Revocations } from './revocations.js'
import { TOKEN_AUDIENCE, type SigningKeyring } from './signingKeyring.js'

export { TOKEN_AUDIENCE }

const decodeComplete = createDecoder({ complete: true }) as (token: string) => {
  header: Record<string, unknown>
  payload: Record<string, unknown>
}

export interface IssuedToken {
  readonly token: string
  readonly clientId: string
  readonly jti: string
  /** Expiry in ms since the epoch, or null for a long-lived token. */
  readonly expiresAt: number | null
}

export interface VerifiedToken {
  readonly workspaceId: string
  readonly clientId: string
  readonly jti: string
  /** ms since the epoch when the token was minted (from its jti). */
  readonly issuedAt: number
  readonly expiresAt: number | null
}

const invalid = (message: string) => new TokenInvalid({ message })

export class ClientTokens {
  /** Token records waiting for this turn's group commit, and that commit. */
  private pending: Array<Omit<IssuedTokenRecord, 'revokedAt'>> = []
  private commit: Promise<void> | null = null

  constructor(
    private readonly storage: StorageShape,
    private readonly keyring: SigningKeyring,
    private readonly revocations: Revocations,
    private readonly clock: ClockShape,
  ) {}

  /** Mint and record a token for an existing client. `ttlSeconds` null = long-lived. */
  async issue(workspaceId: string, clientId: string, ttlSeconds: number | null): Promise<IssuedToken> {
    const key = this.keyring.signingKey(workspaceId)
    if (!key) throw new WorkspaceNotFound({ message: `no workspace ${workspaceId}` })
    const now = this.clock.now()
    const jti = newJti(now)
    const iat = Math.floor(now / 1000)
    const exp = ttlSeconds === null ? null : iat + ttlSeconds
    const claims = {
      iss: workspaceId,
      sub: clientId,
      aud: TOKEN_AUDIENCE,
      jti,
      iat,
      ...(exp === null ? {} : { exp }),
    }
    const token = key.sign(claims)
    const expiresAt = exp === null ? null : exp * 1000
    // Recorded before the token is handed out, so a revocation by jti always finds it.
    await this.record({ jti, workspaceId, clientId, issuedAt: now, expiresAt })
    return { token, clientId, jti, expiresAt }
  }

  /** Queue a token record for this turn's group commit: one statement for every token minted. */
  private record(token: Omit<IssuedTokenRecord, 'revokedAt'>): Promise<void> {
    this.pending.push(token)
    this.commit ??= this.storage.batch(() => {
      const tokens = this.pending
      this.pending = []
      this.commit = null
      this.storage.issuedTokens.insertMany(tokens)
    })
    return this.commit
  }

  /** Verify signature and claims; throws TokenInvalid, TokenExpired or TokenRevoked. */
  async verify(token: string): Promise<VerifiedToken> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) throw invalid('malformed token')
    let header: Record<string, unknown>
    let claims: Record<string, unknown>
    try {
      ;({ header, payload: claims } = decodeComplete(token))
    } catch {
      throw invalid('malformed token')
    }
    const { kid } = header
    const { iss } = claims
    if (typeof kid !== 'string' || typeof iss !== 'string') throw invalid('token lacks kid or iss')
    const key = this.keyring.verificationKey(iss, kid)
    if (!key) throw invalid('token signed by an unknown or retired secret')
    let payload: Record<string, unknown>
    try {
      payload = key.verify(token)
    } catch (e) {
      throw invalid(e instanceof TokenError ? `token rejected: ${e.code}` : 'token rejected')
    }
    const { sub, jti, exp } = payload
    if (typeof sub !== 'string' || typeof jti !== 'string') throw invalid('token lacks sub or jti')
    if (exp !== undefined && (typeof exp !== 'number' || !Number.isFinite(exp))) throw invalid('token has a malformed exp')
    if (exp !== undefined && exp * 1000 <= this.clock.now()) throw new TokenExpired({ message: 'token expired' })
    if (this.revocations.has(jti)) throw new TokenRevoked({ message: 'token revoked' })
    const issuedAt = jtiTime(jti)
    if (issuedAt === null) throw invalid('token has a foreign jti')
    return { workspaceId: iss, clientId: sub, jti, issuedAt, expiresAt: exp === undefined ? null : exp * 1000 }
  }

  /** Revoke one token of a workspace by jti; NotFound when the jti is not one of this workspace's. */
  revoke(workspaceId: string, jti: string): { jti: string; clientId: string; expiresAt: number | null } {
    const now = this.clock.now()
    const record = this.storage.transaction(() => {
      const r = this.storage.issuedTokens.revoke(workspaceId, jti, now)
      if (r) this.storage.recordChange('token.revoked', workspaceId, jti, now)
      return r
    })
    if (!record) throw new NotFound({ message: `no token ${jti} in this workspace` })
    this.revocations.add(jti)
    return { jti, clientId: record.clientId, expiresAt: record.expiresAt }
  }
}
