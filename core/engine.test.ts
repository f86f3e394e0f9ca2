import { join } from 'node:path'
import { Writable } from 'node:stream'
import * as Schema from 'effect/Schema'
import type { FastifyInstance } from 'fastify'
import { ManualClock } from './clock.js'
import { describe, expect, it } from 'vitest'
import {
  createEngine,
  defineAgentProvider,
  defineCluster,
  definePlugin,
  defineSettings,
  defineTransport,
  inject,
  injectable,
  setting,
  services,
  type ClusterNode,
  type ClusterOptions,
  type EnginePlugin,
  type Engine,
  type Listeners,
  type Settings,
} from './index.js'
// After hark's entry, which loads the Reflect metadata API tsyringe needs.
import { container as globalContainer } from 'tsyringe'
import { createLogger } from './log.js'
import { cliJson, createTestEngine, openTerminal, RecordingLink, seedWorkspace, startTestEngine, tempDir } from './test/helpers.js'

const calls: string[] = []

const greeterSettings = defineSettings('greeter', {
  greeting: setting(Schema.NonEmptyString, 'hello', 'what the greeter answers with'),
})

/** An embedder's plugin written as the built-in ones are: each service named by its key. */
@injectable()
class Greeter implements EnginePlugin {
  constructor(
    @inject(services.settings) private readonly settings: Settings,
    @inject(greeterSettings.key) private readonly own: typeof greeterSettings.Type,
  ) {}
  register(app: FastifyInstance) {
    app.get('/hello', async () => ({ [this.own.greeting]: this.settings.host }))
  }
  start() {
    calls.push('plugin start')
  }
  stop() {
    calls.push('plugin stop')
  }
}

const greeter = definePlugin('greeter', { settings: greeterSettings, create: Greeter })

