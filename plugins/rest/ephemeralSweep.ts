/**
 * Removal of expired ephemeral clients. Each removal records `client.deleted`, so the terminal
 * hub closes a session still open (it also arms its own expiry timer at admission) and other
 * processes hear of it. The REST plugin runs the sweep on a timer; tests call it directly after
 * moving a ManualClock.
 */
import type { ClockShape } from '../../core/clock.js'
import type { StorageShape } from '../../core/storage/storage.js'

/** How often the plugin sweeps. Reads never show an expired client meanwhile (they filter by time). */
export const SWEEP_INTERVAL_MS = 5000

const BATCH = 100

/** Delete every ephemeral client expired at the clock's now; returns how many were removed. */
export const sweepExpiredClients = (storage: StorageShape, clock: ClockShape): number => {
  const now = clock.now()
  let removed = 0
  for (;;) {
    const batch = storage.clients.expired(now, BATCH)
    if (batch.length === 0) return removed
    storage.transaction(() => {
      for (const c of batch) {
        if (!storage.clients.delete(c.workspaceId, c.clientId)) continue
        storage.feed.record({ kind: 'client.deleted', workspaceId: c.workspaceId, subject: c.clientId, at: now })
        removed++
      }
    })
    if (batch.length < BATCH) return removed
  }
}
