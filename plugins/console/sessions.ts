/**
 * Console sign-in sessions. The browser holds a random session id (256 bits) in a cookie named
 * `__Host-hark_session` (HttpOnly, Secure, SameSite=Lax, Path=/, no Domain: only this origin, over
 * HTTPS, never readable by scripts); the server keeps its SHA-256, never the id. A session ends
 * after `sessionIdleSeconds` unused (last use is written at most once a minute) or
 * `sessionMaxSeconds` after sign-in, at sign-out, or when its user is disabled or changes password.
 * Each session has a CSRF token that the console sends back in `X-CSRF-Token` on every change.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { ClockShape } from '../../core/clock.js'
import { Unauthenticated } from '../../core/errors.js'
import type { StorageShape } from '../../core/storage/storage.js'
import type { UserRecord } from '../../core/storage/users.js'
import type { UserSessionRecord } from '../../core/storage/userSessions.js'

export const SESSION_COOKIE = '__Host-hark_session'
/** How often a session's last use is written (its idle expiry is this much coarser). */
export const TOUCH_INTERVAL_MS = 60_000
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/

export interface SessionTimes {
  readonly sessionIdleSeconds: number
  readonly sessionMaxSeconds: number
}

export interface SignedIn {
  readonly user: UserRecord
  readonly session: UserSessionRecord
}

export const hashSessionId = (sessionId: string): string => createHash('sha256').update(sessionId).digest('hex')

/** Constant-time comparison of two strings (a CSRF token as sent against the session's). */
export const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export class ConsoleSessions {
  constructor(
    private readonly storage: StorageShape,
    private readonly clock: ClockShape,
    private readonly times: SessionTimes,
  ) {}

  /** Start a session; returns the id for the cookie (shown nowhere else, stored only hashed). */
  create(userId: string, ip: string | null, userAgent: string | null): { sessionId: string; session: UserSessionRecord } {
    const sessionId = randomBytes(32).toString('base64url')
    const now = this.clock.now()
    const session: UserSessionRecord = {
      sessionHash: hashSessionId(sessionId),
      userId,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + this.times.sessionMaxSeconds * 1000,
      ip,
      userAgent: userAgent === null ? null : userAgent.slice(0, 256),
    }
    this.storage.userSessions.insert(session)
    return { sessionId, session }
  }

  /**
   * The signed-in user of a cookie value, or null when there is no cookie. An unknown, expired
   * or ended session, or one whose user is disabled, is Unauthenticated (an expired one is removed).
   * A request uses the session (`touch`, the default); an open event stream looking again does not.
   */
  authenticate(sessionId: string | undefined, { touch = true }: { readonly touch?: boolean } = {}): SignedIn | null {
    if (sessionId === undefined || sessionId === '') return null
    const expired = () => new Unauthenticated({ message: 'your session has ended; sign in again' })
    if (!SESSION_ID.test(sessionId)) throw expired()
    const hash = hashSessionId(sessionId)
    const session = this.storage.userSessions.get(hash)
    if (!session) throw expired()
    const now = this.clock.now()
    if (session.expiresAt <= now || now - session.lastSeenAt >= this.times.sessionIdleSeconds * 1000) {
      this.storage.userSessions.delete(hash)
      throw expired()
    }
    const user = this.storage.users.get(session.userId)
    if (!user || user.disabledAt !== null) throw expired()
    if (touch && now - session.lastSeenAt >= TOUCH_INTERVAL_MS) {
      this.storage.userSessions.touch(hash, now)
      return { user, session: { ...session, lastSeenAt: now } }
    }
    return { user, session }
  }

  end(session: UserSessionRecord): void {
    this.storage.transaction(() => {
      this.storage.userSessions.delete(session.sessionHash)
      this.storage.feed.record({ kind: 'user.accessChanged', workspaceId: null, subject: session.userId, at: this.clock.now() })
    })
  }

  /** End every session of a user (sign out everywhere); returns how many. */
  endAll(userId: string): number {
    return this.storage.transaction(() => {
      const ended = this.storage.userSessions.deleteForUser(userId)
      this.storage.feed.record({ kind: 'user.accessChanged', workspaceId: null, subject: userId, at: this.clock.now() })
      return ended
    })
  }

  /** When a session ends if nothing uses it: its idle limit or its absolute one, whichever is first (epoch ms). */
  endsAt(session: UserSessionRecord): number {
    return Math.min(session.expiresAt, session.lastSeenAt + this.times.sessionIdleSeconds * 1000)
  }

  /** Remove expired sessions; returns how many. */
  prune(): number {
    const now = this.clock.now()
    return this.storage.userSessions.prune(now, now - this.times.sessionIdleSeconds * 1000)
  }

  /** Attributes of the session cookie (@fastify/cookie's setCookie options). */
  cookieOptions() {
    return { path: '/', maxAge: this.times.sessionMaxSeconds, httpOnly: true, secure: true, sameSite: 'lax' } as const
  }
}
