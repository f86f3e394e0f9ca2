/**
 * Transcripts on a libSQL server (sqld on loopback), two nodes: the node that runs the agent writes
 * its turns to the primary as every write goes; the other node reads them after its replica
 * refreshes, and erases them there for both.
 */
import { randomBytes } from 'node:crypto'
import * as Schema from 'effect/Schema'
import { afterEach, describe, expect, it } from 'vitest'
import { defineAgentProvider } from '../../core/define.js'
import { runAll, seedWorkspace } from '../../core/test/helpers.js'
import { startSqld } from '../../servers/sqld.js'
import { Api } from './test/api.js'
import { startRestEngine } from './test/restEngine.js'
import { API_PREFIX } from './index.js'

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  await runAll(cleanup.splice(0).reverse())
})

/** An embedder's provider: a question, a tool call, an answer, as soon as it starts. */
const scripted = defineAgentProvider('scripted', {
  isolate: false,
  create: () => ({
    configSchema: Schema.Struct({}),
    start: (ctx) => {
      ctx.emit({ kind: 'transcript', role: 'user', text: 'lights on please', final: true })
      ctx.emit({ kind: 'tool_call', name: 'dev-1/self.light.set_on', source: 'device', arguments: { on: true }, result: 'ok', latencyMs: 25 })
      ctx.emit({ kind: 'transcript', role: 'agent', text: 'Done.', final: true })
      return {}
    },
  }),
})

describe('transcripts on a libSQL server', () => {
  it('written on the primary by the node that runs the agent; read and erased through another node', async () => {
    const sqld = await startSqld()
    cleanup.push(() => sqld.stop())
    const masterKey = randomBytes(32).toString('base64')
    const node = async () => {
      const t = await startRestEngine({ extensions: [scripted], agents: { defaultProvider: 'scripted' }, storage: { url: sqld.url }, security: { masterKey } })
      cleanup.push(() => t.stop())
      return t
    }
    const a = await node()
    const b = await node()
    const ws = seedWorkspace(a.engine)
    const agent = await a.engine.host.agents.dispatch(ws.workspaceId, 'lobby', {})
    await a.engine.host.agents.stop(ws.workspaceId, agent.agentId)
    await a.engine.host.agents.transcripts!.flush()

    await b.engine.host.storage.refresh()
    const viaB = new Api(b.url(API_PREFIX), ws.apiKey)
    const read = await viaB.get(`/agents/${agent.agentId}/transcript`)
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ room: 'lobby', provider: 'scripted', turns: 3, endedAt: expect.any(String) })
    expect((read.body.items as Array<{ kind: string; text: string | null }>).map((x) => [x.kind, x.text])).toEqual([
      ['speech', 'lights on please'], ['tool_call', null], ['speech', 'Done.'],
    ])
    expect((await viaB.get('/transcripts?room=lobby')).body.items).toEqual([expect.objectContaining({ agentId: agent.agentId })])

    expect((await viaB.delete(`/agents/${agent.agentId}/transcript`)).status).toBe(200)
    await a.engine.host.storage.refresh()
    expect(a.engine.host.storage.transcripts.get(ws.workspaceId, agent.agentId)).toBeNull()
    expect(a.engine.host.storage.transcripts.turns(ws.workspaceId, agent.agentId, 0, 10)).toEqual([])
  }, 60_000)
})
