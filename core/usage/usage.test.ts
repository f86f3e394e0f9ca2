import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../clock.js'
import type { RoomMember } from '../actors/room.js'
import { splitByDay } from '../storage/usage.js'
import { cliJson, RecordingLink, seedWorkspace, startTestEngine } from '../test/helpers.js'
import { usageReport, type UsageReport } from './report.js'

const at = (iso: string) => Date.parse(iso)

let clock: ManualClock
let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>

const connect = async (clientId: string) => {
  const { token } = await t.engine.host.security.tokens.issue(seed.workspaceId, clientId, null)
  const link = new RecordingLink()
  const session = t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token }), link)
  await link.event('session')
  return { session, link }
}
/** Opens and closes are written by group commit at the end of the turn: resolves once it is done. */
const committed = () => new Promise<void>((resolve) => t.engine.host.terminals.introductions.wait(resolve))
const report = (range: { from?: string; to?: string } = {}, workspaceId = seed.workspaceId): UsageReport =>
  usageReport(t.engine.host.storage, workspaceId, clock.now(), range)
const day = (r: UsageReport, date: string) => r.records.find((x) => x.date === date)

beforeEach(async () => {
  clock = new ManualClock(at('2026-11-20T23:59:30Z'))
  t = await startTestEngine({}, { clock })
  seed = seedWorkspace(t.engine)
  seed.addClient('dev-1', 'lobby')
  seed.addClient('dev-2', 'lobby')
})
afterEach(() => t.stop())