describe('embedding the engine', () => {
  it('registers an embedder plugin, transport and agent provider by name, like built-ins, in a container of its own', async () => {
    calls.length = 0
    const loop = defineTransport('loopback', (resolve) => {
      const listeners: Listeners = resolve(services.listeners)
      return {
        start: async () => {
          calls.push('transport start')
          listeners.listening('loopback', 1234)
        },
        stop: async () => void calls.push('transport stop'),
      }
    })
    const parrot = defineAgentProvider('parrot', { isolate: false, create: () => ({
      description: 'repeats',
      configSchema: Schema.Struct({}),
      start: (ctx) => ({ onAudio: (pcm: Int16Array) => ctx.audio.push(pcm) }),
    }) })
    const t = await startTestEngine({ extensions: [greeter, loop, parrot], greeter: { greeting: 'hi' } })
    try {
      const res = await fetch(t.url('/hello'))
      expect(await res.json()).toEqual({ hi: '127.0.0.1' })
      expect(t.engine.ports.loopback).toBe(1234)
      const host = t.engine.host
      expect(host.names('transport')).toEqual(['loopback'])
      expect(host.names('agentProvider')).toEqual(['parrot'])
      expect(host.resolve<{ description: string }>('agentProvider', 'parrot').description).toBe('repeats')
      expect(() => host.resolve('transport', 'nope')).toThrow(/no transport named "nope"/)
      // The engine's services live in its child container only: nothing lands in tsyringe's global one.
      expect(globalContainer.isRegistered(services.log)).toBe(false)
      expect(globalContainer.isRegistered(greeterSettings.key)).toBe(false)
    } finally {
      await t.stop()
    }
    expect(calls).toEqual(['transport start', 'plugin start', 'plugin stop', 'transport stop'])
  })

  it("validates an extension's own settings: defaults, HARK_* variables, and one line for an unknown one", async () => {
    const t = await startTestEngine({ extensions: [greeter] }, { env: { HARK_GREETER_GREETING: 'hey' } })
    try {
      expect(await (await fetch(t.url('/hello'))).json()).toEqual({ hey: '127.0.0.1' })
    } finally {
      await t.stop()
    }
    const bad = { extensions: [greeter], greeter: { greting: 'x' } }
    expect(() => createEngine(bad as never)).toThrow(/^invalid setting greeter\.greting \(from engine config\): unknown setting$/)
    // Without the extension its section is unknown too.
    expect(() => createEngine({ greeter: { greeting: 'x' } } as never)).toThrow(/invalid setting greeter\.greeting/)
  })

  it('refuses an extension class whose constructor parameter has no @inject token', async () => {
    @injectable()
    class Careless implements EnginePlugin {
      constructor(readonly settings: Settings) {}
      start() {}
    }
    await expect(startTestEngine({ extensions: [definePlugin('careless', Careless)] })).rejects.toThrow(/Careless/)
  })

  it('imports an extension defined with load only when the engine starts it, once; a failing load stops the start naming it', async () => {
    calls.length = 0
    let loads = 0
    const lazy = definePlugin('lazy-greeter', {
      settings: greeterSettings,
      load: async () => {
        loads++
        calls.push('loaded')
        return Greeter
      },
    })
    expect(lazy.create).toBeNull()
    const dir = tempDir()
    const engine = createTestEngine({ dataDir: dir.path, extensions: [lazy], greeter: { greeting: 'lazy' } })
    // Building the engine (settings decoded, section known) imports nothing.
    expect(loads).toBe(0)
    await engine.start()
    try {
      expect(loads).toBe(1)
      expect(await (await fetch(`http://127.0.0.1:${engine.ports.rest}/hello`)).json()).toEqual({ lazy: '127.0.0.1' })
      expect(engine.host.resolve('plugin', 'lazy-greeter')).toBeInstanceOf(Greeter)
    } finally {
      await engine.stop()
      dir.remove()
    }
    expect(calls).toEqual(['loaded', 'plugin start', 'plugin stop'])

    const broken = defineTransport('broken', { load: () => import('./no-such-module.js' as string) })
    await expect(startTestEngine({ extensions: [broken] })).rejects.toThrow(/the transport broken could not be loaded: .*no-such-module/)
    expect(() => defineTransport('both', { create: () => ({ start: async () => {}, stop: async () => {} }), load: async () => () => ({ start: async () => {}, stop: async () => {} }) })).toThrow(
      /gives both create and load/,
    )
  })

  it('joins a cluster through its registered cluster extension only when cluster.natsUrl is set, and leaves it at stop', async () => {
    const joined: ClusterOptions[] = []
    const calls: string[] = []
    const node: ClusterNode = {
      shared: true,
      placement: { owns: () => false, ownerFor: async () => null, dispatchAt: async () => Promise.reject(new Error('no')), remoteList: async () => [], remoteAgent: async () => null, remoteControl: async () => null },
      leases: { shared: true, holds: () => false, want: () => undefined, drop: () => undefined, onChange: () => () => undefined },
      owns: () => false,
      setAgentHooks: () => void calls.push('hooks'),
      installMetrics: () => void calls.push('metrics'),
      start: async () => void calls.push('start'),
      stop: async () => void calls.push('stop'),
    }
    const fake = defineCluster('fake', () => ({ join: async (o: ClusterOptions) => (joined.push(o), node) }))
    const single = await startTestEngine({ extensions: [fake] })
    try {
      expect(single.engine.host.leases.shared).toBe(false)
    } finally {
      await single.stop()
    }
    expect(joined).toEqual([])

    const clustered = await startTestEngine({ extensions: [fake], cluster: { natsUrl: 'nats://127.0.0.1:4222', nodeId: 'n1', leaseTtlMs: 1500 } })
    try {
      expect(joined.map((o) => [o.natsUrl, o.nodeId, o.leaseTtlMs])).toEqual([['nats://127.0.0.1:4222', 'n1', 1500]])
      expect(joined[0]!.hub).toBe(clustered.engine.host.terminals)
      // Its leases are the engine's from before any plugin starts (webhook delivery asks for them).
      expect(clustered.engine.host.leases.shared).toBe(true)
      expect(calls).toEqual(['start', 'metrics', 'hooks'])
    } finally {
      await clustered.stop()
    }
    expect(calls.at(-1)).toBe('stop')

    await expect(startTestEngine({ cluster: { natsUrl: 'nats://127.0.0.1:4222', nodeId: 'n1' } })).rejects.toThrow(/cluster\.natsUrl is set, but the engine config registers no cluster extension/)
    const refusing = defineCluster('refusing', () => ({ join: async () => Promise.reject(new Error('no servers available')) }))
    await expect(startTestEngine({ extensions: [refusing], cluster: { natsUrl: 'nats://127.0.0.1:4222', nodeId: 'n1' } })).rejects.toThrow(
      'cannot join the cluster at cluster.natsUrl nats://127.0.0.1:4222: no servers available',
    )
  })

  it('stops every transport accepting before any terminal hears session.closing, then stops it', async () => {
    const calls: string[] = []
    let link: RecordingLink | null = null
    const heard = () => link?.events.items.some((e) => e.type === 'session.closing') ?? false
    const door = defineTransport('door', () => ({
      start: async () => {},
      stop: async () => void calls.push(`stop, session.closing heard: ${heard()}`),
      stopAccepting: () => void calls.push(`stopAccepting, session.closing heard: ${heard()}`),
    }))
    const t = await startTestEngine({ extensions: [door] })
    const seed = seedWorkspace(t.engine)
    seed.addClient('a', 'lobby')
    link = (await openTerminal(t.engine, seed.workspaceId, 'a')).link
    await t.stop()
    expect(calls).toEqual(['stopAccepting, session.closing heard: false', 'stop, session.closing heard: true'])
  })

  it('refuses two extensions of one kind under one name', async () => {
    const a = definePlugin('dup', () => ({}))
    await expect(startTestEngine({ extensions: [a, a] })).rejects.toThrow(/already registered/)
    expect(() => definePlugin('Bad Name', () => ({}))).toThrow(/must match/)
  })

  it('answers /healthz 503 until every listener is up, then 200; serves /metrics', async () => {
    const dir = tempDir()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let engine!: Engine
    let statusWhileStarting = 0
    const slow = defineTransport('slow', () => ({
      start: async () => {
        // The REST listener is up (and has reported its port) before transports start.
        statusWhileStarting = (await fetch(`http://127.0.0.1:${engine.ports.rest}/healthz`)).status
        release()
        await gate
      },
      stop: async () => {},
    }))
    engine = createTestEngine({ dataDir: dir.path, extensions: [slow] })
    try {
      await engine.start()
      expect(statusWhileStarting).toBe(503)
      const res = await fetch(`http://127.0.0.1:${engine.ports.rest}/healthz`)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ status: 'ok' })
      const metrics = await (await fetch(`http://127.0.0.1:${engine.ports.rest}/metrics`)).text()
      expect(metrics).toContain('hark_sessions')
      expect(metrics).toContain('hark_process_')
    } finally {
      await engine.stop()
      dir.remove()
    }
  })
})

