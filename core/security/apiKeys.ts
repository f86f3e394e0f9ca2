/**
 * Workspace API keys (`hk_` + 32 random bytes, URL-safe base64). Only a SHA-256 of each key is
 * stored: the key has 256 bits of entropy, so a fast hash is as good as a slow one and keeps
 * authentication of every REST call cheap. lastUsedAt is kept in memory and written in batches.
 */
import { createHash } from 'node:crypto'
import { ApiKeyInvalid, ApiKeyNotFound } from '../errors.js'
import { newKeyId, randomBase64Url } from '../ids.js'
import type { ClockShape } from '../clock.js'
import type { ChangeAuthor } from '../storage/changes.js'
import type { StorageShape } from '../storage/storage.js'
import type { ApiKeyRecord } from '../storage/apiKeys.js'
import { parseBearer } from './bearer.js'

export const API_KEY_PREFIX = 'hk_'
const API_KEY_PATTERN = /^hk_[A-Za-z0-9_-]{43}$/

export const hashApiKey = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex')

/** The public view of a key: everything but its hash. */
export interface ApiKeyInfo {
  readonly keyId: string
  readonly workspaceId: string
  readonly name: string | null
  readonly createdAt: number
  readonly lastUsedAt: number | null
  readonly revokedAt: number | null
}

const info = (r: ApiKeyRecord, lastUsed?: number): ApiKeyInfo => ({
  keyId: r.keyId, workspaceId: r.workspaceId, name: r.name, createdAt: r.createdAt,
  lastUsedAt: Math.max(r.lastUsedAt ?? 0, lastUsed ?? 0) || null, revokedAt: r.revokedAt,
})

export interface ApiKeyPrincipal {
  readonly workspaceId: string
  readonly keyId: string
}

export class ApiKeys {
  /** hash -> principal, for keys seen valid; dropped on revocation (local or via the change feed). */
  private readonly cache = new Map<string, ApiKeyPrincipal>()
  private readonly pendingLastUsed = new Map<string, number>()

  constructor(
    private readonly storage: StorageShape,
    private readonly clock: ClockShape,
  ) {}

  create(workspaceId: string, name: string | null): { keyId: string; apiKey: string; info: ApiKeyInfo } {
    const apiKey = API_KEY_PREFIX + randomBase64Url(32)
    const record = { keyId: newKeyId(), workspaceId, name, keyHash: hashApiKey(apiKey), createdAt: this.clock.now() }
    this.storage.apiKeys.insert(record)
    return { keyId: record.keyId, apiKey, info: info({ ...record, lastUsedAt: null, revokedAt: null }) }
  }

  list(workspaceId: string): ApiKeyInfo[] {
    return this.storage.apiKeys.list(workspaceId).map((r) => info(r, this.pendingLastUsed.get(r.keyId)))
  }

  revoke(workspaceId: string, keyId: string, by: ChangeAuthor | null = null): void {
    const result = this.storage.transaction(() => {
      const r = this.storage.apiKeys.revoke(workspaceId, keyId, this.clock.now())
      if (r === 'revoked') this.storage.feed.record({ kind: 'apikey.revoked', workspaceId, subject: keyId, at: this.clock.now(), by })
      return r
    })
    if (result === 'missing') throw new ApiKeyNotFound({ message: `no API key ${keyId} in this workspace` })
    this.forget(keyId)
  }

  /** Drop cached knowledge of a key (it was revoked, possibly by another process). */
  forget(keyId: string): void {
    for (const [hash, p] of this.cache) if (p.keyId === keyId) this.cache.delete(hash)
  }

  /** Check an `Authorization` header value (`Bearer hk_…`, the scheme in any case); throws ApiKeyInvalid. */
  authenticate(authorization: string | undefined): ApiKeyPrincipal {
    if (!authorization) throw new ApiKeyInvalid({ message: 'missing Authorization header' })
    const apiKey = parseBearer(authorization)
    if (apiKey === null) throw new ApiKeyInvalid({ message: 'Authorization must be "Bearer <API key>"' })
    if (!API_KEY_PATTERN.test(apiKey)) throw new ApiKeyInvalid({ message: 'malformed API key' })
    const hash = hashApiKey(apiKey)
    let principal = this.cache.get(hash)
    if (!principal) {
      const record = this.storage.apiKeys.findByHash(hash)
      if (!record || record.revokedAt !== null) throw new ApiKeyInvalid({ message: 'unknown or revoked API key' })
      principal = { workspaceId: record.workspaceId, keyId: record.keyId }
      this.cache.set(hash, principal)
    }
    this.pendingLastUsed.set(principal.keyId, this.clock.now())
    return principal
  }

  /** Write batched lastUsedAt values; called on a timer and at shutdown. */
  flushLastUsed(): number {
    if (this.pendingLastUsed.size === 0) return 0
    const entries = [...this.pendingLastUsed]
    this.pendingLastUsed.clear()
    try {
      this.storage.apiKeys.touchLastUsed(entries)
    } catch (e) {
      // Not written (the database primary unreachable, say): kept for the next flush, unless newer.
      for (const [keyId, at] of entries) if (!this.pendingLastUsed.has(keyId)) this.pendingLastUsed.set(keyId, at)
      throw e
    }
    return entries.length
  }
}
