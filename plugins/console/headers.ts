/**
 * Security headers of every console response. The Content-Security-Policy lets the page load only
 * its own bundle (no CDN, no inline script) and talk to its own origin and the engine's gateway
 * (where a browser joining a room sends its WebRTC offer); no framing; no Referer (an invitation
 * link's secret is in its path).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'microphone=(self), camera=(), geolocation=()',
}

/** The CSP for a page reached at `hostname`, whose gateway listens on `gatewayPort` (null: none). */
export const contentSecurityPolicy = (hostname: string, gatewayPort: number | null): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${gatewayPort === null ? '' : ` https://${hostname}:${gatewayPort}`}`,
    "media-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