describe('first start', () => {
  it('says in its log that it created hark.db, and says nothing of it on the next start', async () => {
    const dir = tempDir()
    try {
      for (const first of [true, false]) {
        const lines: string[] = []
        const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) })
        const engine = createTestEngine({ dataDir: dir.path }, { logger: createLogger('info', sink) })
        await engine.start()
        await engine.stop()
        const created = lines.map((l) => JSON.parse(l) as { msg: string; file?: string }).filter((l) => l.msg.includes('hark.db'))
        expect(created).toEqual(first ? [expect.objectContaining({ msg: 'created the database (hark.db)', file: join(dir.path, 'hark.db') })] : [])
      }
    } finally {
      dir.remove()
    }
  })
})

describe('sharing the data dir with the CLI', () => {
  it('applies an API key revocation made by the CLI at its next change poll, on the engine clock', async () => {
    const clock = new ManualClock(Date.now())
    const t = await startTestEngine({ storage: { changePollMs: 1000 } }, { clock })
    try {
      const seed = seedWorkspace(t.engine)
      const authenticate = () => t.engine.host.security.apiKeys.authenticate(`Bearer ${seed.apiKey}`)
      expect(authenticate().workspaceId).toBe(seed.workspaceId)
      const heard: string[] = []
      t.engine.host.storage.feed.on('apikey.revoked', (c) => heard.push(c.subject))
      await cliJson(['apikey', 'revoke', seed.keyId, '--workspace', seed.workspaceId, '--data', t.dir])
      // The engine polls the shared file every storage.changePollMs of its clock, which has not moved.
      expect(authenticate().workspaceId).toBe(seed.workspaceId)
      await clock.advanceAsync(1000)
      // The poll's fiber resumes within a few turns of the event loop (no real second passes).
      for (let turn = 0; turn < 20 && heard.length === 0; turn++) await new Promise((r) => setImmediate(r))
      expect(heard).toEqual([seed.keyId])
      let refused = false
      try {
        t.engine.host.security.apiKeys.authenticate(`Bearer ${seed.apiKey}`)
      } catch (e) {
        refused = (e as { _tag?: string })._tag === 'ApiKeyInvalid'
      }
      expect(refused).toBe(true)
    } finally {
      await t.stop()
    }
  })

  it('closes a live session when the CLI resets its device password', async () => {
    const t = await startTestEngine()
    try {
      const seed = seedWorkspace(t.engine)
      seed.addClient('dev-1', 'lobby')
      const { password } = await cliJson<{ password: string }>([
        'device-password', 'reset', 'dev-1', '--workspace', seed.workspaceId, '--data', t.dir,
      ])
      const link = new RecordingLink('mqtt')
      t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ devicePassword: password }), link)
      await cliJson(['device-password', 'reset', 'dev-1', '--workspace', seed.workspaceId, '--data', t.dir])
      expect((await link.closed)._tag).toBe('DevicePasswordReset')
    } finally {
      await t.stop()
    }
  })

  it('sees a client deleted by the CLI: the live session closes and its token stops working', async () => {
    const t = await startTestEngine()
    try {
      const seed = seedWorkspace(t.engine)
      seed.addClient('dev-1', 'lobby')
      const { token } = await t.engine.host.security.tokens.issue(seed.workspaceId, 'dev-1', null)
      const link = new RecordingLink()
      // Connecting reads (and caches) the client record.
      t.engine.host.terminals.open(await t.engine.host.security.authenticateTerminal({ token }), link)
      await cliJson(['client', 'delete', 'dev-1', '--workspace', seed.workspaceId, '--data', t.dir])
      expect((await link.closed)._tag).toBe('ClientDeleted')
      await expect(t.engine.host.security.authenticateTerminal({ token })).rejects.toMatchObject({ _tag: 'ClientNotFound' })
    } finally {
      await t.stop()
    }
  })
})
