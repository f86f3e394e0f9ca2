/**
 * @hark/client's protocol types and tables checked against the engine and the spec: its event
 * and message types are the engine's (core/events.ts, compared at type level: `tsc` fails when
 * they drift), its event list and close-code table are spec/terminal-protocol.md's, and every
 * refusal code of spec/websocket.md and spec/webrtc.md maps to a typed error with the right
 * retry decision. Also the backoff, close-code reading and URL rules on their own.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { ClientMessage as EngineClientMessage, ServerEvent as EngineEvent } from '../../../core/events.js'
import { repoRoot } from '../../../core/test/helpers.js'
import {
  ClientDeletedError,
  CLOSE_CODES,
  ConnectionLostError,
  errorFromClose,
  errorFromCode,
  errorFromHttp,
  InvalidTokenError,
  ProtocolViolationError,
  RateLimitedError,
  RequestRefusedError,
  ServerUnavailableError,
  SessionReplacedError,
  TokenExpiredError,
  TokenRevokedError,
} from '../src/errors.js'
import { gatewayUrls } from '../src/links/link.js'
import { CLIENT_MESSAGE_TYPES, levelByteFromPcm, SERVER_EVENT_TYPES, type ClientMessage, type ServerEvent } from '../src/protocol.js'
import { backoffMs, reconnectPolicy, tokenExpiresAt } from '../src/reconnect.js'

// ---- type level: the SDK's events are the engine's ----
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Assignable<A, B> = [A] extends [B] ? true : false
type Of<U, K> = Extract<U, { type: K }>
/** Per event type: identical, except `agent.event`, whose payload the SDK types more narrowly (a `kind` is required by spec/agents.md). */
type Agreement = {
  [K in EngineEvent['type']]: K extends 'agent.event' ? Assignable<Of<ServerEvent, K>, Of<EngineEvent, K>> : Same<Of<ServerEvent, K>, Of<EngineEvent, K>>
}
/** `true` only when every event type agrees (`tsc` refuses the assignment otherwise). */
const agreement: Same<Agreement[keyof Agreement], true> = true
const sameTypes: Same<ServerEvent['type'], EngineEvent['type']> = true
const sameMessages: Same<ClientMessage, EngineClientMessage> = true

const spec = (name: string) => readFileSync(`${repoRoot}spec/${name}`, 'utf8')
const section = (text: string, from: string, to: string) => text.slice(text.indexOf(from), text.indexOf(to, text.indexOf(from)))

