import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
let clock: ManualClock
beforeEach(async () => {
  clock = new ManualClock(Date.parse('2026-11-20T23:59:00Z'))
  t = await startRestEngine({}, { clock })
})
afterEach(() => t.stop())

describe('GET /api/v1/usage', () => {
  it('returns 90 daily records with totals, workspace-isolated, live sessions included', async () => {
    const a = t.workspace('a')
    const b = t.workspace('b')
    await a.api.post('/clients', { clientId: 'dev-1', room: 'lobby' })
    await b.api.post('/clients', { clientId: 'dev-1', room: 'lobby' })
    const s = await t.connect(a.workspaceId, 'dev-1')
    clock.advance(120_000)
    const live = await a.api.get('/usage')
    expect(live.status).toBe(200)
    expect(live.body.records).toHaveLength(90)
    expect(live.body.records.at(-1)).toEqual({ date: '2026-11-21', minutes: 1, sessions: 0 })
    expect(live.body.records.at(-2)).toEqual({ date: '2026-11-20', minutes: 1, sessions: 1 })
    expect(live.body.totals).toEqual({ minutes: 2, sessions: 1 })
    s.session.end()
    expect((await a.api.get('/usage')).body.totals).toEqual({ minutes: 2, sessions: 1 })
    expect((await b.api.get('/usage')).body.totals).toEqual({ minutes: 0, sessions: 0 })
    const range = await a.api.get('/usage?from=2026-11-20&to=2026-11-20')
    expect(range.body).toEqual({ records: [{ date: '2026-11-20', minutes: 1, sessions: 1 }], totals: { minutes: 1, sessions: 1 } })
  })

  it.each([
    ['?from=2026-01-01', 'from'],
    ['?to=2026-11-22', 'to'],
    ['?from=2026-11-21&to=2026-11-20', 'from'],
    ['?from=2026-11-31', 'from'],
    ['?from=today', 'from'],
    ['?since=2026-11-20', 'since'],
  ])('refuses %s with 400 naming the field', async (query, field) => {
    const { api } = t.workspace()
    clock.set(Date.parse('2026-11-21T12:00:00Z'))
    const r = await api.get(`/usage${query}`)
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('validation_failed')
    expect(r.body.error.message).toContain(field)
  })

  it('needs an API key', async () => {
    expect((await t.anonymous.get('/usage')).status).toBe(401)
  })
})
