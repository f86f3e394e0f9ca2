/**
 * The console's HTTPS port bounds silent connections as every other listener does (issue 33,
 * item 4): a TCP connection that never sends a ClientHello was held 120 s (Node's TLS handshake
 * timeout), and one that finished the handshake and sent nothing 10–40 s (headers timeout 10 s,
 * looked at every 30 s). Both now close after `console.headersTimeoutMs`, here set to its
 * minimum so that the test waits about a second of real time (Node's own timers, not the engine clock).
 */
import { connect, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startConsoleEngine, type ConsoleEngine } from './test/consoleEngine.js'

const BOUND_MS = 1000
/** How long the test waits for the server's close before failing: far under the 120 s it held before. */
const FAIL_AFTER_MS = 8000

let t: ConsoleEngine
beforeAll(async () => {
  t = await startConsoleEngine({ console: { headersTimeoutMs: BOUND_MS } })
})
afterAll(() => t.stop())

/** Wait for the server to close `socket`; the milliseconds from `since`, and whatever it sent. */
const closedByServer = (socket: Socket, since: number): Promise<{ afterMs: number; received: string }> =>
  new Promise((resolve, reject) => {
    let received = ''
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')))
    socket.on('error', () => {})
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the console still held the connection after ${FAIL_AFTER_MS} ms`))
    }, FAIL_AFTER_MS)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ afterMs: performance.now() - since, received })
    })
  })

describe('the console listener closes silent connections', () => {
  it('a TCP connection that never starts TLS is closed after console.headersTimeoutMs', async () => {
    const since = performance.now()
    const socket = connect(t.engine.ports.console!, '127.0.0.1')
    const { afterMs, received } = await closedByServer(socket, since)
    console.log(`console: silent TCP connection closed after ${afterMs.toFixed(0)} ms (bound ${BOUND_MS})`)
    // Node's timers never fire early; no upper figure is asserted beyond the failure bound.
    expect(afterMs).toBeGreaterThanOrEqual(BOUND_MS - 50)
    expect(received).toBe('')
  })

  it('a TLS connection that sends no request is closed after console.headersTimeoutMs', async () => {
    const socket = tlsConnect({ port: t.engine.ports.console!, host: '127.0.0.1', ca: t.engine.host.tls.cert, servername: 'localhost', rejectUnauthorized: false })
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject))
    const since = performance.now()
    const { afterMs, received } = await closedByServer(socket, since)
    expect(received).toMatch(/^HTTP\/1\.1 408 /)
    console.log(`console: silent TLS connection closed after ${afterMs.toFixed(0)} ms (bound ${BOUND_MS}, checked every ${BOUND_MS / 2} ms)`)
    expect(afterMs).toBeGreaterThanOrEqual(BOUND_MS - 50)
  })

  it('a request still works, and the engine answers after the closes', async () => {
    const c = t.client()
    expect((await c.get('/api/session')).status).toBe(401)
  })
})
