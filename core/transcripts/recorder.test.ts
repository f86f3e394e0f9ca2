import { describe, expect, it } from 'vitest'
import type { ServerEvent } from '../events.js'
import type { TranscriptTurn } from '../storage/transcripts.js'
import { ConversationRecorder } from './recorder.js'

/** A recorder on a hand-moved clock, with terminals a and b in its room. */
const setup = () => {
  let now = 1_000_000
  const turns: TranscriptTurn[] = []
  const recorder = new ConversationRecorder({
    identity: 'agent@default',
    now: () => now,
    isTerminal: (id) => id === 'a' || id === 'b',
    pendingAudioMs: () => 0,
    turn: (t) => turns.push(t),
  })
  const at = (ms: number) => (now = 1_000_000 + ms)
  const room = (type: 'speaking.started' | 'speaking.stopped', participantId: string) =>
    recorder.roomEvent({ type, room: 'lobby', participantId, sourceId: 1 } as ServerEvent)
  return { recorder, turns, at, room }
}

describe('conversation recorder: turns from what a provider emits and its room says', () => {
  it('a user turn takes its times and its terminal from the room; the reply starts when the agent speaks', () => {
    const { recorder, turns, at, room } = setup()
    at(0)
    room('speaking.started', 'a')
    at(1200)
    room('speaking.stopped', 'a')
    at(1900)
    recorder.agentEvent({ kind: 'state', state: 'thinking' })
    recorder.agentEvent({ kind: 'transcript', role: 'user', text: 'lights on', final: true })
    at(2500)
    recorder.agentEvent({ kind: 'state', state: 'speaking' })
    at(3000)
    recorder.agentEvent({ kind: 'transcript', role: 'agent', text: 'partial', final: false })
    at(4100)
    recorder.agentEvent({ kind: 'transcript', role: 'agent', text: 'Done.', final: true })
    expect(turns).toEqual([
      { seq: 1, kind: 'speech', role: 'user', speaker: 'a', clientId: 'a', text: 'lights on', startedAt: 1_000_000, endedAt: 1_001_200, interrupted: false, interruptedBy: null, tool: null },
      { seq: 2, kind: 'speech', role: 'agent', speaker: 'agent@default', clientId: null, text: 'Done.', startedAt: 1_002_500, endedAt: 1_004_100, interrupted: false, interruptedBy: null, tool: null },
    ])
  })

  it('two terminals talking: the turn is the room’s, unless the provider names the terminal', () => {
    const { recorder, turns, room } = setup()
    room('speaking.started', 'a')
    room('speaking.started', 'b')
    recorder.agentEvent({ kind: 'transcript', role: 'user', text: 'both', final: true })
    room('speaking.started', 'a')
    room('speaking.started', 'b')
    recorder.agentEvent({ kind: 'transcript', role: 'user', text: 'mine', final: true, clientId: 'b' })
    expect(turns.map((t) => [t.speaker, t.clientId])).toEqual([['room', null], ['b', 'b']])
  })

  it('a barge-in: the cut reply holds what was heard and who talked over it; a bare interrupted is a reply nobody heard', () => {
    const { recorder, turns, at, room } = setup()
    at(0)
    recorder.agentEvent({ kind: 'state', state: 'speaking' })
    at(800)
    room('speaking.started', 'b')
    recorder.agentEvent({ kind: 'transcript', role: 'agent', text: 'Once upon', final: true, truncated: true })
    recorder.agentEvent({ kind: 'interrupted' })
    at(2000)
    recorder.agentEvent({ kind: 'state', state: 'speaking' })
    at(2100)
    room('speaking.started', 'a')
    recorder.agentEvent({ kind: 'interrupted' })
    // No reply being spoken: nothing to record.
    recorder.agentEvent({ kind: 'interrupted' })
    expect(turns.map((t) => [t.role, t.text, t.interrupted, t.interruptedBy, t.endedAt - t.startedAt])).toEqual([
      ['agent', 'Once upon', true, 'b', 800],
      ['agent', null, true, 'a', 100],
    ])
  })

  it('a tool call (either shape providers emit) is a turn of its own with its arguments, result or error and latency', () => {
    const { recorder, turns, at } = setup()
    at(500)
    recorder.agentEvent({ kind: 'tool_call', name: 'dev-1/self.light.set_on', source: 'device', arguments: { on: true }, result: 'ok', latencyMs: 120 })
    recorder.agentEvent({ kind: 'tool_call', name: 'lookup', source: 'backend', arguments: {}, error: 'timeout', latencyMs: 5000 })
    recorder.agentEvent({ kind: 'tool_call', name: 'x', arguments: { a: 1 }, isError: true, result: 'no such light', ms: 7 })
    recorder.agentEvent({ kind: 'tool_call', arguments: {} })
    expect(turns).toEqual([
      expect.objectContaining({ seq: 1, kind: 'tool_call', role: 'agent', startedAt: 1_000_380, endedAt: 1_000_500, text: null,
        tool: { name: 'dev-1/self.light.set_on', source: 'device', arguments: { on: true }, result: 'ok', error: null, latencyMs: 120 } }),
      expect.objectContaining({ seq: 2, tool: { name: 'lookup', source: 'backend', arguments: {}, result: null, error: 'timeout', latencyMs: 5000 } }),
      expect.objectContaining({ seq: 3, tool: { name: 'x', source: null, arguments: { a: 1 }, result: null, error: 'no such light', latencyMs: 7 } }),
    ])
  })

  it('an echo is a user turn and the echo’s own, without text; cut by an interrupted, or finished by the agent’s end', () => {
    const { recorder, turns, at, room } = setup()
    at(1000)
    recorder.agentEvent({ kind: 'echo', durationMs: 600, voicedMs: 500 })
    at(1300)
    room('speaking.started', 'a')
    recorder.agentEvent({ kind: 'interrupted' })
    at(5000)
    recorder.agentEvent({ kind: 'echo', durationMs: 400, voicedMs: 400 })
    at(5100)
    recorder.end()
    recorder.agentEvent({ kind: 'transcript', role: 'user', text: 'too late', final: true })
    expect(turns.map((t) => [t.seq, t.role, t.text, t.startedAt - 1_000_000, t.endedAt - 1_000_000, t.interrupted, t.interruptedBy])).toEqual([
      [1, 'user', null, 400, 1000, false, null],
      [2, 'agent', null, 1000, 1300, true, 'a'],
      [3, 'user', null, 4600, 5000, false, null],
      [4, 'agent', null, 5000, 5100, false, null],
    ])
  })
})
