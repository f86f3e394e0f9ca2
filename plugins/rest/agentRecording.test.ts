/**
 * A preset that records its agents' conversations (spec/records.md#recordings): a real WebSocket
 * terminal talks in a room, the echo agent of such a preset is dispatched through REST — the room's
 * recording starts, named `agent:<agentId>` and found with `?agentId=` — and stopping the agent
 * finishes it, every file valid for opusinfo. A REST start while only agents record keeps it past
 * them; a bad `record` is refused 400 with its reason.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { echoAgent } from '../../agents/echo/index.js'
import { opusinfo } from '../../core/recordings/test/opusTools.js'
import type { RecordingView } from '../../core/recordings/view.js'
import type { RecordingRecord } from '../../core/storage/recordings.js'
import { ToneTalker } from '../../core/test/audio.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
let acme: ReturnType<RestEngine['workspace']>
beforeAll(async () => {
  t = await startRestEngine({ extensions: [websocketTransport, echoAgent], recordings: { minFreeMb: 0, flushMs: 100 } })
  acme = t.workspace('acme')
  acme.addClient('caller', 'desk')
  acme.addClient('walker', 'hall')
}, 60_000)
afterAll(() => t?.stop())

const terminal = async (clientId: string) => {
  const token = (await t.engine.host.security.tokens.issue(acme.workspaceId, clientId, null)).token
  const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
  await term.event('session')
  return term
}

/** The next recording of this room to end, and why. */
const nextEnd = (room: string) =>
  new Promise<RecordingRecord & { reason: string }>((resolve) => {
    const off = t.engine.host.operations.recordings.onEnded((r, reason) => {
      if (r.room !== room) return
      off()
      resolve({ ...r, reason })
    })
  })

