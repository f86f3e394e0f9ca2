/**
 * The set of revoked token ids, held in memory for the connect path and rebuilt from storage.
 * A jti stays here until its token would have expired; long-lived tokens stay forever.
 */
import type { ClockShape } from '../clock.js'
import type { StorageShape } from '../storage/storage.js'

export class Revocations {
  private revoked = new Set<string>()

  constructor(
    private readonly storage: StorageShape,
    private readonly clock: ClockShape,
  ) {
    this.reload()
  }

  has(jti: string): boolean {
    return this.revoked.has(jti)
  }

  add(jti: string): void {
    this.revoked.add(jti)
  }

  /** Rebuild from storage, forgetting tokens that have expired since. */
  reload(): void {
    this.revoked = new Set(this.storage.issuedTokens.revokedJtis(this.clock.now()))
  }

  get size(): number {
    return this.revoked.size
  }
}
