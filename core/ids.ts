/**
 * Random identifiers and secrets: URL-safe base64 for keys, base62 for human-facing ids and
 * device passwords, ULIDs for token ids (their time part orders tokens against a client's
 * "tokens not before" instant).
 */
import { randomBytes } from 'node:crypto'
import { decodeTime, encodeTime } from 'ulid'

/**
 * Random bytes from a pooled CSPRNG buffer, each handed out once: a `randomBytes` call per id
 * costs a getrandom syscall (the ulid package's default source asks the OS once per character,
 * ~50 µs an id here); refilling 4 KB at a time costs ~1 µs.
 */
const POOL_BYTES = 4096
let pool = randomBytes(POOL_BYTES)
let poolOffset = 0
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

/** Crockford's base32, the alphabet of ULIDs. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * A ULID (the `ulid` package's time part, 80 random bits from the pooled bytes) after `prefix`, as
 * one flat string. The package's own `ulid()` asks its random source once per character and
 * prepends each to a string: ~3 µs an id and a chain of 17 cons strings, and the webhook outbox
 * makes two ids for every event (its event and its delivery).
 */
let timeOf = { ms: -1, chars: '' }
const newUlid = (nowMs: number, prefix = ''): string => {
  if (timeOf.ms !== nowMs) timeOf = { ms: nowMs, chars: encodeTime(nowMs, 10) }
  const out = Buffer.allocUnsafe(prefix.length + 26)
  let n = out.write(prefix, 'latin1')
  n += out.write(timeOf.chars, n, 'latin1')
  // 32 divides 256: the low five bits of a uniform byte are uniform.
  while (n < out.length) out[n++] = CROCKFORD.charCodeAt(pooledByte() & 31)
  return out.toString('latin1')
}

/** A recording id: `rec_` and a ULID, so ids sort by start time. */
export const newRecordingId = (nowMs: number) => newUlid(nowMs, 'rec_')

/** A token id: a ULID stamped with the issuing clock's time. */
export const newJti = (nowMs: number) => newUlid(nowMs)

/**
 * The least jti minted at or after `nowMs`: a ULID's time part (10 characters, fixed width) sorts
 * as its time, so `jti >= jtiFloor(t)` holds exactly for the jtis minted at t or later.
 */
export const jtiFloor = (nowMs: number): string => encodeTime(nowMs, 10)

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
export const newWebhookEventId = (nowMs: number) => newUlid(nowMs, 'evt_')
export const newDeliveryId = (nowMs: number) => newUlid(nowMs, 'dlv_')