describe('a preset that records its agents’ conversations', () => {
  it('records the room while its agent is there and finishes the recording when the agent stops', async () => {
    const created = await acme.api.post('/agent-presets', { presetId: 'taped', provider: 'echo', record: { tracks: 'both' } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ presetId: 'taped', record: { tracks: 'both' } })
    expect((await acme.api.get('/agent-presets/taped')).body.record).toEqual({ tracks: 'both' })

    const caller = await terminal('caller')
    const dispatched = await acme.api.post('/agents', { room: 'desk', presetId: 'taped' })
    expect(dispatched.status).toBe(201)
    const agentId = dispatched.body.agentId as string
    const told = await caller.event('room.recording')
    expect(told).toMatchObject({ room: 'desk', recording: true, tracks: 'both' })

    const list = await acme.api.get(`/recordings?agentId=${agentId}`)
    expect(list.status).toBe(200)
    expect(list.body.recordings.map((r: RecordingView) => [r.recordingId, r.startedBy, r.status])).toEqual([
      [told.recordingId, `agent:${agentId}`, 'recording'],
    ])
    expect((await acme.api.get('/recordings?agentId=ag_0000000000000000')).body.recordings).toEqual([])

    // The caller talks for a second; the echo agent answers into the room.
    const talker = new ToneTalker(440)
    await new Promise<void>((resolve) => {
      let i = 0
      const timer = setInterval(() => {
        caller.sendAudio(talker.nextUplink())
        if (++i === 50) {
          clearInterval(timer)
          resolve()
        }
      }, 20)
    })

    const ended = nextEnd('desk')
    expect((await acme.api.delete(`/agents/${agentId}`)).status).toBe(200)
    const done = await ended
    expect(done).toMatchObject({ recordingId: told.recordingId, status: 'finished', startedBy: `agent:${agentId}`, reason: 'agent_left' })
    expect(await caller.event('room.recording', (e) => !e.recording)).toMatchObject({ recordingId: told.recordingId })
    const view = (await acme.api.get(`/recordings/${told.recordingId}`)).body as RecordingView
    expect(view.status).toBe('finished')
    expect(view.participants).toEqual(expect.arrayContaining([{ id: 'caller', kind: 'terminal' }, { id: 'agent@taped', kind: 'agent' }]))
    expect(view.files.map((f) => f.track)).toEqual(['mixed', 'p1', 'p2'])
    for (const track of done.trackList) {
      const info = await opusinfo(join(done.dir, track.file))
      expect(info.problems, info.text).toEqual([])
      expect(Math.abs(info.seconds * 1000 - done.durationMs!)).toBeLessThanOrEqual(60)
    }
    expect(t.engine.host.operations.recordings.current(acme.workspaceId, 'desk')).toBeNull()
    caller.close()
    await caller.closed
  })

  it('a REST start keeps a recording only agents wanted: it outlives the agent', async () => {
    await acme.api.post('/agent-presets', { presetId: 'mixer', provider: 'echo', record: { tracks: 'mixed' } })
    const walker = await terminal('walker')
    const agentId = (await acme.api.post('/agents', { room: 'hall', presetId: 'mixer' })).body.agentId as string
    const told = await walker.event('room.recording')
    const kept = await acme.api.post('/rooms/hall/recordings', { tracks: 'per-participant' })
    expect(kept.status).toBe(200)
    expect(kept.body).toMatchObject({ recordingId: told.recordingId, tracks: 'mixed', startedBy: `agent:${agentId}` })
    // A second REST start is the usual conflict.
    expect((await acme.api.post('/rooms/hall/recordings', { tracks: 'mixed' })).status).toBe(409)

    expect((await acme.api.delete(`/agents/${agentId}`)).status).toBe(200)
    expect(t.engine.host.operations.recordings.current(acme.workspaceId, 'hall')).toMatchObject({ recordingId: told.recordingId })
    const stopped = await acme.api.delete('/rooms/hall/recordings')
    expect(stopped.body).toMatchObject({ recordingId: told.recordingId, status: 'finished' })
    walker.close()
    await walker.closed
  })

  it('an agent dispatched into an empty room records it from its start; a terminal joining is told', async () => {
    await acme.api.post('/agent-presets', { presetId: 'alone', provider: 'echo', record: { tracks: 'per-participant' } })
    const agentId = (await acme.api.post('/agents', { room: 'attic', presetId: 'alone' })).body.agentId as string
    const running = t.engine.host.operations.recordings.current(acme.workspaceId, 'attic')
    expect(running).toMatchObject({ startedBy: `agent:${agentId}`, tracks: 'per-participant', status: 'recording' })
    acme.addClient('visitor', 'attic')
    const visitor = await terminal('visitor')
    expect(await visitor.event('room.recording')).toMatchObject({ recording: true, recordingId: running!.recordingId })
    const ended = nextEnd('attic')
    await acme.api.delete(`/agents/${agentId}`)
    expect(await ended).toMatchObject({ recordingId: running!.recordingId, status: 'finished', reason: 'agent_left' })
    visitor.close()
    await visitor.closed
  })

  it("the room's setting keeps an agent's recording when the room's first terminal comes after the agent", async () => {
    expect((await acme.api.put('/rooms/loft/recording-setting', { tracks: 'mixed' })).status).toBe(200)
    expect((await acme.api.post('/agent-presets', { presetId: 'loner', provider: 'echo', record: { tracks: 'mixed' } })).status).toBe(201)
    const agentId = (await acme.api.post('/agents', { room: 'loft', presetId: 'loner' })).body.agentId as string
    const running = t.engine.host.operations.recordings.current(acme.workspaceId, 'loft')
    expect(running).toMatchObject({ startedBy: `agent:${agentId}` })
    acme.addClient('lodger', 'loft')
    const lodger = await terminal('lodger')
    await lodger.event('room.recording')
    const ended = nextEnd('loft')
    await acme.api.delete(`/agents/${agentId}`)
    // The agent left; the session the setting records goes on until its terminal leaves.
    lodger.close()
    await lodger.closed
    expect(await ended).toMatchObject({ recordingId: running!.recordingId, status: 'finished', reason: 'room_closed' })
  })

  it('refuses a bad record value with 400 and its reason; PATCH sets and clears it', async () => {
    const refusals: Array<[unknown, RegExp]> = [
      [{ tracks: 'stereo' }, /record\.tracks must be one of mixed, per-participant, both/],
      [{}, /field record\.tracks is required/],
      [{ tracks: 'mixed', extra: 1 }, /unknown field record\.extra/],
      ['both', /field record must be object or null/],
    ]
    for (const [record, reason] of refusals) {
      const res = await acme.api.post('/agent-presets', { presetId: 'bad', provider: 'echo', record })
      expect(res.status, JSON.stringify(record)).toBe(400)
      expect(res.body.error.message, JSON.stringify(res.body)).toMatch(reason)
      const patched = await acme.api.patch('/agent-presets/taped', { record })
      expect([patched.status, patched.body.error.message]).toEqual([400, res.body.error.message])
    }
    expect((await acme.api.get('/agent-presets/bad')).status).toBe(404)
    expect((await acme.api.patch('/agent-presets/taped', { record: { tracks: 'mixed' } })).body.record).toEqual({ tracks: 'mixed' })
    expect((await acme.api.patch('/agent-presets/taped', { record: null })).body.record).toBeNull()
    expect((await acme.api.patch('/agent-presets/taped', { name: 'Taped' })).body).toMatchObject({ name: 'Taped', record: null })
  })
})
