/**
 * Console sign-in sessions. Only a SHA-256 of each session id is stored (the id is 256 random
 * bits, held by the browser in an HttpOnly cookie), with its absolute expiry, when it was last
 * seen (for the idle expiry), and its CSRF token (not a credential: useless without the cookie).
 */
import { guard, type Db } from './db.js'

export interface UserSessionRecord {
  readonly sessionHash: string
  readonly userId: string
  readonly csrfToken: string
  readonly createdAt: number
  readonly lastSeenAt: number
  /** Absolute expiry (ms). */
  readonly expiresAt: number
  readonly ip: string | null
  readonly userAgent: string | null
}

interface Row {
  session_hash: string; user_id: string; csrf_token: string; created_at: number; last_seen_at: number; expires_at: number
  ip: string | null; user_agent: string | null
}
const toRecord = (r: Row): UserSessionRecord => ({
  sessionHash: r.session_hash, userId: r.user_id, csrfToken: r.csrf_token, createdAt: r.created_at, lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at, ip: r.ip, userAgent: r.user_agent,
})

export const userSessionsRepo = (db: Db) => {
  const insert = db.prepare(`INSERT INTO user_sessions
    (session_hash, user_id, csrf_token, created_at, last_seen_at, expires_at, ip, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
  const byHash = db.prepare('SELECT * FROM user_sessions WHERE session_hash = ?')
  const touch = db.prepare('UPDATE user_sessions SET last_seen_at = ? WHERE session_hash = ?')
  const remove = db.prepare('DELETE FROM user_sessions WHERE session_hash = ?')
  const removeUser = db.prepare('DELETE FROM user_sessions WHERE user_id = ? AND session_hash <> ?')
  const countUser = db.prepare('SELECT count(*) AS n FROM user_sessions WHERE user_id = ?')
  const prune = db.prepare('DELETE FROM user_sessions WHERE expires_at <= ? OR last_seen_at <= ?')
  return {
    insert: (s: UserSessionRecord) =>
      guard('insert session', () =>
        void insert.run(s.sessionHash, s.userId, s.csrfToken, s.createdAt, s.lastSeenAt, s.expiresAt, s.ip, s.userAgent)),
    get: (sessionHash: string) =>
      guard('get session', () => {
        const r = byHash.get(sessionHash) as Row | undefined
        return r ? toRecord(r) : null
      }),
    touch: (sessionHash: string, at: number) => guard('touch session', () => void touch.run(at, sessionHash)),
    delete: (sessionHash: string) => guard('delete session', () => remove.run(sessionHash).changes === 1),
    /** End every session of a user except `keep` (a session hash, or '' for none); returns how many. */
    deleteForUser: (userId: string, keep = '') => guard('delete sessions', () => removeUser.run(userId, keep).changes),
    countForUser: (userId: string) => guard('count sessions', () => (countUser.get(userId) as { n: number }).n),
    /** Remove sessions past their absolute expiry, or idle since `idleBefore`. */
    prune: (now: number, idleBefore: number) => guard('prune sessions', () => prune.run(now, idleBefore).changes),
  }
}
