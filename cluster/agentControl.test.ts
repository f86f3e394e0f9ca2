/**
 * Live control through a cluster (spec/agents.md, Live control): say, interrupt and PATCH sent to
 * a node that does not run the agent are carried out on the node that does, over NATS, and
 * answered with that node's result — its refusals included. Two nodes; a `local` agent (flite)
 * runs on node 2, the owner of its room; a WebSocket terminal on node 2 hears what node 1 made it
 * say, and pocketsphinx recognises it.
 */
import { connect } from '@nats-io/transport-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServerEvent } from '../core/events.js'
import { DownlinkDecoder } from '../core/test/speech.js'
import { TestTerminal } from '../transports/websocket/test/terminalClient.js'
import { kitchenAssistant } from '../agents/local/kitchen.js'
import { concat, replyRecognizer } from '../agents/local/test/speech.js'
import { decode, encode, S } from './nats/protocol.js'
import { startCluster, type TestCluster } from './test/cluster.js'
import { restCall } from './test/processes.js'

/** A bound for failure, not a pause: a spoken reply on a loaded 2-core machine. */
const TURN_MS = 20_000

let c: TestCluster
beforeAll(async () => {
  c = await startCluster(2)
}, 60_000)
afterAll(() => c?.stop())

const node = (i: number) => c.nodes[i - 1]!
const api = <T = { error: { code: string; message: string } }>(i: number, method: string, path: string, body?: unknown) =>
  restCall<T>(node(i).engine.ports.rest!, c.seed.apiKey, method, path, body)

describe('live control across nodes', () => {
  it('say through node 1 makes the agent on node 2 speak to a terminal on node 2; interrupt, PATCH and their refusals come back from node 2', async () => {
    // The terminal opens the room on node 2, so node 2 owns it and runs its agents.
    const term = await TestTerminal.connect(node(2).engine.ports.gateway!, { token: c.token('ws2') }, node(2).engine.host.tls.cert)
    await term.event('session')
    expect((await api(1, 'POST', '/agent-presets', { presetId: 'kitchen', provider: 'local', config: kitchenAssistant })).status).toBe(201)
    const dispatched = await api<{ agentId: string; state: string }>(1, 'POST', '/agents', { room: 'lobby', presetId: 'kitchen' })
    expect(dispatched.status).toBe(201)
    const { agentId } = dispatched.body
    expect(node(2).engine.host.agents.list(c.seed.workspaceId, { live: true }).map((a) => a.agentId)).toEqual([agentId])
    expect(node(1).engine.host.agents.list(c.seed.workspaceId, { live: true })).toEqual([])
    const joined = (await term.event('participant.joined', (e) => e.participant.kind === 'agent')) as Extract<ServerEvent, { type: 'participant.joined' }>
    const agentSource = joined.participant.sourceId
    const agentEvent = (kind: string, predicate: (e: Record<string, unknown>) => boolean = () => true) =>
      term.events
        .next((e) => e.type === 'agent.event' && e.agentId === agentId && e.event.kind === kind && predicate(e.event), TURN_MS, `agent.event ${kind}`)
        .then((e) => (e as Extract<ServerEvent, { type: 'agent.event' }>).event as Record<string, unknown>)

    const from = term.frames.items.length
    const said = await api<{ agentId: string; accepted: boolean }>(1, 'POST', `/agents/${agentId}/say`, { text: 'The kitchen light is on.' })
    expect(said).toEqual({ status: 202, body: { agentId, accepted: true } })
    expect(await agentEvent('transcript', (e) => e.role === 'agent')).toMatchObject({ text: 'The kitchen light is on.', final: true })
    const decoder = new DownlinkDecoder()
    const heard = concat(...term.frames.items.slice(from).map((f) => decoder.decode(f)).filter((f) => f.sourceId === agentSource).map((f) => f.pcm))
    const ears = replyRecognizer(['the kitchen light is on', 'the kitchen light is off', 'sorry i did not catch that'])
    expect(ears.hear(heard)).toContain('the kitchen light is on')
    ears.close()

    // Interrupt runs there too (an agent saying nothing is left as it is), answering its view.
    const interrupted = await api<{ agentId: string; state: string }>(1, 'POST', `/agents/${agentId}/interrupt`)
    expect(interrupted).toMatchObject({ status: 200, body: { agentId, state: 'running' } })

    // Refusals are node 2's, carried back with their code and message.
    const patch = await api(1, 'PATCH', `/agents/${agentId}`, { instructions: 'Be brief.' })
    expect([patch.status, patch.body.error.code]).toEqual([409, 'not_supported'])
    expect(patch.body.error.message).toBe('the local provider cannot change its instructions or tools while it runs (update is not supported)')
    const blank = await api(1, 'POST', `/agents/${agentId}/say`, { text: '   ' })
    expect([blank.status, blank.body.error.code]).toEqual([400, 'validation_failed'])
    expect(blank.body.error.message).toMatch(/text must not be blank/)
    const unknown = await api(1, 'POST', '/agents/ag_0000000000000000/say', { text: 'hello' })
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found'])

    // Once it stopped, control through either node is a conflict, not a forward to nowhere.
    expect((await api(1, 'DELETE', `/agents/${agentId}`)).status).toBe(200)
    const late = await api(1, 'POST', `/agents/${agentId}/interrupt`)
    expect([late.status, late.body.error.code]).toEqual([409, 'conflict'])
    term.close()
  }, 90_000)

  it('a node believed alive that does not answer: control of an agent found nowhere else is agent_elsewhere, naming that node', async () => {
    // A node n9 that beats but answers nothing (a node hung or cut off since its last heartbeat).
    const nc = await connect({ servers: c.nats.url })
    const heardOf = new Promise<void>((resolve) => {
      const sub = nc.subscribe(S.sync, {
        callback: (_err, m) => {
          const sync = decode(m.data) as { node: string; to?: string }
          if (sync.node === node(1).nodeId && sync.to === 'n9') {
            sub.unsubscribe()
            resolve()
          }
        },
      })
    })
    const beat = () => nc.publish(S.heartbeat, encode({ node: 'n9', incarnation: 'hung' }))
    beat()
    const beating = setInterval(beat, 500)
    try {
      await heardOf
      const res = await api(1, 'POST', '/agents/ag_0000000000000001/say', { text: 'hello' })
      expect([res.status, res.body.error.code]).toEqual([409, 'agent_elsewhere'])
      expect(res.body.error.message).toMatch(/node n9, where it may run, could not be reached/)
    } finally {
      clearInterval(beating)
      await nc.close()
    }
  }, 60_000)
})
