/**
 * The live-control contract with providers of the test's own (in process): an update replaces
 * `ctx.config` with the config decoded by the provider's schema before `control.update` hears
 * which fields changed (what the schema refuses is a 400 and changes nothing), and a control
 * operation that throws fails that agent only, like a session callback.
 */
import * as Schema from 'effect/Schema'
import { afterEach, describe, expect, it } from 'vitest'
import type { AgentContext, AgentUpdateField } from '../core/agentProvider.js'
import type { AgentLifecycleEvent } from '../core/agentRuntime/dispatcher.js'
import { defineAgentProvider } from '../core/index.js'
import { Inbox } from '../core/test/helpers.js'
import { startRestEngine } from '../plugins/rest/test/restEngine.js'

interface StrictConfig {
  readonly instructions: string
  readonly tools?: { readonly device?: ReadonlyArray<string> }
}

const updates = new Inbox<{ readonly changed: ReadonlyArray<AgentUpdateField>; readonly config: StrictConfig }>()

const strict = defineAgentProvider('strict', {
  isolate: false,
  create: () => ({
    configSchema: Schema.Struct({
      instructions: Schema.String.check(Schema.isMaxLength(20)),
      tools: Schema.optionalKey(Schema.Struct({ device: Schema.optionalKey(Schema.Array(Schema.String)) })),
    }) as unknown as Schema.Codec<StrictConfig, unknown>,
    start: (ctx: AgentContext<StrictConfig>) => ({
      control: {
        say: (text: string) => {
          if (text === 'boom') throw new Error('the session broke on a say')
        },
        update: (changed: ReadonlyArray<AgentUpdateField>) => updates.push({ changed, config: ctx.config }),
      },
    }),
  }),
})

let running: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop()
})

describe('live control and the provider contract', () => {
  it('an update reaches ctx.config decoded, then control.update; a refused one changes nothing; a throwing operation fails only that agent', async () => {
    const t = await startRestEngine({ extensions: [strict], agents: { defaultProvider: 'strict' } } as Parameters<typeof startRestEngine>[0])
    running.push(() => t.stop())
    const ended = new Inbox<AgentLifecycleEvent>()
    t.engine.host.agents.onAgent((e) => ended.push(e))
    const acme = t.workspace('acme')
    const one = (await acme.api.post('/agents', { room: 'a', overrides: { instructions: 'short' } })).body.agentId as string
    const two = (await acme.api.post('/agents', { room: 'b', overrides: { instructions: 'short' } })).body.agentId as string

    expect((await acme.api.patch(`/agents/${one}`, { tools: { device: ['x/*'] } })).status).toBe(200)
    expect(await updates.next(() => true, 5000, 'an update')).toEqual({ changed: ['tools'], config: { instructions: 'short', tools: { device: ['x/*'] } } })
    // Past the provider's bound: 400 naming the field, and the session hears nothing.
    const long = await acme.api.patch(`/agents/${one}`, { instructions: 'far longer than twenty characters' })
    expect([long.status, long.body.error.code]).toEqual([400, 'validation_failed'])
    expect(long.body.error.message).toMatch(/instructions/)
    expect((await acme.api.patch(`/agents/${one}`, { instructions: 'terse' })).status).toBe(200)
    expect(updates.items.map((u) => u.config.instructions)).toEqual(['short', 'terse'])
    // Interrupt is not one of its operations.
    const interrupt = await acme.api.post(`/agents/${one}/interrupt`)
    expect([interrupt.status, interrupt.body.error.code]).toEqual([409, 'not_supported'])

    // A say that throws: accepted, then that agent fails with a public reason; the other runs on.
    expect((await acme.api.post(`/agents/${one}/say`, { text: 'boom' })).status).toBe(202)
    const failed = await ended.next((e) => e.type === 'failed' && e.agent.agentId === one, 5000, 'the agent failed')
    expect(failed.agent.reason).toBe('provider error (control.say)')
    expect((await acme.api.get(`/agents/${two}`)).body.state).toBe('running')
    expect((await acme.api.post(`/agents/${two}/say`, { text: 'fine' })).status).toBe(202)
  })
})
