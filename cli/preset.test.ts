import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { echoAgent } from '../agents/echo/index.js'
import { cliJson, createTestEngine, runCli, tempDir } from '../core/test/helpers.js'

let dir: ReturnType<typeof tempDir>
beforeEach(() => (dir = tempDir()))
afterEach(() => dir.remove())

const data = () => ['--data', dir.path]

describe('hark preset (real process)', () => {
  it('knows the providers of agents.providerModules, as the engine does', async () => {
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])
    const env = { HARK_AGENTS_PROVIDER_MODULES: fileURLToPath(new URL('../test/fixtures/agent-providers/spinner.mjs', import.meta.url)) }
    const ws = ['--workspace', workspaceId, ...data()]
    expect(await cliJson(['preset', 'create', 'spin', '--provider', 'spinner', ...ws], env)).toMatchObject({ presetId: 'spin', provider: 'spinner' })
    const refused = await runCli(['preset', 'create', 'x', '--provider', 'spinner', '--agent-config', '{"loud":true}', ...ws], env)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/config\.loud is not a setting of the spinner provider/)
  })


  it('creates, lists, shows, updates and deletes presets, checking configs against the provider schema', async () => {
    const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data()])
    const ws = ['--workspace', workspaceId, ...data()]
    const created = await cliJson<Record<string, unknown>>([
      'preset', 'create', 'greeter', '--provider', 'echo', '--name', 'Greeter', '--agent-config', '{"silenceMs":300}', ...ws,
    ])
    expect(created).toEqual({
      presetId: 'greeter', name: 'Greeter', provider: 'echo', config: { silenceMs: 300 }, record: null,
      createdAt: expect.any(String), updatedAt: expect.any(String),
    })
    await cliJson(['preset', 'create', 'voice', '--provider', 'openai-realtime', '--agent-config', '{"voice":"verse"}', ...ws])
    expect((await cliJson<Array<{ presetId: string }>>(['preset', 'list', ...ws])).map((p) => p.presetId)).toEqual(['greeter', 'voice'])
    const updated = await cliJson<Record<string, unknown>>(['preset', 'update', 'greeter', '--agent-config', '{"silenceMs":800}', ...ws])
    expect(updated).toMatchObject({ presetId: 'greeter', name: 'Greeter', config: { silenceMs: 800 } })
    expect(await cliJson(['preset', 'show', 'greeter', ...ws])).toEqual(updated)
    expect(await cliJson(['preset', 'update', 'voice', '--record', 'both', ...ws])).toMatchObject({ presetId: 'voice', record: { tracks: 'both' } })
    expect(await cliJson(['preset', 'update', 'voice', '--record', 'none', ...ws])).toMatchObject({ presetId: 'voice', record: null })

    // Refusals: one line on stderr, exit 2 for an invalid value and 1 for a conflict or a miss, nothing stored.
    const refusals: Array<[string[], RegExp, number]> = [
      [['preset', 'create', 'x', '--provider', 'nobody'], /no agent provider named nobody/, 2],
      [['preset', 'create', 'x', '--provider', 'echo', '--agent-config', '{"apiKey":"sk-1"}'], /config\.apiKey is a server-side secret/, 2],
      [['preset', 'create', 'x', '--provider', 'echo', '--agent-config', '{"silenceMs":5}'], /config\.silenceMs/, 2],
      [['preset', 'create', 'x', '--provider', 'echo', '--agent-config', '{"loud":true}'], /config\.loud is not a setting of the echo provider/, 2],
      [['preset', 'create', 'x', '--provider', 'echo', '--agent-config', '{nope'], /--agent-config is not JSON/, 2],
      [['preset', 'create', 'default', '--provider', 'echo'], /reserved/, 2],
      [['preset', 'create', 'x', '--provider', 'echo', '--record', 'stereo'], /record\.tracks must be one of mixed, per-participant, both/, 2],
      [['preset', 'create', 'greeter', '--provider', 'echo'], /already exists/, 1],
      [['preset', 'show', 'missing'], /no agent preset missing/, 1],
    ]
    for (const [args, message, code] of refusals) {
      const r = await runCli([...args, ...ws])
      expect(r.code, args.join(' ')).toBe(code)
      expect(r.stderr).toMatch(message)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    expect((await cliJson<unknown[]>(['preset', 'list', ...ws]))).toHaveLength(2)

    // An engine on the same data dir dispatches the preset the CLI made.
    const engine = createTestEngine({ dataDir: dir.path, extensions: [echoAgent] })
    await engine.start()
    try {
      const agent = await engine.host.agents.dispatch(workspaceId, 'lobby', { presetId: 'greeter' })
      expect(agent).toMatchObject({ identity: 'agent@greeter', name: 'Greeter', provider: 'echo', state: 'running' })
    } finally {
      await engine.stop()
    }

    expect(await cliJson(['preset', 'delete', 'voice', ...ws])).toEqual({ presetId: 'voice', deleted: true })
    expect((await runCli(['preset', 'delete', 'voice', ...ws])).code).toBe(1)
  }, 180_000)
})
