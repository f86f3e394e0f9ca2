/**
 * The messages between the delivery worker (the engine's thread) and the delivery thread
 * (sendThread.ts), and the check of what comes back: the thread is code of ours, but what it
 * answers is read as data, so a malformed answer fails its attempt instead of the engine.
 */
import type { ResolvedAddress, UrlPolicy } from '../../core/webhooks/urlGuard.js'
import type { AttemptResult, SendOutcome, SignedMessage } from './sender.js'

export interface ThreadBoot {
  readonly policy: UrlPolicy
  readonly timeoutMs?: number
  readonly userAgent?: string
  /** Host names are resolved by the engine (its resolver is a function a thread cannot receive). */
  readonly resolveInEngine: boolean
}

/** One attempt for the thread. */
export type SendJob = { readonly id: number } & SignedMessage

/**
 * Engine → thread. The attempts started in one engine turn travel in one `send` message, and the
 * thread answers those settled in one of its turns in one `done` message: a message per attempt
 * would cost both threads a copy and a wake-up each.
 */
export type ToThread =
  | { readonly t: 'send'; readonly jobs: ReadonlyArray<SendJob> }
  | { readonly t: 'forget'; readonly origin: string }
  | { readonly t: 'resolved'; readonly id: number; readonly addresses: ReadonlyArray<ResolvedAddress> }
  | { readonly t: 'unresolved'; readonly id: number; readonly message: string; readonly code: string | null }

/** One attempt's outcome, for the engine. */
export type DoneJob = { readonly id: number } & SendOutcome

/** Thread → engine. */
export type FromThread =
  | { readonly t: 'done'; readonly outcomes: ReadonlyArray<DoneJob> }
  | { readonly t: 'resolve'; readonly id: number; readonly host: string }

/**
 * Terminals first, at the scheduler: the delivery thread runs THREAD_NICE steps nicer than the
 * engine's thread (Linux keeps a nice value per thread; `setPriority` without a pid sets the calling
 * thread's). When both want the same core, the engine's thread gets about nine tenths of it; when
 * it is idle, delivery takes what it needs. Where the system refuses, the thread runs at the
 * engine's priority.
 */
export const THREAD_NICE = 10

/** Errors longer than this are cut (they are stored with the attempt and shown in its history). */
export const MAX_ERROR_LENGTH = 500

const RESULTS: ReadonlySet<string> = new Set<AttemptResult>(['success', 'http_error', 'timeout', 'network_error', 'address_not_allowed'])

/**
 * The outcome a `done` message carries for one attempt, checked field by field; null when it is not one (wrong
 * result kind, status or latency; a success must carry a 2xx). Errors are cut to MAX_ERROR_LENGTH.
 */
export const outcomeOf = (m: Record<string, unknown>): SendOutcome | null => {
  const { result, status, error, latencyMs } = m
  if (typeof result !== 'string' || !RESULTS.has(result)) return null
  if (status !== null && !(Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 999)) return null
  if (error !== null && typeof error !== 'string') return null
  if (typeof latencyMs !== 'number' || !Number.isFinite(latencyMs) || latencyMs < 0) return null
  if (result === 'success' && !(typeof status === 'number' && status >= 200 && status < 300)) return null
  return {
    result: result as AttemptResult,
    status: status as number | null,
    error: typeof error === 'string' && error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH)}…` : (error as string | null),
    latencyMs: Math.round(latencyMs),
  }
}