describe('@hark/client against spec/terminal-protocol.md', () => {
  it('knows every server event type the spec lists, in its order, and the same types as the engine', () => {
    const events = section(spec('terminal-protocol.md'), '## Server events', '## Client messages')
    const listed = [...events.matchAll(/^### (.+)$/gm)].flatMap((m) => [...m[1]!.matchAll(/`([a-z.]+)`/g)].map((x) => x[1]!))
    expect(listed).toEqual([...SERVER_EVENT_TYPES])
    expect(agreement && sameTypes && sameMessages).toBe(true)
  })

  it('knows every client message of the spec', () => {
    const messages = section(spec('terminal-protocol.md'), '## Client messages', 'Rules (')
    expect([...messages.matchAll(/^\| `([a-z.]+)` \|/gm)].map((m) => m[1]).filter((type) => type !== 'type')).toEqual([...CLIENT_MESSAGE_TYPES])
  })

  it('has the close reasons and WebSocket codes of the spec’s table, each read back to its reason', () => {
    const closing = section(spec('terminal-protocol.md'), '## Closing a session', '## A session end to end')
    const rows = [...closing.matchAll(/^\| `([a-z_]+)` \| [^|]+ \| (\d{4}) \|/gm)].map((m) => [m[1]!, Number(m[2])])
    expect(Object.fromEntries(rows)).toEqual(CLOSE_CODES)
    for (const [reason, code] of Object.entries(CLOSE_CODES)) {
      expect(errorFromClose(code, reason)).toMatchObject({ code: reason, closeCode: code })
      // A close frame without reason text is read from its code alone.
      expect(errorFromClose(code, '')).toMatchObject({ code: reason })
    }
    expect(errorFromClose(4003, 'token_revoked')).toBeInstanceOf(TokenRevokedError)
    expect(errorFromClose(4004, 'client_deleted')).toBeInstanceOf(ClientDeletedError)
    expect(errorFromClose(4005, 'session_replaced')).toBeInstanceOf(SessionReplacedError)
    expect(errorFromClose(4002, 'token_expired')).toBeInstanceOf(TokenExpiredError)
    expect(errorFromClose(4029, 'rate_limited')).toBeInstanceOf(RateLimitedError)
    expect(errorFromClose(1001, 'server_shutting_down')).toBeInstanceOf(ServerUnavailableError)
    expect(errorFromClose(1002, 'protocol_error')).toBeInstanceOf(ProtocolViolationError)
    const lost = errorFromClose(1006, '')
    expect(lost).toBeInstanceOf(ConnectionLostError)
    expect(lost.retriable).toBe(true)
  })

  it('retries what the spec says a terminal should, and never what it says it must not', () => {
    // "should reconnect after server_shutting_down, internal and transport failures … should not
    // reconnect with the same credential after token_revoked, client_deleted, token_expired or
    // device_password_reset"; session_replaced would replace the other instance in turn.
    for (const code of ['server_shutting_down', 'internal', 'receiver_too_slow', 'rate_limited']) expect(errorFromCode(code, '').retriable, code).toBe(true)
    for (const code of ['token_revoked', 'client_deleted', 'token_expired', 'device_password_reset', 'session_replaced', 'protocol_error', 'frame_too_large']) {
      expect(errorFromCode(code, '').retriable, code).toBe(false)
    }
  })

  it('types every refusal of spec/websocket.md and spec/webrtc.md, keeping the server’s message and Retry-After', () => {
    const refusals = [spec('websocket.md'), spec('webrtc.md')].flatMap((text) =>
      [...text.matchAll(/^\| (\d{3}) \| (`[a-z_]+`(?: \/ `[a-z_]+`)*) \|/gm)].flatMap((m) => [...m[2]!.matchAll(/`([a-z_]+)`/g)].map((c) => [Number(m[1]), c[1]!] as const)),
    )
    expect(refusals.length).toBeGreaterThan(15)
    const expected: Record<string, { Class: Function; retriable: boolean }> = {
      invalid_token: { Class: InvalidTokenError, retriable: false },
      token_expired: { Class: TokenExpiredError, retriable: false },
      token_revoked: { Class: TokenRevokedError, retriable: false },
      client_not_found: { Class: ClientDeletedError, retriable: false },
      server_shutting_down: { Class: ServerUnavailableError, retriable: true },
      capacity_exceeded: { Class: ServerUnavailableError, retriable: true },
      not_found: { Class: RequestRefusedError, retriable: false },
    }
    for (const [status, code] of refusals) {
      const error = errorFromHttp(status, JSON.stringify({ error: { message: `said ${code}`, code } }), status === 503 ? '5' : null)
      expect(error, `${status} ${code}`).toMatchObject({ status, code, message: `said ${code}` })
      const want = expected[code] ?? { Class: ProtocolViolationError, retriable: false }
      expect(error, `${status} ${code}`).toBeInstanceOf(want.Class)
      expect(error.retriable, `${status} ${code}`).toBe(want.retriable)
      if (status === 503) expect(error.retryAfterMs).toBe(5000)
    }
    // Not Hark's envelope (a proxy in front): the status decides, the text is kept.
    expect(errorFromHttp(502, '<html>Bad Gateway</html>', null)).toMatchObject({ name: 'ServerUnavailableError', message: 'HTTP 502: <html>Bad Gateway</html>' })
  })
})

describe('@hark/client’s rules on their own', () => {
  it('backs off exponentially with jitter, up to the maximum, never below Retry-After', () => {
    const policy = reconnectPolicy({ initialDelayMs: 1000, maxDelayMs: 8000 })!
    const lost = errorFromClose(1006, '')
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(policy, n, lost, () => 0))).toEqual([500, 1000, 2000, 4000, 4000])
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(policy, n, lost, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000])
    const limited = errorFromHttp(429, '{"error":{"message":"slow down","code":"rate_limited"}}', '30')
    expect(backoffMs(policy, 1, limited, () => 0)).toBe(30_000)
    expect(reconnectPolicy(false)).toBeNull()
    expect(reconnectPolicy(undefined)).toEqual({ maxAttempts: 10, initialDelayMs: 500, maxDelayMs: 10_000 })
  })

  it('reads a JWT’s expiry, and the gateway URL in any of its four schemes', () => {
    const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`
    expect(tokenExpiresAt(jwt({ exp: 1700000000 }))).toBe(1700000000_000)
    expect(tokenExpiresAt(jwt({ sub: 'x' }))).toBeNull()
    expect(tokenExpiresAt('garbage')).toBeNull()
    expect(gatewayUrls('https://h.example:8443')).toEqual({ http: 'https://h.example:8443', ws: 'wss://h.example:8443' })
    expect(gatewayUrls('wss://h.example:8443/v1/connect')).toEqual({ http: 'https://h.example:8443', ws: 'wss://h.example:8443' })
    expect(gatewayUrls('http://h/hark/')).toEqual({ http: 'http://h/hark', ws: 'ws://h/hark' })
    expect(gatewayUrls('ftp://h')).toBeNull()
    expect(gatewayUrls('not a url')).toBeNull()
  })

  it('computes the V|level byte as the spec’s worked example does', () => {
    const sine = new Int16Array(320).map((_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 16000)))
    expect(levelByteFromPcm(sine)).toBe(0x92)
    expect(levelByteFromPcm(new Int16Array(320))).toBe(0x7f)
  })
})
