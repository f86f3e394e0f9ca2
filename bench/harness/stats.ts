/**
 * The arithmetic of a fair comparison: the A B A B order of runs, medians of their figures,
 * and the Hark-to-peer ratio.
 */

/** Median of the finite values (mean of the middle two for an even count); null when none. */
export const median = (values: readonly (number | null | undefined)[]): number | null => {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b)
  if (xs.length === 0) return null
  const mid = xs.length >> 1
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2
}

export interface Slot<S> {
  readonly round: number
  readonly side: S
}

/**
 * Alternation: every round runs each side once, in the same order (A B A B …), so slow drift of
 * a noisy machine reaches every side alike.
 */
export const alternation = <S>(sides: readonly S[], rounds: number): Slot<S>[] => {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('rounds must be a positive integer')
  const out: Slot<S>[] = []
  for (let round = 1; round <= rounds; round++) for (const side of sides) out.push({ round, side })
  return out
}

/**
 * Hark over peer, oriented so that > 1 always means Hark does better (for "lower is better"
 * figures such as KB per client the quotient is inverted). null when either is missing or zero.
 */
export const ratio = (hark: number | null, peer: number | null, higherIsBetter: boolean): number | null => {
  if (hark === null || peer === null || hark <= 0 || peer <= 0) return null
  return higherIsBetter ? hark / peer : peer / hark
}

/** Median of each numeric field across samples (fields missing from every sample are left out). */
export const medianOf = <K extends string>(
  samples: readonly Partial<Record<K, number | null>>[],
  keys: readonly K[],
): Partial<Record<K, number>> => {
  const out: Partial<Record<K, number>> = {}
  for (const k of keys) {
    const m = median(samples.map((s) => s[k]))
    if (m !== null) out[k] = m
  }
  return out
}
