/**
 * Keepalive checks for every connection of a transport on a few shared timers: one per distinct
 * keepalive period (devices of a fleet mostly share one), firing every half period on the
 * engine's clock and looking at each connection of that period. A timer per connection cost
 * ~0.4 KB per idle device (the Node timer, the clock's wrapper and their closures); a member of
 * a group costs a Set entry.
 *
 * No clock read or timer reset per packet either: every half period a look asks whether the
 * connection's `lastHeard` moved (any packet stamps it). Three silent looks in a row are at least
 * 1.5 × keepalive of silence, so the close comes between 1.5 and 2 × keepalive after the last
 * packet [MQTT-3.1.2-24], never earlier. A connection that joins a running group sees its first
 * look anywhere within the next half period, so that look does not count as a silent one.
 */
import type { ClockShape, Timer } from '../../core/extension.js'

/** What a group looks at every half period; the looks keep their count on it (no object per member). */
export interface KeepaliveWatched {
  /** When its last packet arrived. */
  readonly lastHeard: number
  /** `lastHeard` as the last look saw it, and how many looks in a row saw nothing new. */
  lastSeen: number
  silentChecks: number
  /** Three silent looks in a row: it is closed. */
  keepaliveLost(): void
}

interface Group {
  readonly members: Set<KeepaliveWatched>
  timer: Timer | undefined
}

export class KeepaliveSweeps {
  private readonly groups = new Map<number, Group>()

  constructor(private readonly clock: ClockShape) {}

  /**
   * Watch `c` every half of `periodMs` from now on (its last packet just heard). Joining a group
   * whose timer already runs, its first look comes sooner than half a period and is not counted
   * as a silent one (-1), so the close is never earlier than 1.5 ×.
   */
  add(c: KeepaliveWatched, periodMs: number): void {
    c.lastSeen = c.lastHeard
    const group = this.groups.get(periodMs)
    if (group !== undefined) {
      group.members.add(c)
      c.silentChecks = -1
      return
    }
    c.silentChecks = 0
    const created: Group = { members: new Set([c]), timer: undefined }
    this.groups.set(periodMs, created)
    this.arm(created, periodMs)
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
      // A look may close its connection, which removes it from the set: Set iteration allows that.
      for (const c of group.members) look(c)
      if (this.groups.get(periodMs) === group) this.arm(group, periodMs)
    }, periodMs / 2)
  }
}

const look = (c: KeepaliveWatched): void => {
  if (c.lastHeard !== c.lastSeen) {
    c.lastSeen = c.lastHeard
    c.silentChecks = 0
  } else if (++c.silentChecks === 3) c.keepaliveLost()
}
