import { describe, expect, it } from 'vitest'
import { GatewayRoutes, type GatewayRoute } from './gatewayRoutes.js'

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
