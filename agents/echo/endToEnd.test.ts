import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { concat, DownlinkDecoder, rms, silence, tone, UplinkEncoder } from '../../core/test/speech.js'
import { startRestEngine, type RestEngine } from '../../plugins/rest/test/restEngine.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { echoAgent } from './index.js'

let t: RestEngine
let acme: ReturnType<RestEngine['workspace']>

beforeEach(async () => {
  t = await startRestEngine({ extensions: [websocketTransport, echoAgent] })
  acme = t.workspace('acme')
})
afterEach(() => t.stop())

/** A terminal over a real WebSocket, created and authorised through the REST API. */
const terminal = async (clientId: string, room: string) => {
  expect((await acme.api.post('/clients', { clientId, room })).status).toBe(201)
  const { token } = (await acme.api.post(`/clients/${clientId}/token`, {})).body
  const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
  await term.event('session')
  return term
}

/** Talk like a device: one Opus frame per 20 ms of audio, in real time. */
const talk = async (term: TestTerminal, pcm: Int16Array) => {
  const encoder = new UplinkEncoder()
  const frames = encoder.frames(pcm)
  const start = performance.now()
  for (const [i, frame] of frames.entries()) {
    const wait = start + i * 20 - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    term.sendAudio(frame)
  }
}

describe('agents end to end: REST, a real WebSocket terminal, real Opus', () => {
  it('echo dispatched into a room plays each utterance back as decodable Opus; DELETE stops it', async () => {
    const dev = await terminal('dev-1', 'lobby')
    const created = await acme.api.post('/agents', { room: 'lobby', overrides: { silenceMs: 300 } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ room: 'lobby', identity: 'agent@default', state: 'running' })
    const joined = await dev.event('participant.joined', (e) => e.participant.kind === 'agent')
    expect(joined.participant.id).toBe(created.body.identity)
    await dev.event('agent.started', (e) => e.agentId === created.body.agentId)

    // Two utterances with pauses between them.
    await talk(dev, concat(tone(400, 300), silence(500), tone(600, 500), silence(500)))
    const echoEvents = () =>
      dev.events.items.flatMap((e) => (e.type === 'agent.event' && e.event.kind === 'echo' ? [e.event as { durationMs: number }] : []))
    await dev.events.next(() => echoEvents().length >= 2, 5000, 'two echoes')
    const echoedMs = echoEvents().reduce((ms, e) => ms + e.durationMs, 0)
    // Each echo holds its utterance (the speech, plus a little pre-roll): together at least the 1 s spoken.
    expect(echoedMs).toBeGreaterThanOrEqual(1000)
    const fromAgent = () => dev.frames.items.filter((f) => parseDownlink(f)!.sourceId === joined.participant.sourceId)
    await dev.frames.next(() => fromAgent().length >= echoedMs / 20, 5000, 'both echoes, every frame')
    const decoder = new DownlinkDecoder()
    const pcm = concat(...fromAgent().map((f) => decoder.decode(f).pcm))
    expect(pcm.length).toBeGreaterThanOrEqual(16 * 1000)
    expect(rms(pcm)).toBeGreaterThan(0.05)

    const stopped = await acme.api.delete(`/agents/${created.body.agentId}`)
    expect(stopped.body).toMatchObject({ agentId: created.body.agentId, stopped: true })
    expect(await dev.event('participant.left', (e) => e.participant.kind === 'agent')).toMatchObject({
      participant: { id: 'agent@default' },
    })
    expect(await dev.event('agent.stopped')).toMatchObject({ agentId: created.body.agentId, reason: 'stopped by request' })
    dev.close()
  })

  it('the room default agent comes with the first terminal and goes with the last', async () => {
    expect((await acme.api.put('/rooms/hall', { defaultAgent: { stopDelaySeconds: 0 } })).status).toBe(200)
    const dev = await terminal('dev-2', 'hall')
    const joined = await dev.event('participant.joined', (e) => e.participant.kind === 'agent')
    const room = (await acme.api.get('/rooms/hall')).body
    expect(room.agents).toEqual([expect.objectContaining({ identity: joined.participant.id, origin: 'default', state: 'running' })])
    const [agent] = t.engine.host.agents.live(acme.workspaceId, 'hall')
    dev.close()
    await dev.closed
    await agent!.ended
    expect((await acme.api.get(`/agents/${agent!.agentId}`)).body).toMatchObject({ state: 'stopped', reason: 'room empty' })
    expect((await acme.api.get('/rooms/hall')).body).toMatchObject({ participants: [], agents: [] })
  })
})
