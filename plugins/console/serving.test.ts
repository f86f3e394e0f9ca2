/**
 * What the console tells a browser about the engine's gateway, read from the listener the
 * WebSocket transport reported (services.listeners, `port('gateway')`): the Content-Security-Policy
 * lets the page reach exactly that origin, and a room join names that port. Without a gateway,
 * neither names one.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { websocketTransport } from '../../transports/websocket/index.js'
import { startConsoleEngine, type ConsoleEngine } from './test/consoleEngine.js'

let t: ConsoleEngine | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const CSP_REST =
  "media-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const served = async (engine: ConsoleEngine) => {
  const admin = await engine.user('admin@example.com')
  const ws = engine.workspace(admin.record.userId)
  const page = await engine.client().get('/')
  const joined = await admin.client.post(`/api/workspaces/${ws}/rooms/lobby/join`, {})
  expect(joined.status).toBe(201)
  return { csp: page.headers['content-security-policy'], headers: page.headers, gateway: joined.body.gateway }
}

describe('console serving', () => {
  it("names the gateway's bound port in its CSP and in a room join", async () => {
    t = await startConsoleEngine({ extensions: [websocketTransport] })
    const gateway = t.engine.ports.gateway!
    expect(gateway).toBeGreaterThan(0)
    const { csp, headers, gateway: told } = await served(t)
    expect(csp).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        `connect-src 'self' https://127.0.0.1:${gateway}; ${CSP_REST}`,
    )
    expect(headers).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' })
    expect(told).toEqual({ port: gateway })
  })

  it('names no gateway when no transport listens on one', async () => {
    t = await startConsoleEngine()
    const { csp, gateway } = await served(t)
    expect(csp).toBe(`default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; ${CSP_REST}`)
    expect(gateway).toEqual({ port: null })
  })
})
