/**
 * Workspace signing secrets: 32 random bytes each, sealed under the master key, never shown.
 * The keyring imports each secret once as a WebCrypto CryptoKey and caches the live ones per
 * workspace: jose 6 runs on WebCrypto, so a raw secret or a KeyObject is re-imported on every
 * call (measured here: ~8k verifies/s against ~48k/s with a CryptoKey). Rotation makes a new
 * current secret; the previous one keeps verifying until its grace period ends.
 */
import { createSecretKey, randomBytes, webcrypto, type KeyObject } from 'node:crypto'
import type { ClockShape } from '../clock.js'
import { newSecretKid } from '../ids.js'
import type { StorageShape } from '../storage/storage.js'
import type { MasterKeyShape } from './masterKey.js'

interface LiveKey {
  readonly kid: string
  /** For jose verification (WebCrypto). */
  readonly key: webcrypto.CryptoKey
  /** For signing with node:crypto's synchronous HMAC (no WebCrypto job per token). */
  readonly signingKey: KeyObject
  /** null while current; otherwise the instant (ms) it stops verifying. */
  readonly retiresAt: number | null
}

interface WorkspaceKeys {
  readonly signing: LiveKey
  readonly byKid: ReadonlyMap<string, LiveKey>
}

export class SigningKeyring {
  private readonly cache = new Map<string, Promise<WorkspaceKeys | null>>()

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
  rotate(workspaceId: string): { kid: string; previousRetiresAt: number } {
    const secret = this.newSecret(workspaceId)
    const retireAt = this.clock.now() + this.graceMs
    this.storage.transaction(() => {
      this.storage.signingSecrets.rotate(secret, retireAt)
      this.storage.recordChange('secret.rotated', workspaceId, secret.kid, this.clock.now())
    })
    this.invalidate(workspaceId)
    return { kid: secret.kid, previousRetiresAt: retireAt }
  }

  invalidate(workspaceId: string): void {
    this.cache.delete(workspaceId)
  }

  private load(workspaceId: string): Promise<WorkspaceKeys | null> {
    let entry = this.cache.get(workspaceId)
    if (!entry) {
      entry = this.importLive(workspaceId)
      this.cache.set(workspaceId, entry)
      // Neither a failed import nor an unknown workspace stays cached (bogus iss values would pile up).
      entry.then(
        (keys) => keys === null && this.cache.delete(workspaceId),
        () => this.cache.delete(workspaceId),
      )
    }
    return entry
  }

  private async importLive(workspaceId: string): Promise<WorkspaceKeys | null> {
    const rows = this.storage.signingSecrets.live(workspaceId, this.clock.now())
    const keys = await Promise.all(
      rows.map(async (r) => {
        const raw = this.masterKey.open('signing-secret', r.secretEnc)
        return {
          kid: r.kid,
          key: await webcrypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']),
          signingKey: createSecretKey(raw),
          retiresAt: r.retiresAt,
        }
      }),
    )
    const signing = keys.find((k) => k.retiresAt === null) ?? keys[0]
    return signing ? { signing, byKid: new Map(keys.map((k) => [k.kid, k])) } : null
  }

  /** The current secret of a workspace, or null when the workspace does not exist. */
  async signingKey(workspaceId: string): Promise<LiveKey | null> {
    return (await this.load(workspaceId))?.signing ?? null
  }

  /** A secret that verifies at this instant, or null (unknown workspace or kid, or past its grace). */
  async verificationKey(workspaceId: string, kid: string): Promise<webcrypto.CryptoKey | null> {
    const k = (await this.load(workspaceId))?.byKid.get(kid)
    if (!k) return null
    if (k.retiresAt !== null && k.retiresAt <= this.clock.now()) return null
    return k.key
  }
}