describe('usage metering', () => {
  it('splits time by UTC day', () => {
    expect(splitByDay(at('2026-11-20T23:59:30Z'), at('2026-11-21T00:01:00Z'))).toEqual([
      ['2026-11-20', 30_000],
      ['2026-11-21', 60_000],
    ])
    expect(splitByDay(5, 5)).toEqual([])
  })

  it('splits a session crossing midnight across both days and counts it once, on its start day', async () => {
    const a = await connect('dev-1')
    clock.set(at('2026-11-21T00:00:30Z'))
    a.session.end()
    await committed()
    const r = report()
    expect(day(r, '2026-11-20')).toEqual({ date: '2026-11-20', minutes: 0.5, sessions: 1 })
    expect(day(r, '2026-11-21')).toEqual({ date: '2026-11-21', minutes: 0.5, sessions: 0 })
    expect(r.totals).toEqual({ minutes: 1, sessions: 1 })
  })

  it('keeps one session through room switches and counts open sessions live', async () => {
    const a = await connect('dev-1')
    seed.moveClient('dev-1', 'elsewhere')
    await a.link.event('room.changed')
    clock.advance(90_000)
    const live = report()
    expect(live.totals).toEqual({ minutes: 1.5, sessions: 1 })
    clock.advance(30_000)
    a.session.end()
    await committed()
    expect(report().totals).toEqual({ minutes: 2, sessions: 1 })
  })

  it('never meters agents, and keeps workspaces apart', async () => {
    const agent: RoomMember = { id: 'agent-echo', kind: 'agent', name: 'echo', deliver() {}, sendEvent() {}, joined() {} }
    t.engine.host.terminals.joinRoom(seed.workspaceId, 'lobby', agent)
    const other = seedWorkspace(t.engine, 'other')
    other.addClient('dev-1', 'lobby')
    const a = await connect('dev-1')
    clock.advance(60_000)
    a.session.end()
    await committed()
    t.engine.host.terminals.leaveRoom(seed.workspaceId, 'lobby', agent)
    expect(report().totals).toEqual({ minutes: 1, sessions: 1 })
    expect(report({}, other.workspaceId).totals).toEqual({ minutes: 0, sessions: 0 })
  })

  it('returns one record per day over the last 90 days, totals equal to the sum, and checks from/to', async () => {
    // Fold sessions on several days, including one outside the window (the client exists since then).
    clock.set(at('2026-08-01T00:00:00Z'))
    seed.addClient('hist', 'lobby')
    for (const [start, minutes] of [['2026-08-01T10:00:00Z', 10], ['2026-08-23T10:00:00Z', 3], ['2026-11-01T08:00:00Z', 7]] as const) {
      clock.set(at(start))
      const s = await connect('hist')
      clock.advance(minutes * 60_000)
      s.session.end()
      await committed()
    }
    clock.set(at('2026-11-20T12:00:00Z'))
    const r = report()
    expect(r.records).toHaveLength(90)
    expect(r.from).toBe('2026-08-23')
    expect(r.to).toBe('2026-11-20')
    expect(new Set(r.records.map((x) => x.date)).size).toBe(90)
    expect(day(r, '2026-08-23')).toMatchObject({ minutes: 3, sessions: 1 })
    expect(day(r, '2026-11-01')).toMatchObject({ minutes: 7, sessions: 1 })
    expect(r.totals).toEqual({
      minutes: Math.round(r.records.reduce((s, x) => s + x.minutes, 0) * 100) / 100,
      sessions: r.records.reduce((s, x) => s + x.sessions, 0),
    })
    expect(r.totals).toEqual({ minutes: 10, sessions: 2 })
    expect(report({ from: '2026-11-01', to: '2026-11-01' }).records).toEqual([{ date: '2026-11-01', minutes: 7, sessions: 1 }])
    for (const bad of [{ from: '2026-08-01' }, { to: '2026-11-21' }, { from: '2026-11-10', to: '2026-11-01' }, { from: '2026-02-30' }, { from: 'yesterday' }]) {
      expect(() => report(bad)).toThrow(expect.objectContaining({ _tag: 'ValidationFailed' }))
    }
  })

  it('checkpoints open sessions every usage.checkpointMs on the engine clock, and no sooner', async () => {
    const a = await connect('dev-1')
    const { storage } = t.engine.host
    const row = () => storage.usage.openSessions(seed.workspaceId).find((s) => s.sessionId === a.session.sessionId)!
    const started = clock.now()
    expect(row().checkpointAt).toBe(started)
    clock.advance(4999)
    expect(row().checkpointAt).toBe(started)
    clock.advance(1)
    expect(row().checkpointAt).toBe(started + 5000)
    clock.advance(10_000)
    expect(row().checkpointAt).toBe(started + 15_000)
    a.session.end()
    await committed()
  })

  it('closes sessions a dead process left open at their last checkpoint, exactly once', async () => {
    const { storage } = t.engine.host
    const dead = 'gone-host:1:x'
    clock.set(at('2026-11-20T10:00:00Z'))
    storage.usage.open({ sessionId: 'ses_dead', workspaceId: seed.workspaceId, clientId: 'dev-1', transport: 'mqtt', node: dead, startedAt: clock.now() })
    storage.usage.checkpoint(dead, clock.now() + 4 * 60_000)
    // Another host's session is only recovered once it has been silent for two checkpoint intervals.
    clock.set(at('2026-11-20T10:04:05Z'))
    expect(storage.usage.recoverOrphans(storage.origin, (s) => s.checkpointAt < clock.now() - 10_000)).toBe(0)
    clock.set(at('2026-11-20T10:05:00Z'))
    expect(storage.usage.recoverOrphans(storage.origin, (s) => s.checkpointAt < clock.now() - 10_000)).toBe(1)
    expect(storage.usage.recoverOrphans(storage.origin, () => true)).toBe(0)
    expect(report().totals).toEqual({ minutes: 4, sessions: 1 })
  })

  it('hark usage prints the same report', async () => {
    clock.set(Date.now())
    const a = await connect('dev-1')
    clock.advance(120_000)
    a.session.end()
    await committed()
    const out = await cliJson<Pick<UsageReport, 'records' | 'totals'>>(['usage', '--workspace', seed.workspaceId, '--data', t.dir])
    const mine = report()
    expect(out.totals).toEqual(mine.totals)
    expect(out.records).toEqual(mine.records)
    expect(out.totals).toEqual({ minutes: 2, sessions: 1 })
  })
})

