/**
 * Keepalive checks for every connection of a transport on a few shared timers: one per distinct
 * keepalive period (devices of a fleet mostly share one), firing every half period on the
 * engine's clock and looking at each connection of that period. A timer per connection cost
 * ~0.4 KB per idle device (the Node timer, the clock's wrapper and their closures); a member of
 * a group costs a Set entry.
 *
 * A connection that joins a running group sees its first check anywhere within the next half
 * period, so that check does not count as a full silent one (`add` says which case it is); the
 * close then still comes between 1.5 and 2 × keepalive after the last packet (connection.ts).
 */
import type { ClockShape, Timer } from '../../core/index.js'

/** What a group looks at every half period. */
export interface KeepaliveWatched {
  checkKeepalive(): void
}

interface Group {
  readonly members: Set<KeepaliveWatched>
  timer: Timer | undefined
}

export class KeepaliveSweeps {
  private readonly groups = new Map<number, Group>()

  constructor(private readonly clock: ClockShape) {}

  /**
   * Watch `c` every half of `periodMs` from now on. True when its group starts now (its first
   * check is a whole half period away); false when it joined a running group.
   */
  add(c: KeepaliveWatched, periodMs: number): boolean {
    const group = this.groups.get(periodMs)
    if (group !== undefined) {
      group.members.add(c)
      return false
    }
    const created: Group = { members: new Set([c]), timer: undefined }
    this.groups.set(periodMs, created)
    this.arm(created, periodMs)
    return true
  }

  /** Stop watching `c` (harmless when it is not watched); a group left empty stops its timer. */
  remove(c: KeepaliveWatched, periodMs: number): void {
    const group = this.groups.get(periodMs)
    if (group === undefined || !group.members.delete(c) || group.members.size > 0) return
    this.clock.clearTimeout(group.timer)
    this.groups.delete(periodMs)
  }

  /** Every timer stops (the transport is stopping). */
  stop(): void {
    for (const group of this.groups.values()) this.clock.clearTimeout(group.timer)
    this.groups.clear()
  }

  private arm(group: Group, periodMs: number): void {
    group.timer = this.clock.setTimeout(() => {
      // A check may close its connection, which removes it from the set: Set iteration allows that.
      for (const c of group.members) c.checkKeepalive()
      if (this.groups.get(periodMs) === group) this.arm(group, periodMs)
    }, periodMs / 2)
  }
}
