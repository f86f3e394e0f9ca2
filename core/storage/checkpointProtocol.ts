/**
 * What the engine and its WAL checkpoint thread (checkpointer.ts, checkpointThread.ts) say to each
 * other, and the figures both go by. Kept apart so that the thread loads this and libSQL only.
 */

/** What the thread starts with. */
export interface CheckpointBoot {
  readonly file: string
  readonly intervalMs: number
  /** Pages in the log from which the thread runs passes back to back to catch up with the engine's writes. */
  readonly restartPages: number
  /** Added to the engine's nice value (lower priority than terminals; a checkpoint is never urgent to the millisecond). */
  readonly nice: number
}

export type FromCheckpointThread =
  | { readonly t: 'ready' }
  /** A pass: pages in the log, how many are in the database file now, how long it took; `last`: the tick's last pass. */
  | { readonly t: 'checkpoint'; readonly log: number; readonly checkpointed: number; readonly ms: number; readonly last: boolean }
  | { readonly t: 'failed'; readonly message: string }
  | { readonly t: 'ticked'; readonly id: number; readonly ran: boolean }

export type ToCheckpointThread = { readonly t: 'stop' } | { readonly t: 'tick'; readonly id: number }

/** Back-to-back passes a tick runs at most to catch up with the engine's writes (else the next tick tries again). */
export const CATCH_UP_PASSES = 8
/** The checkpoint thread's nice value above the engine's (the webhook delivery thread runs at +10). */
export const CHECKPOINT_THREAD_NICE = 5
