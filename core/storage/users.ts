/**
 * Console users: an email (unique without regard to case: `email_key` is its lower-cased form), a
 * display name and an argon2id password hash (core/people/passwords.ts). A disabled user keeps
 * the row and cannot sign in.
 */
import { guard, type Db } from './db.js'

export interface UserRecord {
  readonly userId: string
  readonly email: string
  readonly name: string | null
  readonly passwordHash: string
  readonly disabledAt: number | null
  readonly createdAt: number
  readonly updatedAt: number
}

interface Row {
  user_id: string; email: string; email_key: string; name: string | null; password_hash: string
  disabled_at: number | null; created_at: number; updated_at: number
}
const toRecord = (r: Row): UserRecord => ({
  userId: r.user_id, email: r.email, name: r.name, passwordHash: r.password_hash,
  disabledAt: r.disabled_at, createdAt: r.created_at, updatedAt: r.updated_at,
})

/** The case-insensitive key of an email address. */
export const emailKey = (email: string): string => email.trim().toLowerCase()

export const usersRepo = (db: Db) => {
  const insert = db.prepare(`INSERT INTO users
    (user_id, email, email_key, name, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
  const byId = db.prepare('SELECT * FROM users WHERE user_id = ?')
  const byEmail = db.prepare('SELECT * FROM users WHERE email_key = ?')
  const all = db.prepare('SELECT * FROM users ORDER BY created_at, user_id')
  const setPassword = db.prepare('UPDATE users SET password_hash = ?, updated_at = ? WHERE user_id = ?')
  const setName = db.prepare('UPDATE users SET name = ?, updated_at = ? WHERE user_id = ?')
  const disable = db.prepare('UPDATE users SET disabled_at = ?, updated_at = ? WHERE user_id = ? AND disabled_at IS NULL')
  const one = (r: unknown) => (r ? toRecord(r as Row) : null)
  return {
    insert: (u: Omit<UserRecord, 'disabledAt'>) =>
      guard('insert user', () =>
        void insert.run(u.userId, u.email.trim(), emailKey(u.email), u.name, u.passwordHash, u.createdAt, u.updatedAt)),
    get: (userId: string) => guard('get user', () => one(byId.get(userId))),
    findByEmail: (email: string) => guard('find user', () => one(byEmail.get(emailKey(email)))),
    list: () => guard('list users', () => (all.all() as Row[]).map(toRecord)),
    setPasswordHash: (userId: string, hash: string, at: number) =>
      guard('set password', () => setPassword.run(hash, at, userId).changes === 1),
    setName: (userId: string, name: string | null, at: number) => guard('set user name', () => setName.run(name, at, userId).changes === 1),
    /** False when the user was already disabled (or does not exist). */
    disable: (userId: string, at: number) => guard('disable user', () => disable.run(at, at, userId).changes === 1),
  }
}
