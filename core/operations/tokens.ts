/**
 * Client tokens, as every front door issues them: a token for a client (never outliving an
 * ephemeral client), an ephemeral client with its token in one step, and revoking every token of
 * a client. Revocations reach live sessions through the change feed (`token.revoked`,
 * `client.tokensRevoked`), which the terminal hub applies by closing the sessions that used them.
 * `by`: who asks, recorded with the change.
 */
import { newEphemeralClientId } from '../ids.js'
import type { ChangeAuthor } from '../storage/changes.js'
import type { ClientRecord } from '../storage/clients.js'
import { requireClient } from './clients.js'
import type { OperationServices } from './services.js'
import { isoTime, isoTimeOrNull } from './views.js'

type Deps = Pick<OperationServices, 'storage' | 'clock' | 'security'>

export const EPHEMERAL_TTL_DEFAULT_SECONDS = 3600

/** A TTL that makes a token minted now (exp = floor(now/1000) + ttl) expire at `expiresAtMs`, at least 1 s. */
const ttlUntil = (expiresAtMs: number, now: number): number =>
  Math.max(1, Math.floor(expiresAtMs / 1000) - Math.floor(now / 1000))

export interface IssuedTokenView {
  readonly token: string
  readonly clientId: string
  readonly jti: string
  readonly expiresAt: string | null
}

/** A token for a client; without `ttlSeconds` it is long-lived, but an ephemeral client's expires with it. */
export const issueClientToken = async (deps: Deps, workspaceId: string, clientId: string, ttlSeconds: number | null): Promise<IssuedTokenView> => {
  const client = requireClient(deps, workspaceId, clientId)
  let ttl = ttlSeconds
  if (client.expiresAt !== null) {
    const left = ttlUntil(client.expiresAt, deps.clock.now())
    ttl = ttl === null ? left : Math.min(ttl, left)
  }
  const t = await deps.security.tokens.issue(workspaceId, client.clientId, ttl)
  return { token: t.token, clientId: t.clientId, jti: t.jti, expiresAt: isoTimeOrNull(t.expiresAt) }
}

/** Create a temporary client (eph_…) bound to `room`, and its token; both expire after `ttlSeconds`. */
export const createEphemeralClient = async (
  deps: Deps,
  workspaceId: string,
  input: { readonly room: string; readonly kind?: string | null; readonly ttlSeconds: number },
  by: ChangeAuthor | null = null,
): Promise<IssuedTokenView & { room: string; expiresAt: string }> => {
  const { storage, clock, security } = deps
  const now = clock.now()
  // Whole seconds, like the token's exp claim, so both expire at the same instant.
  const expiresAt = (Math.floor(now / 1000) + input.ttlSeconds) * 1000
  const record: ClientRecord = {
    workspaceId, clientId: newEphemeralClientId(), name: null, kind: input.kind ?? null, room: input.room,
    ephemeral: true, expiresAt, tokensNotBefore: now, createdAt: now, updatedAt: now,
  }
  storage.transaction(() => {
    storage.clients.insert(record)
    storage.feed.record({ kind: 'client.created', workspaceId, subject: record.clientId, at: now, by, client: record })
  })
  const t = await security.tokens.issue(workspaceId, record.clientId, ttlUntil(expiresAt, clock.now()))
  return { token: t.token, clientId: record.clientId, room: input.room, jti: t.jti, expiresAt: isoTime(expiresAt) }
}

/** Every token of the client issued up to now stops working, and its live token session is closed. */
export const revokeAllClientTokens = (
  deps: Deps, workspaceId: string, clientId: string, by: ChangeAuthor | null = null,
): { clientId: string; tokensNotBefore: string } => {
  const { storage, clock, security } = deps
  const client = requireClient(deps, workspaceId, clientId)
  const notBefore = clock.now()
  storage.transaction(() => {
    storage.clients.revokeAllTokens(workspaceId, client.clientId, notBefore)
    // Tokens minted earlier in this same millisecond pass the not-before check: revoke them by jti.
    for (const jti of storage.issuedTokens.mintedSince(workspaceId, client.clientId, notBefore)) {
      security.tokens.revoke(workspaceId, jti, by)
    }
    storage.feed.record({ kind: 'client.tokensRevoked', workspaceId, subject: client.clientId, at: notBefore, by })
  })
  return { clientId: client.clientId, tokensNotBefore: isoTime(notBefore) }
}
