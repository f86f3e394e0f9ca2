/**
 * Serving the engine's gateway routes (core/gatewayRoutes.ts) on the uWS gateway listener: for
 * every request the gateway does not answer itself, look the route up at request time, read the
 * body with onData (capped: a declared or streamed body over the route's limit gets 413 and the
 * connection is closed), call the handler, and write its response corked — unless the client
 * went away meanwhile (onAborted). An unknown path is 404, a known path with another method 405.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import {
  DEFAULT_MAX_BODY_BYTES,
  errorResponse,
  failureResponse,
  isHarkError,
  NotFound,
  PayloadTooLarge,
  ProtocolError,
  statusLine,
  type GatewayRequest,
  type GatewayResponse,
  type GatewayRoutes,
  type Logger,
} from '../../core/extension.js'

const ascii = new TextDecoder()

export interface Exchange {
  aborted: boolean
  done: boolean
}

/** Write a whole response (corked); `close` ends the connection after it. */
export const writeResponse = (res: HttpResponse, exchange: Exchange, response: GatewayResponse, close = false): void => {
  if (exchange.aborted || exchange.done) return
  exchange.done = true
  res.cork(() => {
    res.writeStatus(statusLine(response.status))
    for (const [name, value] of Object.entries(response.headers ?? {})) {
      if (typeof value === 'string') res.writeHeader(name, value)
      else for (const v of value) res.writeHeader(name, v)
    }
    res.end(response.body ?? '', close)
  })
}

/**
 * Answer one HTTP request from the routes. Everything needed from `req` is read before this
 * returns (uWS invalidates it afterwards).
 */
export const serveRoute = (res: HttpResponse, req: HttpRequest, routes: GatewayRoutes, log: Logger): void => {
  const exchange: Exchange = { aborted: false, done: false }
  res.onAborted(() => {
    exchange.aborted = true
  })
  const method = req.getMethod().toUpperCase()
  const path = req.getUrl()
  const match = routes.match(method, path)
  if (match.kind === 'none') {
    writeResponse(res, exchange, errorResponse(new NotFound({ message: `no route ${method} ${path}` }), 404), true)
    return
  }
  if (match.kind === 'method-not-allowed') {
    const error = new ProtocolError({ message: `${path} does not take ${method} (allowed: ${match.allow.join(', ')})` })
    writeResponse(res, exchange, errorResponse(error, 405, { allow: match.allow.join(', ') }), true)
    return
  }
  const route = match.route
  const headers = new Map<string, string[]>()
  req.forEach((name, value) => {
    const values = headers.get(name)
    if (values) values.push(value)
    else headers.set(name, [value])
  })
  const query = new URLSearchParams(req.getQuery() ?? '')
  const remoteAddress = ascii.decode(res.getRemoteAddressAsText())
  const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const tooLarge = () => new PayloadTooLarge({ message: `request body exceeds ${limit} bytes` })

  const declared = headers.get('content-length')
  if (declared && declared.some((v) => Number(v) > limit)) {
    writeResponse(res, exchange, errorResponse(tooLarge()), true)
    return
  }
  const chunks: Buffer[] = []
  let received = 0
  res.onData((chunk, isLast) => {
    if (exchange.done) return
    received += chunk.byteLength
    if (received > limit) {
      writeResponse(res, exchange, errorResponse(tooLarge()), true)
      return
    }
    // The chunk's memory belongs to uWS and is reused after this callback: copy it.
    if (chunk.byteLength > 0) chunks.push(Buffer.from(chunk.slice(0)))
    if (!isLast) return
    const request: GatewayRequest = { method, path, query, headers, remoteAddress, body: Buffer.concat(chunks, received) }
    let answer: Promise<GatewayResponse>
    try {
      answer = Promise.resolve(route.handle(request))
    } catch (error) {
      answer = Promise.reject(error)
    }
    answer.then(
      (response) => writeResponse(res, exchange, response),
      (error: unknown) => {
        if (!isHarkError(error)) log.error({ err: error, method, path }, 'gateway route failed')
        writeResponse(res, exchange, failureResponse(error))
      },
    )
  })
}
