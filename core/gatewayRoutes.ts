/**
 * HTTP routes on the gateway port (the TLS listener of WSS). The listener belongs to one
 * transport (WebSocket), yet other extensions need a path on it — WebRTC signalling answers
 * `POST /v1/webrtc/offer` there — and adapters never import each other. So the engine keeps this
 * registry on the host: any extension adds `{method, path, handle}` in its create() or start(),
 * and whichever transport owns the gateway listener looks a request up here *when it arrives*
 * (registration order does not matter) for every path it does not serve itself.
 *
 * Requests and responses are transport-neutral: the method, path, query, every value of every
 * header (so "exactly one Authorization header" is checkable), the remote address and the whole
 * body (read by the server up to the route's cap; beyond it the server answers 413 itself).
 */
import { STATUS_CODES } from 'node:http'
import { errorEnvelope, isHarkError, wireCodesOf } from './errors.js'

export type GatewayMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'

/** Largest body a route accepts unless it says otherwise. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024

export interface GatewayRequest {
  /** Upper-case method. */
  readonly method: string
  /** The path as received, without the query string. */
  readonly path: string
  readonly query: URLSearchParams
  /** Every value of every header, by lower-case name, in arrival order. */
  readonly headers: ReadonlyMap<string, ReadonlyArray<string>>
  /** Peer address of the TCP connection (IPv4 or IPv6 text). */
  readonly remoteAddress: string
  /** The whole body (empty when there is none). */
  readonly body: Buffer
}

export interface GatewayResponse {
  readonly status: number
  /** A header with several values is written once per value. */
  readonly headers?: Readonly<Record<string, string | ReadonlyArray<string>>>
  readonly body?: string | Uint8Array
}

export interface GatewayRoute {
  readonly method: GatewayMethod
  /**
   * The exact path (`/v1/webrtc/offer`), or a prefix ending in `/*` (`/v1/webrtc/peers/*` matches
   * `/v1/webrtc/peers/<anything non-empty>`). An exact path wins over a prefix, a longer prefix
   * over a shorter one.
   */
  readonly path: string
  /** Bodies larger than this are refused with 413 before `handle` runs (default 64 KiB). */
  readonly maxBodyBytes?: number
  /**
   * Answer one request. A thrown Hark error becomes its status and JSON error envelope; anything
   * else thrown becomes a 500 `internal` (and is logged by the server).
   */
  handle(request: GatewayRequest): Promise<GatewayResponse> | GatewayResponse
}

export type GatewayRouteMatch =
  | { readonly kind: 'route'; readonly route: GatewayRoute }
  /** The path exists with other methods only (answer 405 with `Allow`). */
  | { readonly kind: 'method-not-allowed'; readonly allow: ReadonlyArray<string> }
  | { readonly kind: 'none' }

const PREFIX = '/*'
const NONE: GatewayRouteMatch = { kind: 'none' }

export class GatewayRoutes {
  /** path -> method -> route */
  private readonly exact = new Map<string, Map<string, GatewayRoute>>()
  /** prefix (with its trailing slash) -> method -> route, longest prefix first */
  private prefixes: Array<{ prefix: string; methods: Map<string, GatewayRoute> }> = []

  /** Add a route; returns the function that removes it. Two routes for one method and path are refused. */
  add(route: GatewayRoute): () => void {
    if (!route.path.startsWith('/')) throw new Error(`gateway route path "${route.path}" must start with /`)
    const methods = this.methodsFor(route.path)
    if (methods.has(route.method)) throw new Error(`gateway route ${route.method} ${route.path} is already registered`)
    methods.set(route.method, route)
    return () => {
      if (methods.get(route.method) === route) methods.delete(route.method)
    }
  }

  /** The route for a request, at request time. */
  match(method: string, path: string): GatewayRouteMatch {
    const methods = this.exact.get(path) ?? this.prefixes.find((p) => path.length > p.prefix.length && path.startsWith(p.prefix))?.methods
    if (!methods || methods.size === 0) return NONE
    const route = methods.get(method)
    return route ? { kind: 'route', route } : { kind: 'method-not-allowed', allow: [...methods.keys()].sort() }
  }

  private methodsFor(path: string): Map<string, GatewayRoute> {
    if (path.endsWith(PREFIX)) {
      const prefix = path.slice(0, -1)
      let entry = this.prefixes.find((p) => p.prefix === prefix)
      if (!entry) {
        entry = { prefix, methods: new Map() }
        this.prefixes = [...this.prefixes, entry].sort((a, b) => b.prefix.length - a.prefix.length)
      }
      return entry.methods
    }
    let methods = this.exact.get(path)
    if (!methods) this.exact.set(path, (methods = new Map()))
    return methods
  }
}

/** The status line for a status code ("201 Created"). */
export const statusLine = (status: number): string => `${status} ${STATUS_CODES[status] ?? 'Unknown'}`

/** A JSON response with Hark's error envelope; the status follows the error table unless given. */
export const errorResponse = (
  error: unknown,
  status: number = wireCodesOf(error).http,
  headers: Readonly<Record<string, string | ReadonlyArray<string>>> = {},
): GatewayResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(errorEnvelope(error)),
})

/** What a handler's failure becomes on the wire. */
export const failureResponse = (error: unknown): GatewayResponse =>
  isHarkError(error) ? errorResponse(error) : errorResponse(error, 500)

/** A JSON response. */
export const jsonResponse = (
  status: number,
  value: unknown,
  headers: Readonly<Record<string, string | ReadonlyArray<string>>> = {},
): GatewayResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(value),
})
