/**
 * What `ctx.participants()` answers is the room's roster (its room-agents actor's), in the engine's
 * thread and in a provider worker alike: inside `onEvent` it already agrees with the participant
 * event being told, through joins, leaves and a terminal moved to another room and back.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { Extension } from '../core/index.js'
import { openTerminal, seedWorkspace, startTestEngine } from '../core/test/helpers.js'

const module = fileURLToPath(new URL('../test/fixtures/agent-providers/watcher.mjs', import.meta.url))
const watcher = ((await import(module)) as { default: Extension }).default

let stops: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
})

describe.each([
  ['in the engine thread', { extensions: [{ ...watcher, isolate: false }] }],
  ['in a provider worker', { agents: { providerModules: module, workers: 1 } }],
])('the participants an agent reads %s', (_where, config) => {
  it('agree with each participant event: joins, leaves, a move out and back', async () => {
    const t = await startTestEngine({ ...config, agents: { ...('agents' in config ? config.agents : {}), defaultProvider: 'watcher' } })
    stops.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    for (const id of ['a', 'b']) seed.addClient(id, 'lobby')
    const a = await openTerminal(t.engine, seed.workspaceId, 'a')
    await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', {})
    const said: string[] = []
    const next = async (what: string) => {
      const e = await a.link.event('agent.event', (e) => e.event.kind === 'roster' && e.event.said === what)
      said.push(`${what}: ${(e.event.participants as string[]).join(',')}`)
    }
    const b = await openTerminal(t.engine, seed.workspaceId, 'b')
    await next('participant.joined b')
    seed.moveClient('b', 'hall')
    await next('participant.left b')
    seed.moveClient('b', 'lobby')
    await next('participant.joined b')
    b.session.end()
    await next('participant.left b')
    expect(said).toEqual([
      'participant.joined b: a,b',
      'participant.left b: a',
      'participant.joined b: a,b',
      'participant.left b: a',
    ])
  })
})
