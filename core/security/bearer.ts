/**
 * The one reader of `Authorization: Bearer <credential>` for every listener that takes the header
 * (REST with an API key, WebRTC signalling with a client token). RFC 7235 §2.1: the scheme is
 * case-insensitive; RFC 6750 §2.1: one or more spaces, then a token68. Each caller decides what a
 * missing or malformed header means for it (invalid API key, invalid client token).
 */

/** RFC 7235 token68 (`1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`). */
const BEARER = /^bearer +([A-Za-z0-9._~+/-]+=*) *$/i

/** The credential of a Bearer header value, or null when the value is not `Bearer <token68>`. */
export const parseBearer = (value: string): string | null => BEARER.exec(value)?.[1] ?? null
