/**
 * Sign-in throttling, per client IP and per account (the email as typed, lower-cased, whether an
 * account has it or not, so an unknown email is throttled exactly like a known one). A few
 * failures are free; each one after that doubles the wait before the next attempt is heard
 * (1 s, 2 s, 4 s … up to 15 minutes); until then an attempt is refused with 429 and Retry-After,
 * without checking the password. A success clears the account's count. Time is the engine's
 * clock, so tests drive it; counts are memory only (a restart forgives), bounded in size.
 */
import type { ClockShape } from '../../core/clock.js'
import { RateLimited } from '../../core/errors.js'

export interface ThrottlePolicy {
  /** Failures allowed before waits begin. */
  readonly free: number
  readonly maxDelayMs: number
}

/** Per account: 3 free failures, then 1 s, 2 s, 4 s … at most 15 min. */
export const ACCOUNT_POLICY: ThrottlePolicy = { free: 3, maxDelayMs: 15 * 60_000 }
/** Per IP (many accounts from one address): 20 free failures, then the same doubling. */
export const IP_POLICY: ThrottlePolicy = { free: 20, maxDelayMs: 15 * 60_000 }
/** A count untouched this long is forgotten. */
const FORGET_AFTER_MS = 24 * 3_600_000
/** Most keys remembered per kind; beyond it the oldest go. */
const MAX_KEYS = 100_000

interface Entry {
  failures: number
  blockedUntil: number
  lastFailureAt: number
}

class Counter {
  private readonly entries = new Map<string, Entry>()
  constructor(
    private readonly policy: ThrottlePolicy,
    private readonly clock: ClockShape,
  ) {}

  /** Milliseconds until an attempt is heard again; 0 when it may go ahead now. */
  wait(key: string): number {
    const e = this.entries.get(key)
    if (!e) return 0
    const now = this.clock.now()
    if (now - e.lastFailureAt >= FORGET_AFTER_MS) {
      this.entries.delete(key)
      return 0
    }
    return Math.max(0, e.blockedUntil - now)
  }

  fail(key: string): void {
    const now = this.clock.now()
    let e = this.entries.get(key)
    if (e && now - e.lastFailureAt >= FORGET_AFTER_MS) e = undefined
    if (!e) {
      if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value!)
      e = { failures: 0, blockedUntil: 0, lastFailureAt: now }
    }
    this.entries.delete(key) // re-insert: the map's order is least recently failed first
    e.failures++
    e.lastFailureAt = now
    const over = e.failures - this.policy.free
    e.blockedUntil = over > 0 ? now + Math.min(this.policy.maxDelayMs, 1000 * 2 ** Math.min(over - 1, 30)) : 0
    this.entries.set(key, e)
  }

  clear(key: string): void {
    this.entries.delete(key)
  }
}

export class SignInThrottle {
  private readonly byAccount: Counter
  private readonly byIp: Counter

  constructor(clock: ClockShape, account: ThrottlePolicy = ACCOUNT_POLICY, ip: ThrottlePolicy = IP_POLICY) {
    this.byAccount = new Counter(account, clock)
    this.byIp = new Counter(ip, clock)
  }

  /** Throws RateLimited when either the IP or the account must still wait. */
  check(ip: string, account: string): void {
    const wait = Math.max(this.byIp.wait(ip), this.byAccount.wait(account))
    if (wait > 0) {
      const retryAfterSeconds = Math.ceil(wait / 1000)
      throw new RateLimited({ message: `too many failed sign-ins; try again in ${retryAfterSeconds} s`, retryAfterSeconds })
    }
  }

  failed(ip: string, account: string): void {
    this.byIp.fail(ip)
    this.byAccount.fail(account)
  }

  succeeded(account: string): void {
    this.byAccount.clear(account)
  }
}
