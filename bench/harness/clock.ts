/**
 * One time base for every bench process: CLOCK_MONOTONIC in microseconds (process.hrtime),
 * shared by all processes on the machine, so a send time written by one generator process can
 * be subtracted from a receive time read by another.
 */
export const monotonicUs = (): number => {
  const [s, ns] = process.hrtime()
  return s * 1e6 + ns / 1e3
}

/** Resolve after `ms`, or at once when `signal` aborts (bounded waits only). */
export const delay = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, Math.max(0, ms))
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })

/** Resolve at the monotonic instant `atUs` (or at once when it has passed). */
export const until = (atUs: number, signal?: AbortSignal): Promise<void> =>
  delay((atUs - monotonicUs()) / 1000, signal)

/** `p`, or null once `ms` have passed first (the timer never outlives the race). */
export const within = async <T>(p: Promise<T>, ms: number): Promise<T | null> => {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([p, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))])
  } finally {
    clearTimeout(timer)
  }
}
