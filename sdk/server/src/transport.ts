/**
 * The fetch under the typed client: the API key on every request, a timeout per attempt, failures
 * to connect as HarkConnectionError, and retries of 429 and 503 answers after their Retry-After.
 * Both answers mean the call had no effect (spec/rest.md), so any method may be sent again.
 */
import { connectionError, parseRetryAfterMs } from './errors.js'

export interface RetryInfo {
  /** 1 for the first retry. */
  readonly attempt: number
  readonly status: number
  readonly delayMs: number
  /** The server's Retry-After, when it sent one. */
  readonly retryAfter: string | null
}

export interface TransportOptions {
  readonly apiKey: string
  /** Retries of a 429 or 503 answer before it is thrown (default 2; 0 turns retries off). */
  readonly maxRetries?: number
  /** The longest wait before a retry; a longer Retry-After is thrown at once (default 60 000 ms). */
  readonly maxRetryDelayMs?: number
  /** Each attempt is abandoned after this long (default 150 000 ms: above the engine's own connection timeout). */
  readonly timeoutMs?: number
  /** The fetch to use (default the global one). */
  readonly fetch?: (request: Request) => Promise<Response>
  /** Called before each retry waits. */
  readonly onRetry?: (info: RetryInfo) => void
}

const RETRIED = new Set([429, 503])

/** The wait before retry `attempt` (1, 2 …): the server's Retry-After, else a jittered exponential backoff. */
export const retryDelayMs = (retryAfter: string | null, attempt: number, now = Date.now(), random = Math.random): number =>
  parseRetryAfterMs(retryAfter, now) ?? Math.min(8000, 500 * 2 ** (attempt - 1)) * (0.5 + random() / 2)

export const createTransport = (options: TransportOptions) => {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request))
  const maxRetries = options.maxRetries ?? 2
  const maxDelay = options.maxRetryDelayMs ?? 60_000
  const timeoutMs = options.timeoutMs ?? 150_000
  return async (template: Request): Promise<Response> => {
    for (let attempt = 1; ; attempt++) {
      // A Request's body can be read once: each attempt sends a copy.
      const request = new Request(template.clone(), { signal: AbortSignal.any([template.signal, AbortSignal.timeout(timeoutMs)]) })
      request.headers.set('authorization', `Bearer ${options.apiKey}`)
      let response: Response
      try {
        response = await send(request)
      } catch (error) {
        throw connectionError(`${template.method} ${template.url}`, error)
      }
      if (!RETRIED.has(response.status) || attempt > maxRetries) return response
      const retryAfter = response.headers.get('retry-after')
      const delayMs = retryDelayMs(retryAfter, attempt)
      if (delayMs > maxDelay) return response
      await response.body?.cancel()
      options.onRetry?.({ attempt, status: response.status, delayMs, retryAfter })
      await new Promise((resolve) => setTimeout(resolve, delayMs))
    }
  }
}
