/**
 * The console's calls to its own server (same origin, the session cookie rides along): JSON in
 * and out, the session's CSRF token on every change, the server's error message surfaced as an
 * ApiError, and a session that has ended sends the user to sign in (and back here afterwards).
 */
import type { Permission, Role } from './types'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

let csrfToken: string | null = null
let onSessionEnded: () => void = () => {}

export const setCsrfToken = (token: string | null) => {
  csrfToken = token
}

/** What to do when a call finds the session ended (App sends the user to sign in). */
export const whenSessionEnds = (f: () => void) => {
  onSessionEnded = f
}

export const api = async <T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> => {
  const headers: Record<string, string> = {}
  let payload: string | undefined
  if (method !== 'GET' && method !== 'DELETE') {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body ?? {})
  }
  if (method !== 'GET' && csrfToken !== null) headers['x-csrf-token'] = csrfToken
  let res: Response
  try {
    res = await fetch(`/api${path}`, { method, headers, body: payload, credentials: 'same-origin' })
  } catch {
    throw new ApiError(0, 'network', 'The console cannot reach the engine. Check that it is running.')
  }
  const text = await res.text()
  const data = text !== '' && res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as unknown) : null
  if (!res.ok) {
    const error = (data as { error?: { message?: string; code?: string } } | null)?.error
    const failure = new ApiError(res.status, error?.code ?? 'error', error?.message ?? `${res.status} ${res.statusText}`)
    if (res.status === 401 && failure.code === 'unauthenticated') onSessionEnded()
    throw failure
  }
  return data as T
}

export const get = <T>(path: string) => api<T>('GET', path)
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body)

// ---- shapes the server answers with ----

export interface WorkspaceSummary {
  readonly workspaceId: string
  readonly name: string
  readonly role: Role
  readonly permissions: ReadonlyArray<Permission>
}

export interface SessionInfo {
  readonly user: { readonly userId: string; readonly email: string; readonly name: string | null }
  readonly csrfToken: string
  readonly workspaces: ReadonlyArray<WorkspaceSummary>
}
