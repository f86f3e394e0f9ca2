/**
 * Usage rows by group commit (issue 39 item 2): many sessions opened and ended in one event-loop
 * turn get exactly their rows, written in one transaction per turn instead of one per row, and
 * no terminal hears its `session` event before its row is committed. Real engine, real libSQL
 * file; transactions are counted by a hook on the engine's storage handle (the one the meter uses).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { TerminalIdentity } from '../security/security.js'
import { RecordingLink, seedWorkspace, startTestEngine } from '../test/helpers.js'

const N = 200

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
beforeEach(async () => {
  t = await startTestEngine()
  seed = seedWorkspace(t.engine)
  for (let i = 0; i < N; i++) seed.addClient(`dev-${i}`, `room-${i % 7}`)
})
afterEach(() => t.stop())

/** Count the storage transactions and, at each, how many terminals had heard `session` already. */
const countTransactions = (links: ReadonlyArray<RecordingLink>) => {
  const { storage } = t.engine.host
  const transaction = storage.transaction
  const seen: number[] = []
  ;(storage as { transaction: typeof transaction }).transaction = <A>(f: () => A): A => {
    seen.push(links.filter((l) => l.events.items.some((e) => e.type === 'session')).length)
    return transaction(f)
  }
  return { seen, restore: () => ((storage as { transaction: typeof transaction }).transaction = transaction) }
}

const rows = () => {
  const { n, ended } = t.engine.host.storage.db
    .prepare('SELECT count(*) AS n, count(ended_at) AS ended FROM usage_sessions WHERE workspace_id = ?')
    .get(seed.workspaceId) as { n: number; ended: number }
  return { n, ended }
}

describe('usage group commit', () => {
  it('writes the opens and closes of one turn in one transaction each, every row exactly once, before `session`', async () => {
    const { security, terminals } = t.engine.host
    const identities: TerminalIdentity[] = []
    for (let i = 0; i < N; i++) {
      const { token } = await security.tokens.issue(seed.workspaceId, `dev-${i}`, null)
      identities.push(await security.authenticateTerminal({ token }))
    }
    const links = identities.map(() => new RecordingLink())
    const counted = countTransactions(links)
    try {
      // N connects in one turn: none is introduced until the turn's rows are committed.
      const sessions = identities.map((identity, i) => terminals.open(identity, links[i]!))
      expect(links.every((l) => l.events.items.length === 0)).toBe(true)
      await Promise.all(links.map((l) => l.event('session')))
      expect(counted.seen).toEqual([0])
      expect(rows()).toEqual({ n: N, ended: 0 })

      // N disconnects in one turn: one more transaction, every session closed and folded once.
      sessions.forEach((s) => s.end())
      await new Promise<void>((resolve) => terminals.introductions.wait(resolve))
      expect(counted.seen).toHaveLength(2)
      expect(rows()).toEqual({ n: N, ended: N })
      const days = t.engine.host.storage.usage.days(seed.workspaceId, '2000-01-01', '2999-12-31')
      expect(days.reduce((n, d) => n + d.sessions, 0)).toBe(N)
    } finally {
      counted.restore()
    }
  })

  it('never introduces a terminal gone while its row waits, and meters it once', async () => {
    const { security, terminals } = t.engine.host
    const { token } = await security.tokens.issue(seed.workspaceId, 'dev-1', null)
    const link = new RecordingLink()
    const session = terminals.open(await security.authenticateTerminal({ token }), link)
    expect(link.events.items).toEqual([])
    session.end()
    await new Promise<void>((resolve) => terminals.introductions.wait(resolve))
    // Gone before its row was committed: it never hears `session`, and its row is opened and closed.
    expect(link.events.items).toEqual([])
    expect(rows()).toEqual({ n: 1, ended: 1 })
  })
})

describe('usage group commit under a storm', () => {
  it('gathers the writes of the turns after a commit into the next one, which waits usage.groupCommitMs', async () => {
    // The longest window the setting allows, so that the turns below surely fall inside it even on a
    // loaded machine: their writes wait (and nobody hears `session`) until its commit.
    const s = await startTestEngine({ usage: { groupCommitMs: 1000 } })
    try {
      const seeded = seedWorkspace(s.engine)
      for (let i = 0; i < 6; i++) seeded.addClient(`dev-${i}`, 'lobby')
      const { security, terminals, storage } = s.engine.host
      const identities: TerminalIdentity[] = []
      for (let i = 0; i < 6; i++) {
        const { token } = await security.tokens.issue(seeded.workspaceId, `dev-${i}`, null)
        identities.push(await security.authenticateTerminal({ token }))
      }
      const links = identities.map(() => new RecordingLink())
      const transaction = storage.transaction
      const seen: number[] = []
      ;(storage as { transaction: typeof transaction }).transaction = <A>(f: () => A): A => {
        seen.push(links.filter((l) => l.events.items.some((e) => e.type === 'session')).length)
        return transaction(f)
      }
      try {
        // The first connect after a quiet spell commits at the end of its own turn.
        terminals.open(identities[0]!, links[0]!)
        await links[0]!.event('session')
        expect(seen).toEqual([0])
        // Five more, each in a turn of its own, within the window: no commit, nobody introduced.
        for (let i = 1; i < 6; i++) {
          terminals.open(identities[i]!, links[i]!)
          await new Promise<void>((resolve) => setImmediate(resolve))
        }
        expect(seen).toEqual([0])
        expect(links.slice(1).every((l) => l.events.items.length === 0)).toBe(true)
        const committed = Promise.all(links.slice(1).map((l) => l.event('session')))
        // Their commit is one transaction, and they hear `session` after it.
        await committed
        expect(seen).toEqual([0, 1])
        const { n } = storage.db.prepare('SELECT count(*) AS n FROM usage_sessions WHERE workspace_id = ?').get(seeded.workspaceId) as { n: number }
        expect(n).toBe(6)
      } finally {
        ;(storage as { transaction: typeof transaction }).transaction = transaction
      }
    } finally {
      await s.stop()
    }
  })
})
