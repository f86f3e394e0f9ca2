/**
 * Random identifiers and secrets: URL-safe base64 for keys, base62 for human-facing ids and
 * device passwords, ULIDs for token ids (their time part orders tokens against a client's
 * "tokens not before" instant).
 */
import { randomBytes } from 'node:crypto'
import { decodeTime, ulid } from 'ulid'

/**
 * Random numbers in [0, 1) from a pooled CSPRNG buffer: the ulid package's default source asks
 * the OS once per character (~50 µs per id measured here); refilling 4 KB at a time costs ~1 µs.
 */
const POOL_BYTES = 4096
let pool = randomBytes(POOL_BYTES)
let poolOffset = 0
const pooledRandom = (): number => {
  if (poolOffset + 4 > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES)
    poolOffset = 0
  }
  const n = pool.readUInt32BE(poolOffset)
  poolOffset += 4
  return n / 0x1_0000_0000
}

/** One random byte from the same pool (each byte is handed out once). */
const pooledByte = (): number => {
  if (poolOffset >= POOL_BYTES) {
    pool = randomBytes(POOL_BYTES)
    poolOffset = 0
  }
  return pool[poolOffset++]!
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * Uniform base62 string of `length` characters (rejection sampling, no modulo bias), after
 * `prefix` if given, from the pooled CSPRNG bytes: every session id is one of these, and a
 * `randomBytes` call per id costs a getrandom syscall and a buffer on each terminal connect.
 * Written into bytes and decoded once: one flat string. Appending a character at a time made a
 * chain of cons strings (and a prefix one more), which an id kept for as long as it lived.
 */
export const randomBase62 = (length: number, prefix = ''): string => {
  const out = Buffer.allocUnsafe(prefix.length + length)
  let n = out.write(prefix, 'latin1')
  while (n < out.length) {
    const byte = pooledByte()
    if (byte < 248) out[n++] = BASE62.charCodeAt(byte % 62)
  }
  return out.toString('latin1')
}

export const randomBase64Url = (bytes: number): string => randomBytes(bytes).toString('base64url')

export const newWorkspaceId = () => `ws_${randomBase62(16)}`
export const newKeyId = () => `key_${randomBase62(16)}`
export const newSecretKid = () => `sk_${randomBase62(12)}`
export const newEphemeralClientId = () => `eph_${randomBase62(20)}`
export const newUserId = () => `usr_${randomBase62(16)}`
export const newInvitationId = () => `inv_${randomBase62(16)}`

/** A token id: a ULID stamped with the issuing clock's time. */
export const newJti = (nowMs: number) => ulid(nowMs, pooledRandom)

/** Issue time (ms) encoded in a jti, or null when it is not one of ours. */
export const jtiTime = (jti: string): number | null => {
  try {
    return decodeTime(jti)
  } catch {
    return null
  }
}

export const newWebhookId = () => `wh_${randomBase62(16)}`
/** Webhook event ids (the `webhook-id` header) and delivery ids: ULIDs, so they sort by time. */
export const newWebhookEventId = (nowMs: number) => `evt_${ulid(nowMs, pooledRandom)}`
export const newDeliveryId = (nowMs: number) => `dlv_${ulid(nowMs, pooledRandom)}`
