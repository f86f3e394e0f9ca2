/**
 * WebRTC signalling over HTTPS on the gateway port (gateway routes, core/gatewayRoutes.ts):
 *
 *   POST    /v1/webrtc/offer            offer in, complete answer out (201, Location: the peer)
 *   DELETE  /v1/webrtc/peers/{peerId}   end that peer's session (204)
 *   GET     /v1/webrtc/ice-servers      the STUN/TURN servers a client should use (200)
 *   OPTIONS on each                     CORS preflight (204)
 *
 * Every request carries exactly one `Authorization: Bearer <client token>`; a token in the query
 * string is refused. Statuses, bodies and every refusal are specified in spec/webrtc.md.
 * Responses allow any origin (CORS): the credential is a header, never a cookie.
 */
import {
  errorResponse,
  isHarkError,
  jsonResponse,
  MalformedJson,
  NotFound,
  parseBearer,
  ServerShuttingDown,
  TokenInvalid,
  UnsupportedMediaType,
  ValidationFailed,
  wireCodesOf,
  type GatewayRequest,
  type GatewayResponse,
  type GatewayRoute,
  type TerminalIdentity,
} from '../../core/extension.js'
import { iceServerLinks, type ClientIceServer } from './iceServers.js'
import { checkOffer } from './offer.js'

export const OFFER_PATH = '/v1/webrtc/offer'
export const PEERS_PREFIX = '/v1/webrtc/peers/'
export const ICE_SERVERS_PATH = '/v1/webrtc/ice-servers'
/** Largest offer accepted (a browser's offer is 3–8 KB). */
export const MAX_OFFER_BYTES = 64 * 1024

const CORS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Location, Link',
}
const PREFLIGHT: Readonly<Record<string, string>> = {
  ...CORS,
  'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type',
  'access-control-max-age': '600',
}

/** What the routes need from the transport. */
export interface SignallingPort {
  /** False while the transport is stopping. */
  accepting(): boolean
  authenticate(token: string): Promise<TerminalIdentity>
  /** Answer a checked offer; resolves with the peer id and the complete answer SDP. */
  offer(identity: TerminalIdentity, token: string, sdp: string): Promise<{ peerId: string; sdp: string }>
  /** End a peer of this client; false when there is no such peer (for this client). */
  end(identity: TerminalIdentity, peerId: string): Promise<boolean>
  iceServers(identity: TerminalIdentity): ReadonlyArray<ClientIceServer>
}

/**
 * Status of a refused request. Any credential problem is 401 — also a token whose client or
 * workspace is gone (REST says 404 for those, but here the credential is what failed) — with a
 * `WWW-Authenticate: Bearer` challenge (RFC 6750); everything else follows the error table.
 */
const refusal = (error: unknown): GatewayResponse => {
  if (!isHarkError(error)) return errorResponse(error, 500, CORS)
  switch (error._tag) {
    case 'TokenInvalid':
    case 'TokenExpired':
    case 'TokenRevoked':
    case 'ClientNotFound':
    case 'ClientDeleted':
    case 'WorkspaceNotFound':
      return errorResponse(error, 401, {
        ...CORS,
        'www-authenticate': `Bearer realm="hark", error="invalid_token", error_description="${wireCodesOf(error).code}"`,
      })
    case 'CapacityExceeded':
    case 'RateLimited':
      return errorResponse(error, wireCodesOf(error).http, { ...CORS, 'retry-after': String(error.retryAfterSeconds) })
    default:
      return errorResponse(error, wireCodesOf(error).http, CORS)
  }
}

/** The client token of a request: exactly one `Authorization: Bearer` header, nothing in the query. */
export const bearerToken = (request: GatewayRequest): string => {
  for (const name of ['token', 'access_token']) {
    if (request.query.has(name)) {
      throw new ValidationFailed({
        field: name,
        message: 'a client token in the query string is refused: send it in one Authorization: Bearer header',
      })
    }
  }
  const values = request.headers.get('authorization') ?? []
  if (values.length === 0) throw new TokenInvalid({ message: 'missing Authorization: Bearer header' })
  if (values.length > 1) {
    throw new ValidationFailed({ field: 'authorization', message: `exactly one Authorization header is accepted, got ${values.length}` })
  }
  const token = parseBearer(values[0]!)
  if (token === null) throw new TokenInvalid({ message: 'the Authorization header must be "Bearer <client token>"' })
  return token
}

