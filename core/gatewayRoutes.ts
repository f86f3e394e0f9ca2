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
 *
 * WebSocket routes work the same way (`addSocket`): an extension that speaks its own protocol over
 * WebSocket on the gateway's TLS listener (a device firmware's) decides on each upgrade request —
 * refuse it with an HTTP response, or accept it with a handler — and then reads messages and
 * writes to a `GatewaySocket`, without knowing which WebSocket library serves the listener.
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

/** The open connection of a WebSocket route: what its handler writes to. */
export interface GatewaySocket {
  /**
   * Send one message; its bytes are copied (or written) before this returns, so a scratch buffer
   * may be reused. False when it was not taken: the socket is closed, or its buffer is past the
   * server's backpressure limit.
   */
  send(message: Uint8Array | string, binary: boolean): boolean
  /** Bytes sent and not yet taken by the network. */
  readonly bufferedAmount: number
  /** Run `fn`, writing every send inside it to the network at once. */
  cork(fn: () => void): void
  /** Close with a WebSocket close code and a short reason (at most 123 bytes); idempotent. */
  close(code: number, reason: string): void
}

/** What the server tells a WebSocket route's connection. */
export interface GatewaySocketHandler {
  /** One whole message; `data` is only valid during the call (copy what you keep). */
  message(data: ArrayBuffer, binary: boolean): void
  /** The connection ended, from either side (`code` as received or sent; 1006 when it dropped). Called once. */
  closed(code: number): void
}

/** A route's answer to an upgrade request. */
export type GatewayUpgrade =
  /** Answer with this HTTP response instead of upgrading (a refusal: 401, 400…). */
  | { readonly refuse: GatewayResponse }
  /**
   * Upgrade. `open` runs once the WebSocket is open and returns its handler; it runs inside the
   * server's upgrade and must not close other connections synchronously.
   */
  | { readonly accept: (socket: GatewaySocket) => GatewaySocketHandler }

export interface GatewaySocketRoute {
  /** Exact path or a prefix ending in `/*`, matched as for HTTP routes. */
  readonly path: string
  /**
   * Decide on one upgrade request (its body is empty). A thrown or rejected Hark error refuses the
   * upgrade with its status and envelope; anything else refuses it with a 500.
   */
  upgrade(request: GatewayRequest): Promise<GatewayUpgrade> | GatewayUpgrade
}

export type GatewayRouteMatch =
  | { readonly kind: 'route'; readonly route: GatewayRoute }
  /** The path exists with other methods only (answer 405 with `Allow`). */
  | { readonly kind: 'method-not-allowed'; readonly allow: ReadonlyArray<string> }
  | { readonly kind: 'none' }

const PREFIX = '/*'
const NONE: GatewayRouteMatch = { kind: 'none' }

/** Values by exact path or by path prefix (`/a/*`): an exact path wins, then the longest prefix. */
class PathIndex<V> {
  private readonly exact = new Map<string, V>()
  /** prefix (with its trailing slash) -> value, longest prefix first */
  private prefixes: Array<{ prefix: string; value: V }> = []

  constructor(
    private readonly create: () => V,
    /** A value that holds nothing (every route removed) is passed over by lookups. */
    private readonly holds: (value: V) => boolean,
  ) {}

  /** The value at `path` as registered (created on first use). */
  at(path: string): V {
    if (!path.startsWith('/')) throw new Error(`gateway route path "${path}" must start with /`)
    if (path.endsWith(PREFIX)) {
      const prefix = path.slice(0, -1)
      let entry = this.prefixes.find((p) => p.prefix === prefix)
      if (!entry) {
        entry = { prefix, value: this.create() }
        this.prefixes = [...this.prefixes, entry].sort((a, b) => b.prefix.length - a.prefix.length)
      }
      return entry.value
    }
    let value = this.exact.get(path)
    if (value === undefined) this.exact.set(path, (value = this.create()))
    return value
  }

  /** The value a request path falls under. */
  lookup(path: string): V | undefined {
    const exact = this.exact.get(path)
    if (exact !== undefined && this.holds(exact)) return exact
    return this.prefixes.find((p) => path.length > p.prefix.length && path.startsWith(p.prefix) && this.holds(p.value))?.value
  }
}

export class GatewayRoutes {
  /** path -> method -> route */
  private readonly http = new PathIndex(() => new Map<string, GatewayRoute>(), (methods) => methods.size > 0)
  /** path -> the WebSocket route there (one slot per path) */
  private readonly sockets = new PathIndex<{ route: GatewaySocketRoute | null }>(() => ({ route: null }), (slot) => slot.route !== null)

  /** Add a route; returns the function that removes it. Two routes for one method and path are refused. */
  add(route: GatewayRoute): () => void {
    const methods = this.http.at(route.path)
    if (methods.has(route.method)) throw new Error(`gateway route ${route.method} ${route.path} is already registered`)
    methods.set(route.method, route)
    return () => {
      if (methods.get(route.method) === route) methods.delete(route.method)
    }
  }

  /** The route for a request, at request time. */
  match(method: string, path: string): GatewayRouteMatch {
    const methods = this.http.lookup(path)
    if (!methods || methods.size === 0) return NONE
    const route = methods.get(method)
    return route ? { kind: 'route', route } : { kind: 'method-not-allowed', allow: [...methods.keys()].sort() }
  }

  /** Add a WebSocket route; returns the function that removes it. Two routes for one path are refused. */
  addSocket(route: GatewaySocketRoute): () => void {
    const slot = this.sockets.at(route.path)
    if (slot.route !== null) throw new Error(`gateway WebSocket route ${route.path} is already registered`)
    slot.route = route
    return () => {
      if (slot.route === route) slot.route = null
    }
  }

  /** The WebSocket route for an upgrade request's path, at request time. */
  matchSocket(path: string): GatewaySocketRoute | null {
    return this.sockets.lookup(path)?.route ?? null
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
