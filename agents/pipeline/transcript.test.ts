/**
 * The pipeline's conversation, recorded by the runtime (against the local fakes of the OpenAI HTTP
 * APIs): a terminal asks, talks over the reply, asks again; the stored transcript has the text in
 * order with the barge-in and what the room heard, agent.turn webhooks arrive once each in order;
 * the REST reads page, find and refuse bad input; erasure removes the rows and is audited.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { EngineConfig } from '../../core/index.js'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { concat, silence, UplinkEncoder } from '../../core/test/speech.js'
import { checkOrderedAndComplete, WebhookReceiver } from '../../plugins/webhooks/test/receiver.js'
import { startWebhookEngine } from '../../plugins/webhooks/test/webhookEngine.js'
import { speechLike } from '../test/audioChecks.js'
import { pipelineAgent } from './index.js'
import { FakeOpenAiHttp } from './test/fakeOpenAiHttp.js'

const KEYS = { stt: 'sk-stt-key-000000000001', llm: 'sk-llm-key-000000000002', tts: 'sk-tts-key-000000000003' }

let running: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

const encoder = new UplinkEncoder()
const say = (session: { pushAudio(u: Uint8Array): void }, pcm: Int16Array) => {
  for (const frame of encoder.frames(pcm)) session.pushAudio(frame)
}

describe('transcript of a pipeline agent (runtime-recorded, with text)', () => {
  it('ask, barge in, ask again: turns in order with the cut reply; agent.turn once each in order; reads, filters, bad input, erasure', async () => {
    const fake = await FakeOpenAiHttp.start(KEYS)
    running.push(() => fake.stop())
    fake.script.transcripts = ['tell me a story', 'stop please']
    fake.script.replies = [
      'Once upon a time there was a very long story to tell. It went on and on for a long while. And it never seemed to end at all.',
      'Sure.',
    ]
    const receiver = await WebhookReceiver.start()
    running.push(() => receiver.close())
    const config: EngineConfig<readonly [typeof pipelineAgent]> = {
      extensions: [pipelineAgent],
      agents: {
        defaultProvider: 'pipeline',
        pipeline: {
          stt: { baseUrl: fake.baseUrl, apiKey: KEYS.stt, apiKeyEnv: 'HARK_TEST_NONE' },
          llm: { baseUrl: fake.baseUrl, apiKey: KEYS.llm, apiKeyEnv: 'HARK_TEST_NONE' },
          tts: { baseUrl: fake.baseUrl, apiKey: KEYS.tts, apiKeyEnv: 'HARK_TEST_NONE' },
        },
      },
    }
    const t = await startWebhookEngine({ config: config as EngineConfig })
    running.push(() => t.stop())
    const ws = await t.workspaceWithEndpoint(receiver, 'acme', ['agent.started', 'agent.turn', 'agent.stopped'])
    ws.addClient('a', 'lobby')
    const { link, session } = await t.connect(ws.workspaceId, 'a')
    const dispatched = await ws.api.post('/agents', { room: 'lobby', overrides: { ttsFormat: 'wav' } })
    expect(dispatched.status).toBe(201)
    const agentId = dispatched.body.agentId as string
    const joined = await link.event('participant.joined', (e) => e.participant.kind === 'agent')

    say(session, concat(speechLike(1200), silence(900)))
    const fromAgent = () => link.frames.items.filter((f) => parseDownlink(f)!.sourceId === joined.participant.sourceId).length
    await link.frames.next(() => fromAgent() >= 50, 8000, 'a second of the reply')
    await link.event('speaking.stopped', (e) => e.participantId === 'a')
    say(session, concat(speechLike(1200, 3), silence(900)))
    await link.event('agent.event', (e) => e.event.kind === 'transcript' && e.event.text === 'Sure.')
    expect((await ws.api.delete(`/agents/${agentId}`)).status).toBe(200)
    await t.engine.host.agents.transcripts!.flush()

    // Read in pages of two: the same turns, in order.
    const first = await ws.api.get(`/agents/${agentId}/transcript?limit=2`)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ agentId, room: 'lobby', provider: 'pipeline', turns: 4, textHidden: false })
    expect(first.body.nextCursor).toEqual(expect.any(String))
    const second = await ws.api.get(`/agents/${agentId}/transcript?limit=2&cursor=${first.body.nextCursor}`)
    expect(second.body.nextCursor).toBeNull()
    const turns = [...first.body.items, ...second.body.items] as Array<Record<string, unknown>>
    expect(turns.map((x) => [x.seq, x.role, x.speaker, x.interrupted, x.interruptedBy])).toEqual([
      [1, 'user', 'a', false, null],
      [2, 'agent', 'agent@default', true, 'a'],
      [3, 'user', 'a', false, null],
      [4, 'agent', 'agent@default', false, null],
    ])
    expect(turns.map((x) => x.text)).toEqual(['tell me a story', expect.any(String), 'stop please', 'Sure.'])
    const heard = turns[1]!.text as string
    expect('Once upon a time there was a very long story to tell.'.startsWith(heard)).toBe(true)
    expect(heard.split(' ').length).toBeLessThan(12)
    expect(turns[0]).toMatchObject({ kind: 'speech', clientId: 'a', tool: null })

    // Webhooks: agent.started, four turns with the same data, agent.stopped — once each, in order.
    await receiver.acceptedCount(6)
    const mine = checkOrderedAndComplete(receiver.accepted.items).get(`agent:${agentId}`)!
    expect(mine.map((e) => e.type)).toEqual(['agent.started', 'agent.turn', 'agent.turn', 'agent.turn', 'agent.turn', 'agent.stopped'])
    expect(mine.slice(1, 5).map((e) => e.data)).toEqual(turns.map((x) => ({ agentId, room: 'lobby', identity: 'agent@default', ...x })))

    // Finding it: by room, by the terminal that spoke, by time.
    const ids = async (query: string) => {
      const r = await ws.api.get(`/transcripts${query}`)
      expect(r.status).toBe(200)
      return (r.body.items as Array<{ agentId: string }>).map((x) => x.agentId)
    }
    const startedAt = Date.parse(first.body.startedAt as string)
    expect(await ids('')).toEqual([agentId])
    expect(await ids('?room=lobby&clientId=a')).toEqual([agentId])
    expect(await ids('?room=hall')).toEqual([])
    expect(await ids('?clientId=b')).toEqual([])
    expect(await ids(`?from=${new Date(startedAt).toISOString()}&to=${new Date(startedAt + 1).toISOString()}`)).toEqual([agentId])
    expect(await ids(`?from=${new Date(startedAt + 1).toISOString()}`)).toEqual([])
    // Another workspace sees nothing of it.
    const other = t.workspace('other')
    expect((await other.api.get(`/agents/${agentId}/transcript`)).status).toBe(404)
    expect((await other.api.get('/transcripts')).body.items).toEqual([])

    // Bad input: a clear 400 or 404, and the engine answers the next call.
    const bad = async (path: string, status: number, code: string, mentions: string) => {
      const r = await ws.api.get(path)
      expect(r.status).toBe(status)
      expect(r.body.error.code).toBe(code)
      expect(r.body.error.message).toContain(mentions)
    }
    await bad(`/agents/${agentId}/transcript?cursor=not-a-cursor`, 400, 'validation_failed', 'cursor')
    await bad(`/agents/${agentId}/transcript?cursor=${Buffer.from('0').toString('base64url')}`, 400, 'validation_failed', 'cursor')
    await bad(`/agents/${agentId}/transcript?cursor=a%20b`, 400, 'validation_failed', 'cursor')
    await bad(`/agents/${agentId}/transcript?limit=0`, 400, 'validation_failed', 'limit')
    await bad('/agents/ag_doesNotExist0000/transcript', 404, 'not_found', 'ag_doesNotExist0000')
    await bad('/transcripts?from=yesterday', 400, 'validation_failed', 'from')
    await bad('/transcripts?to=2026-13-45T99:00:00Z', 400, 'validation_failed', 'to')
    await bad('/transcripts?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 400, 'validation_failed', 'to')
    await bad(`/transcripts?cursor=${Buffer.from('x.y').toString('base64url')}`, 400, 'validation_failed', 'cursor')
    await bad('/transcripts?clientId=no%20spaces', 400, 'validation_failed', 'clientId')
    await bad('/transcripts?since=2026-03-01T00:00:00Z', 400, 'validation_failed', 'since')

    // Erasure: the rows are gone, a second delete is a 404, the audit log says who.
    const erased = await ws.api.delete(`/agents/${agentId}/transcript`)
    expect(erased.status).toBe(200)
    expect(erased.body).toEqual({ agentId, deleted: true })
    const { storage } = t.engine.host
    expect(storage.db.prepare('SELECT count(*) AS n FROM transcript_turns WHERE agent_id = ?').get(agentId)).toMatchObject({ n: 0 })
    expect(storage.db.prepare('SELECT count(*) AS n FROM transcripts WHERE agent_id = ?').get(agentId)).toMatchObject({ n: 0 })
    expect((await ws.api.get(`/agents/${agentId}/transcript`)).status).toBe(404)
    expect((await ws.api.delete(`/agents/${agentId}/transcript`)).status).toBe(404)
    const audit = storage.auditEvents.ofWorkspace(ws.workspaceId, { limit: 10 }).filter((e) => e.action === 'transcript.deleted')
    expect(audit).toEqual([expect.objectContaining({ target: agentId, actor: expect.stringMatching(/^api key /) })])
  })
})