type OfferFormat = 'sdp' | 'json'

/** The SDP offer of a request body, and the format to answer in. */
export const readOffer = (request: GatewayRequest): { sdp: string; format: OfferFormat } => {
  const contentType = (request.headers.get('content-type')?.[0] ?? '').split(';')[0]!.trim().toLowerCase()
  const text = request.body.toString('utf8')
  if (contentType === 'application/sdp') return { sdp: text, format: 'sdp' }
  if (contentType === 'application/json') {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      throw new MalformedJson({ message: 'the body is not valid JSON' })
    }
    const offer = value as { type?: unknown; sdp?: unknown } | null
    if (typeof offer !== 'object' || offer === null || Array.isArray(offer)) {
      throw new ValidationFailed({ field: 'body', message: 'the body must be a JSON object {"type":"offer","sdp":…}' })
    }
    if (offer.type !== 'offer') throw new ValidationFailed({ field: 'type', message: '"type" must be "offer"' })
    if (typeof offer.sdp !== 'string' || offer.sdp.length === 0) throw new ValidationFailed({ field: 'sdp', message: '"sdp" must be a non-empty string' })
    return { sdp: offer.sdp, format: 'json' }
  }
  throw new UnsupportedMediaType({ message: 'Content-Type must be application/sdp or application/json' })
}

const guarded =
  (handle: (request: GatewayRequest) => Promise<GatewayResponse>) =>
  async (request: GatewayRequest): Promise<GatewayResponse> => {
    try {
      return await handle(request)
    } catch (error) {
      return refusal(error)
    }
  }

/** The signalling routes, to add to the host's gateway routes. */
export const signallingRoutes = (port: SignallingPort): GatewayRoute[] => {
  const authenticated = async (request: GatewayRequest) => {
    if (!port.accepting()) throw new ServerShuttingDown({ message: 'server shutting down' })
    const token = bearerToken(request)
    return { token, identity: await port.authenticate(token) }
  }
  const preflight = (path: string): GatewayRoute => ({ method: 'OPTIONS', path, handle: () => ({ status: 204, headers: PREFLIGHT }) })

  return [
    {
      method: 'POST',
      path: OFFER_PATH,
      maxBodyBytes: MAX_OFFER_BYTES,
      handle: guarded(async (request) => {
        const { token, identity } = await authenticated(request)
        const offer = readOffer(request)
        await checkOffer(offer.sdp)
        const answer = await port.offer(identity, token, offer.sdp)
        const location = `${PEERS_PREFIX}${answer.peerId}`
        const iceServers = port.iceServers(identity)
        const headers = { ...CORS, location, link: iceServerLinks(iceServers) }
        if (offer.format === 'sdp') return { status: 201, headers: { ...headers, 'content-type': 'application/sdp' }, body: answer.sdp }
        return jsonResponse(201, { type: 'answer', sdp: answer.sdp, peerId: answer.peerId, location, iceServers }, headers)
      }),
    },
    {
      method: 'DELETE',
      path: `${PEERS_PREFIX}*`,
      handle: guarded(async (request) => {
        const { identity } = await authenticated(request)
        const peerId = request.path.slice(PEERS_PREFIX.length)
        if (!(await port.end(identity, peerId))) throw new NotFound({ message: `no peer ${peerId}` })
        return { status: 204, headers: CORS }
      }),
    },
    {
      method: 'GET',
      path: ICE_SERVERS_PATH,
      handle: guarded(async (request) => {
        const { identity } = await authenticated(request)
        const iceServers = port.iceServers(identity)
        return jsonResponse(200, { iceServers }, { ...CORS, link: iceServerLinks(iceServers), 'cache-control': 'no-store' })
      }),
    },
    preflight(OFFER_PATH),
    preflight(`${PEERS_PREFIX}*`),
    preflight(ICE_SERVERS_PATH),
  ]
}
