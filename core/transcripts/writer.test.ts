import { join } from 'node:path'
import * as Schema from 'effect/Schema'
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../clock.js'
import { defineAgentProvider } from '../define.js'
import { openStorage } from '../storage/storage.js'
import { seedWorkspace, startTestEngine } from '../test/helpers.js'

const DAY_MS = 86_400_000

/**
 * A provider of an embedder's, not a built-in: it says a user turn, calls a tool and answers as
 * soon as it starts (the tool call as the "Agents that act" providers emit it).
 */
const scripted = defineAgentProvider('scripted', {
  isolate: false,
  create: () => ({
    configSchema: Schema.Struct({}),
    start: (ctx) => {
      ctx.emit({ kind: 'transcript', role: 'user', text: 'is the door locked?', final: true, clientId: 'dev-1' })
      ctx.emit({ kind: 'tool_call', name: 'dev-1/self.lock.get', source: 'device', arguments: {}, result: { locked: true }, latencyMs: 40 })
      ctx.emit({ kind: 'transcript', role: 'agent', text: 'It is locked.', final: true })
      return {}
    },
  }),
})

let stops: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop()
})

describe('transcript writer: durable as it goes, swept by retention on the engine clock', () => {
  it('any provider’s turns (a tool call included) are committed while the agent runs; retention deletes them days after it ended', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12))
    const t = await startTestEngine({ extensions: [scripted], agents: { defaultProvider: 'scripted', transcriptRetentionDays: 2 } }, { clock })
    stops.push(() => t.stop())
    const ws = seedWorkspace(t.engine)
    const { agents, storage } = t.engine.host
    const old = await agents.dispatch(ws.workspaceId, 'lobby', {})
    await agents.transcripts!.flush()

    // Committed while the agent still runs: another connection to the file (as after a crash) reads them.
    const other = openStorage(join(t.dir, 'hark.db'))
    try {
      expect(other.transcripts.get(ws.workspaceId, old.agentId)).toMatchObject({ room: 'lobby', provider: 'scripted', endedAt: null, turns: 3 })
      expect(other.transcripts.turns(ws.workspaceId, old.agentId, 0, 10)).toEqual([
        expect.objectContaining({ seq: 1, kind: 'speech', role: 'user', speaker: 'dev-1', clientId: 'dev-1', text: 'is the door locked?' }),
        expect.objectContaining({
          seq: 2, kind: 'tool_call', role: 'agent', speaker: 'agent@default', text: null,
          tool: { name: 'dev-1/self.lock.get', source: 'device', arguments: {}, result: { locked: true }, error: null, latencyMs: 40 },
        }),
        expect.objectContaining({ seq: 3, kind: 'speech', role: 'agent', text: 'It is locked.', interrupted: false }),
      ])
    } finally {
      other.close()
    }
    await agents.stop(ws.workspaceId, old.agentId)
    await agents.transcripts!.flush()
    expect(storage.transcripts.get(ws.workspaceId, old.agentId)?.endedAt).toBe(clock.now())

    // A day and a half later another agent runs and stops; then the hourly sweep passes the first one's retention.
    // Wall time jumps (no day of the engine's periodic chores run in between); the sweep is due within the hour.
    clock.set(clock.now() + 1.5 * DAY_MS)
    const recent = await agents.dispatch(ws.workspaceId, 'hall', {})
    await agents.stop(ws.workspaceId, recent.agentId)
    await agents.transcripts!.flush()
    expect(storage.transcripts.get(ws.workspaceId, old.agentId)).not.toBeNull()
    clock.set(clock.now() + 0.5 * DAY_MS)
    clock.advance(3_600_000)
    expect(storage.transcripts.get(ws.workspaceId, old.agentId)).toBeNull()
    expect(storage.db.prepare('SELECT count(*) AS n FROM transcript_turns WHERE agent_id = ?').get(old.agentId)).toMatchObject({ n: 0 })
    expect(storage.transcripts.get(ws.workspaceId, recent.agentId)).toMatchObject({ turns: 3 })
  })
})
