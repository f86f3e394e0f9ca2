/**
 * When a failed delivery is tried again: about 5 s, 30 s, 2 min, 10 min, 1 h after the previous
 * attempt, then every 2 h, each delay spread by ±20% jitter so endpoints coming back are not hit
 * by every retry at once; a delivery whose next attempt would fall more than 24 h after it was
 * created is given up (dead-lettered, redeliverable). An endpoint whose attempts have failed for 3
 * days without a success in between is disabled.
 */

export const RETRY_DELAYS_MS: ReadonlyArray<number> = [5_000, 30_000, 120_000, 600_000, 3_600_000]
export const RETRY_EVERY_MS = 7_200_000
export const JITTER = 0.2
export const GIVE_UP_AFTER_MS = 24 * 3_600_000
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3_600_000

/** The delay before attempt `attempts + 1`, after `attempts` failed ones; `random` in [0, 1). */
export const retryDelay = (attempts: number, random: () => number): number => {
  const base = RETRY_DELAYS_MS[attempts - 1] ?? RETRY_EVERY_MS
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()))
}

/** The next attempt after a failure, or null when the delivery is to be given up. */
export const nextAttemptAt = (createdAt: number, now: number, attempts: number, random: () => number): number | null => {
  const at = now + retryDelay(attempts, random)
  return at - createdAt > GIVE_UP_AFTER_MS ? null : at
}
