/**
 * Workspace signing secrets: 32 random bytes each, sealed under the master key, never shown.
 * The keyring opens each live secret once and keeps, per kid, one WebCrypto HMAC-SHA-256
 * CryptoKey imported from it (jose signs and verifies with that key; nothing is imported per
 * call). Rotation makes a new current secret; the previous one keeps verifying until its grace
 * period ends.
 */
import { randomBytes, webcrypto } from 'node:crypto'
import type { ClockShape } from '../clock.js'
import { newSecretKid } from '../ids.js'
import type { ChangeAuthor } from '../storage/changes.js'
import type { StorageShape } from '../storage/storage.js'
import type { MasterKeyShape } from './masterKey.js'

export const TOKEN_AUDIENCE = 'service-client'

/** One live secret of a workspace. */
export interface LiveKey {
  readonly kid: string
  readonly workspaceId: string
  /** null while current; otherwise the instant (ms) it stops verifying. */
  readonly retiresAt: number | null
  /** The HMAC-SHA-256 key, imported once when the secret is first loaded. */
  readonly cryptoKey: Promise<webcrypto.CryptoKey>
  /** The same key once the import has finished (saves an await per verify), else null. */
  ready: webcrypto.CryptoKey | null
}

interface WorkspaceKeys {
  readonly signing: LiveKey
  readonly byKid: ReadonlyMap<string, LiveKey>
}

export class SigningKeyring {
  private readonly cache = new Map<string, WorkspaceKeys>()

  constructor(
    private readonly storage: StorageShape,
    private readonly masterKey: MasterKeyShape,
    private readonly clock: ClockShape,
    private readonly graceMs: number,
  ) {}

  private newSecret(workspaceId: string) {
    return {
      kid: newSecretKid(),
      workspaceId,
      secretEnc: this.masterKey.seal('signing-secret', randomBytes(32)),
      createdAt: this.clock.now(),
      retiresAt: null,
    }
  }

  /** First secret of a new workspace; call inside the transaction that creates the workspace. */
  createInitial(workspaceId: string): void {
    this.storage.signingSecrets.insert(this.newSecret(workspaceId))
  }

  /** Rotate: returns the new kid. Tokens signed before keep verifying for the grace period. */
  rotate(workspaceId: string, by: ChangeAuthor | null = null): { kid: string; previousRetiresAt: number } {
    const secret = this.newSecret(workspaceId)
    const retireAt = this.clock.now() + this.graceMs
    this.storage.transaction(() => {
      this.storage.signingSecrets.rotate(secret, retireAt)
      this.storage.feed.record({ kind: 'secret.rotated', workspaceId, subject: secret.kid, at: this.clock.now(), by })
    })
    this.invalidate(workspaceId)
    return { kid: secret.kid, previousRetiresAt: retireAt }
  }

  invalidate(workspaceId: string): void {
    this.cache.delete(workspaceId)
  }

  /** Live secrets of a workspace; unknown workspaces are not cached (bogus iss values must not pile up). */
  private load(workspaceId: string): WorkspaceKeys | null {
    const cached = this.cache.get(workspaceId)
    if (cached) return cached
    const keys = this.storage.signingSecrets.live(workspaceId, this.clock.now()).map((r): LiveKey => {
      const key: LiveKey = {
        kid: r.kid,
        workspaceId,
        retiresAt: r.retiresAt,
        cryptoKey: importHmacKey(this.masterKey.open('signing-secret', r.secretEnc)),
        ready: null,
      }
      key.cryptoKey.then((k) => (key.ready = k), () => undefined)
      return key
    })
    const signing = keys.find((k) => k.retiresAt === null) ?? keys[0]
    if (!signing) return null
    const entry = { signing, byKid: new Map(keys.map((k) => [k.kid, k])) }
    this.cache.set(workspaceId, entry)
    return entry
  }

  /** The current secret of a workspace, or null when the workspace does not exist. */
  signingKey(workspaceId: string): LiveKey | null {
    return this.load(workspaceId)?.signing ?? null
  }

  /** A secret that verifies at this instant, or null (unknown workspace or kid, or past its grace). */
  verificationKey(workspaceId: string, kid: string): LiveKey | null {
    const k = this.load(workspaceId)?.byKid.get(kid)
    if (!k) return null
    if (k.retiresAt !== null && k.retiresAt <= this.clock.now()) return null
    return k
  }
}

/** A non-extractable HMAC-SHA-256 key for HS256, usable for both signing and verifying. */
const importHmacKey = (secret: Uint8Array): Promise<webcrypto.CryptoKey> =>
  webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
