import { describe, expect, it } from 'vitest'
import { GatewayRoutes, type GatewayRoute, type GatewaySocketRoute } from './gatewayRoutes.js'

const route = (method: GatewayRoute['method'], path: string): GatewayRoute => ({ method, path, handle: () => ({ status: 200 }) })

describe('GatewayRoutes', () => {
  it('prefers an exact path, then the longest prefix; a prefix needs something after it', () => {
    const routes = new GatewayRoutes()
    const exact = route('GET', '/a/b/c')
    const short = route('GET', '/a/*')
    const long = route('GET', '/a/b/*')
    routes.add(short)
    routes.add(exact)
    routes.add(long)
    expect(routes.match('GET', '/a/b/c')).toEqual({ kind: 'route', route: exact })
    expect(routes.match('GET', '/a/b/d')).toEqual({ kind: 'route', route: long })
    expect(routes.match('GET', '/a/x')).toEqual({ kind: 'route', route: short })
    expect(routes.match('GET', '/a/')).toEqual({ kind: 'none' })
    expect(routes.match('GET', '/b')).toEqual({ kind: 'none' })
  })

  it('says which methods a known path takes, and forgets a removed route', () => {
    const routes = new GatewayRoutes()
    const remove = routes.add(route('POST', '/x'))
    routes.add(route('DELETE', '/x'))
    expect(routes.match('GET', '/x')).toEqual({ kind: 'method-not-allowed', allow: ['DELETE', 'POST'] })
    remove()
    expect(routes.match('POST', '/x')).toEqual({ kind: 'method-not-allowed', allow: ['DELETE'] })
    expect(() => routes.add(route('DELETE', '/x'))).toThrow(/already registered/)
    expect(() => routes.add(route('GET', 'x'))).toThrow(/must start with/)
  })
})

describe('GatewayRoutes: WebSocket routes', () => {
  const socketRoute = (path: string): GatewaySocketRoute => ({ path, upgrade: () => ({ refuse: { status: 403 } }) })

  it('match by exact path or longest prefix, one route per path, removable', () => {
    const routes = new GatewayRoutes()
    const exact = socketRoute('/dev/v1/')
    const prefix = socketRoute('/dev/*')
    const removeExact = routes.addSocket(exact)
    routes.addSocket(prefix)
    expect(routes.matchSocket('/dev/v1/')).toBe(exact)
    expect(routes.matchSocket('/dev/other')).toBe(prefix)
    expect(routes.matchSocket('/elsewhere')).toBeNull()
    expect(() => routes.addSocket(socketRoute('/dev/v1/'))).toThrow(/already registered/)
    removeExact()
    expect(routes.matchSocket('/dev/v1/')).toBe(prefix)
    // HTTP routes and WebSocket routes do not see each other.
    expect(routes.match('GET', '/dev/v1/')).toEqual({ kind: 'none' })
    expect(() => routes.addSocket(socketRoute('dev'))).toThrow(/must start with/)
  })
})
