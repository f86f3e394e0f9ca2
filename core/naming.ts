/**
 * The identifier rules of the domain, shared by every front door (REST schemas, the CLI, the
 * transports): what a clientId, a room name, a kind, a display name and a token id may look like.
 * spec/rest.md documents them. Patterns are strings so they can feed JSON Schemas too.
 */

/**
 * clientId chosen by a back end: 1-128 ASCII letters, digits, ".", "_", ":" or "-", starting with a
 * letter or digit. The `eph_` prefix is reserved for ephemeral clients (core/ids.ts).
 */
export const CLIENT_ID_PATTERN = '^(?!eph_)[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'
/** Any clientId that can exist, chosen or ephemeral (`eph_` + 20 base62). Used for `{id}` in paths. */
export const ANY_CLIENT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'
/** Room names: the same alphabet as clientIds. */
export const ROOM_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'
/** Kind: a short lower-case token such as `device`, `app`, `web`. */
export const KIND_PATTERN = '^[a-z0-9][a-z0-9._-]{0,31}$'
/** Display names: any printable text; no control characters and no lone surrogates. */
export const NAME_PATTERN = '^[^\\p{Cc}\\p{Cs}]+$'
/** Token ids are ULIDs (Crockford base32, 26 characters). */
export const JTI_PATTERN = '^[0-9A-HJKMNP-TVW-Z]{26}$'

const matcher = (pattern: string, maxLength: number) => {
  const re = new RegExp(pattern, 'u')
  return (s: string) => s.length > 0 && s.length <= maxLength && re.test(s)
}

export const isClientId = matcher(CLIENT_ID_PATTERN, 128)
export const isRoomName = matcher(ROOM_PATTERN, 128)
export const isKind = matcher(KIND_PATTERN, 32)
export const isDisplayName = matcher(NAME_PATTERN, 200)
