/**
 * Non-clean MQTT sessions between connections: a terminal's subscriptions and its unacknowledged
 * QoS 1 events, kept in memory for the session expiry interval after the connection ends, and
 * taken back by the next CONNECT of the same client with Clean Session = 0 / Clean Start = 0.
 * A restart forgets them (the `session` event on every connect restates the room anyway).
 */
import type { ClockShape, Timer } from '../../core/extension.js'
import type { OutboundEvents } from './outboundEvents.js'

export interface StoredSession {
  readonly protocolVersion: 4 | 5
  readonly filters: ReadonlyMap<string, number>
  readonly outbound: OutboundEvents
}

interface Entry {
  readonly session: StoredSession
  readonly timer: Timer
}

export class SessionStore {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly clock: ClockShape) {}

  /** Keep `session` under `key` for `expirySeconds` (0 keeps nothing). */
  keep(key: string, session: StoredSession, expirySeconds: number): void {
    this.drop(key)
    if (expirySeconds <= 0) return
    const timer = this.clock.setTimeout(() => this.entries.delete(key), expirySeconds * 1000)
    this.entries.set(key, { session, timer })
  }

  /** Take the stored session of `key` out of the store, if any. */
  take(key: string): StoredSession | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.clock.clearTimeout(entry.timer)
    this.entries.delete(key)
    return entry.session
  }

  drop(key: string): void {
    this.take(key)
  }

  get size(): number {
    return this.entries.size
  }

  clear(): void {
    for (const entry of this.entries.values()) this.clock.clearTimeout(entry.timer)
    this.entries.clear()
  }
}
