/**
 * Usage metered from real WebSocket connections, on a controllable clock: a session across
 * midnight is split over both UTC days and counted once; a room switch keeps one session; two
 * workspaces never see each other's usage.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { startRestEngine, type RestEngine } from '../../plugins/rest/test/restEngine.js'
import { websocketTransport } from './index.js'
import { TestTerminal } from './test/terminalClient.js'

let t: RestEngine
let clock: ManualClock
beforeEach(async () => {
  clock = new ManualClock(Date.parse('2026-11-20T23:59:30Z'))
  t = await startRestEngine({ extensions: [websocketTransport] }, { clock })
})
afterEach(() => t.stop())

/** Resolves when the workspace actor has ended the session of `clientId` (the socket close reached the server). */
const ended = (clientId: string) =>
  new Promise<void>((resolve) => {
    const off = t.engine.host.terminals.on('session.ended', ({ session }) => {
      if (session.clientId === clientId) {
        off()
        resolve()
      }
    })
  })

describe('usage over real WebSocket sessions', () => {
  it('splits a session across midnight, keeps one session through a room switch, isolates workspaces', async () => {
    const acme = t.workspace('acme')
    const other = t.workspace('other')
    await acme.api.post('/clients', { clientId: 'dev-1', room: 'lobby' })
    await other.api.post('/clients', { clientId: 'dev-1', room: 'lobby' })
    const token = (await acme.api.post<{ token: string }>('/clients/dev-1/token', {})).body.token
    const terminal = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
    await terminal.event('session')

    clock.set(Date.parse('2026-11-21T00:00:15Z'))
    await acme.api.patch('/clients/dev-1', { room: 'kitchen' })
    await terminal.event('room.changed')
    clock.set(Date.parse('2026-11-21T00:00:30Z'))
    const gone = ended('dev-1')
    terminal.close()
    await gone

    const usage = await acme.api.get<{ records: Array<{ date: string; minutes: number; sessions: number }>; totals: unknown }>(
      '/usage?from=2026-11-20&to=2026-11-21',
    )
    expect(usage.body.records).toEqual([
      { date: '2026-11-20', minutes: 0.5, sessions: 1 },
      { date: '2026-11-21', minutes: 0.5, sessions: 0 },
    ])
    expect(usage.body.totals).toEqual({ minutes: 1, sessions: 1 })
    expect((await other.api.get('/usage')).body.totals).toEqual({ minutes: 0, sessions: 0 })
  })
})
