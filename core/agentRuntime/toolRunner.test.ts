import { describe, expect, it } from 'vitest'
import type { AgentTools, ToolInfo, ToolResult } from '../agentProvider.js'
import { createLogger } from '../log.js'
import { toolAllowed, type ToolConfig } from './toolConfig.js'
import { ToolRunner } from './toolRunner.js'

/** An in-memory AgentTools (the interface the runtime gives a session) with tools that answer as told. */
const toolsOf = (specs: Record<string, { schema?: Record<string, unknown>; answer: (args: Readonly<Record<string, unknown>>) => ToolResult | Promise<ToolResult> }>): AgentTools & { called: string[] } => {
  const called: string[] = []
  const infos: ToolInfo[] = Object.entries(specs).map(([name, s]) => ({
    name, source: 'device', tool: name.split('/')[1]!, clientId: name.split('/')[0]!, description: `the ${name}`, inputSchema: s.schema ?? { type: 'object' },
  }))
  return {
    called,
    list: () => infos,
    call: async (name, args) => {
      called.push(name)
      return specs[name]!.answer(args)
    },
    onChange: () => () => {},
  }
}
const ok = (text: string): ToolResult => ({ isError: false, text, content: [{ type: 'text', text }] })

const runnerOf = (tools: AgentTools, config: Partial<ToolConfig> = {}, secrets: string[] = []) => {
  const events: Array<Record<string, unknown>> = []
  const full: ToolConfig = { tools: { device: ['*'] }, maxToolRounds: 3, toolTimeoutMs: 300, maxToolResultChars: 100, ...config }
  const runner = new ToolRunner({ tools, emit: (e) => events.push({ ...e }), log: createLogger('silent') }, () => full, secrets)
  return { runner, events }
}

describe('ToolRunner: what a model-backed provider calls tools through', () => {
  it('offers allowed tools under API-safe unique names, and refuses a call outside the allow-list with the reason', async () => {
    const tools = toolsOf({ 'dev-1/self.light.set_on': { answer: () => ok('on') }, 'dev-2/self.light.set_on': { answer: () => ok('on') }, 'dev-1/self.door.unlock': { answer: () => ok('open') } })
    const { runner, events } = runnerOf(tools, { tools: { device: ['*/self.light.*'] } })
    expect(runner.functions().map((f) => f.name)).toEqual(['dev-1_self_light_set_on', 'dev-2_self_light_set_on'])
    expect(await runner.call('dev-1_self_door_unlock', '{}')).toEqual({ isError: true, output: 'error: the tool dev-1/self.door.unlock is not allowed for this agent' })
    expect(await runner.call('nothing_here', '{}')).toEqual({ isError: true, output: 'error: there is no tool named nothing_here' })
    expect(tools.called).toEqual([])
    expect(events.map((e) => e.error)).toEqual(['the tool dev-1/self.door.unlock is not allowed for this agent', 'there is no tool named nothing_here'])
  })

  it('validates arguments against the tool schema before the call; a schema that is not JSON Schema is never offered nor called', async () => {
    const tools = toolsOf({
      'd/light': { schema: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'] }, answer: () => ok('done') },
      'd/bad': { schema: { type: 'objekt', properties: 7 }, answer: () => ok('never') },
    })
    const { runner } = runnerOf(tools)
    expect(runner.functions().map((f) => f.name)).toEqual(['d_light'])
    expect(await runner.call('d_light', '{"on":"yes"}')).toEqual({ isError: true, output: 'error: invalid arguments: /on must be boolean' })
    expect(await runner.call('d_light', '{}')).toEqual({ isError: true, output: "error: invalid arguments: (the object) must have required property 'on'" })
    expect(await runner.call('d_light', '{"on": tru')).toEqual({ isError: true, output: 'error: the arguments are not JSON' })
    expect(await runner.call('d_light', '[true]')).toEqual({ isError: true, output: 'error: the arguments must be a JSON object' })
    expect((await runner.call('d_bad', '{}')).output).toMatch(/^error: the tool d\/bad cannot be called: its argument schema is not valid JSON Schema/)
    expect(await runner.call('d_light', '{"on":true}')).toEqual({ isError: false, output: 'done' })
    expect(tools.called).toEqual(['d/light'])
  })

  it('bounds a call: a hanging tool times out, a throwing one is an error result, a long result is cut; secrets never reach the room', async () => {
    const secret = 'sk-secret-value-1234567890'
    const tools = toolsOf({
      'd/hang': { answer: () => new Promise<ToolResult>(() => {}) },
      'd/throw': { answer: () => Promise.reject(new Error(`boom ${secret}`)) },
      'd/long': { answer: () => ok('x'.repeat(250)) },
      'd/echo': { answer: (a) => ok(`got ${String(a.note)}`) },
    })
    const { runner, events } = runnerOf(tools, {}, [secret])
    const begin = performance.now()
    expect(await runner.call('d_hang', '{}')).toEqual({ isError: true, output: 'error: the tool did not answer within 300 ms' })
    expect(performance.now() - begin).toBeGreaterThanOrEqual(290)
    expect(await runner.call('d_throw', '{}')).toEqual({ isError: true, output: 'error: the tool failed' })
    expect((await runner.call('d_long', '{}')).output).toBe(`${'x'.repeat(100)}… [cut: 150 more characters]`)
    await runner.call('d_echo', JSON.stringify({ note: secret, password: 'hunter2' }))
    const echo = events.find((e) => e.name === 'd/echo')!
    expect(echo).toMatchObject({ kind: 'tool_call', source: 'device', arguments: { note: '[redacted]', password: '[redacted]' }, result: 'got [redacted]' })
    expect(JSON.stringify(events)).not.toContain(secret)
    expect(JSON.stringify(events)).not.toContain('hunter2')
  })

  it('an aborted turn abandons its call', async () => {
    const { runner } = runnerOf(toolsOf({ 'd/hang': { answer: () => new Promise<ToolResult>(() => {}) } }), { toolTimeoutMs: 60_000 })
    const abort = new AbortController()
    const pending = runner.call('d_hang', '{}', abort.signal)
    abort.abort()
    expect(await pending).toEqual({ isError: true, output: 'error: the call was abandoned (the turn was interrupted)' })
  })

  it('wildcards match whole names, * spanning any characters; no list means no tool', () => {
    expect(toolAllowed({ device: ['*/self.light.*'] }, 'device', 'a/self.light.set_on')).toBe(true)
    expect(toolAllowed({ device: ['*/self.light.*'] }, 'device', 'a/self.lights')).toBe(false)
    expect(toolAllowed({ device: ['a/self.light.set_on'] }, 'device', 'b/self.light.set_on')).toBe(false)
    expect(toolAllowed({ device: ['a.b'] }, 'device', 'aXb')).toBe(false)
    expect(toolAllowed({}, 'device', 'a/x')).toBe(false)
    expect(toolAllowed(undefined, 'device', 'a/x')).toBe(false)
  })
})
