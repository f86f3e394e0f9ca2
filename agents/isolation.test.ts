/**
 * Providers cannot stall the engine: isolated providers run in provider workers. A provider that
 * busy-loops, allocates without bound or crashes its thread fails its own agent only, while a
 * room of real WebSocket terminals keeps its audio flowing and /healthz answers; the worker is
 * replaced and a new agent runs. An isolated provider keeps the contract of an in-process one
 * (echo's round trip byte for byte, its events, every way of failing). The misbehaving providers
 * are operator modules (test/fixtures/agent-providers/*.mjs, importing only 'hark') loaded
 * through agents.providerModules, exactly as an operator's.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../core/clock.js'
import { parseDownlink } from '../core/dataplane/frame.js'
import { createLogger } from '../core/log.js'
import type { Extension } from '../core/index.js'
import { concat, silence, tone, UplinkEncoder } from '../core/test/speech.js'
import { openTerminal, runCli, seedWorkspace, startTestEngine, tempDir } from '../core/test/helpers.js'
import { startRestEngine, type RestEngine } from '../plugins/rest/test/restEngine.js'
import { websocketTransport } from '../transports/websocket/index.js'
import { TestTerminal } from '../transports/websocket/test/terminalClient.js'
import { echoAgent } from './echo/index.js'

const fixture = (name: string) => fileURLToPath(new URL(`../test/fixtures/agent-providers/${name}.mjs`, import.meta.url))
const isolatedEcho: Extension = { ...echoAgent, isolate: true }

let stops: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
})

/** The engine's metrics text. */
const metrics = async (t: { url(path: string): string }) => (await fetch(t.url('/metrics'))).text()
const metric = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? NaN)

describe('a misbehaving provider fails only its agent', () => {
  let t: RestEngine
  let acme: ReturnType<RestEngine['workspace']>
  let clock: ManualClock

  const start = async (module: string) => {
    // The engine clock is driven: the only heartbeat verdict is the one a test asks for.
    clock = new ManualClock(Date.now())
    t = await startRestEngine(
      {
        extensions: [websocketTransport, isolatedEcho],
        agents: { providerModules: fixture(module), workerStallMs: 1000, workerMemoryMb: 96, workers: 2 },
      },
      { clock },
    )
    stops.push(() => t.stop())
    acme = t.workspace('acme')
  }

  const terminal = async (clientId: string) => {
    expect((await acme.api.post('/clients', { clientId, room: 'lobby' })).status).toBe(201)
    const { token } = (await acme.api.post(`/clients/${clientId}/token`, {})).body
    const term = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
    stops.push(async () => term.close())
    await term.event('session')
    return term
  }

  const encoder = new UplinkEncoder()
  /** `a` talks (a burst of frames); resolves once `b` received every one of them (nothing else talks yet). */
  const flows = async (a: TestTerminal, b: TestTerminal, ms: number) => {
    const before = b.frames.items.length
    const frames = encoder.frames(tone(ms, 300))
    for (const f of frames) a.sendAudio(f)
    await b.frames.next(() => b.frames.items.length >= before + frames.length, 5000, `${frames.length} frames at the other terminal`)
  }

  const healthy = async () => {
    const r = await fetch(t.url('/healthz'), { signal: AbortSignal.timeout(1000) })
    expect(r.status).toBe(200)
  }

  const scenario = async (module: string, provider: string, saying: string, misbehave: () => void, reason: string) => {
    await start(module)
    const a = await terminal('dev-a')
    const b = await terminal('dev-b')
    expect((await acme.api.post('/agent-presets', { presetId: 'bad', name: 'bad', provider, config: {} })).status).toBe(201)
    const created = await acme.api.post('/agents', { room: 'lobby', presetId: 'bad' })
    expect(created.status).toBe(201)
    await b.event('agent.started', (e) => e.agentId === created.body.agentId)

    // The room talks; the provider hears its first frame and misbehaves.
    await flows(a, b, 200)
    await b.event('agent.event', (e) => e.event.kind === saying)
    misbehave()
    // Meanwhile and after, the room's audio flows and the engine answers.
    await flows(a, b, 400)
    await healthy()
    const stopped = await b.event('agent.stopped', (e) => e.agentId === created.body.agentId)
    expect(stopped.reason).toBe(reason)
    expect((await acme.api.get(`/agents/${created.body.agentId}`)).body).toMatchObject({ state: 'failed', reason })
    await flows(a, b, 400)
    await healthy()

    // The worker was replaced, and a new agent runs in the pool: echo, isolated, answering the room.
    expect(metric(await metrics(t), 'hark_agent_workers_replaced_total')).toBe(1)
    const echo = await acme.api.post('/agents', { room: 'lobby', overrides: { silenceMs: 200 } })
    expect(echo.status).toBe(201)
    expect(metric(await metrics(t), 'hark_agent_workers{state="busy"}')).toBe(1)
    for (const f of encoder.frames(concat(tone(300, 300), silence(400)))) a.sendAudio(f)
    await b.event('agent.event', (e) => e.agentId === echo.body.agentId && e.event.kind === 'echo')
  }

  it('a busy loop: the heartbeat goes unanswered, the worker is terminated, the agent fails', async () => {
    await scenario(
      'spinner',
      'spinner',
      'spinning',
      // One ping goes out, then the deadline passes without its answer (the engine clock, driven).
      () => {
        clock.advance(250)
        clock.advance(1000)
      },
      'provider stalled (no heartbeat for 1000 ms)',
    )
  })

  it('unbounded allocation: the worker hits its heap limit, the agent fails', async () => {
    await scenario('hog', 'hog', 'hogging', () => {}, 'provider ran out of memory (agents.workerMemoryMb = 96)')
  })

  it('a crash: the worker exits, the agent fails', async () => {
    await scenario('crasher', 'crasher', 'crashing', () => {}, 'provider worker exited (code 70)')
  })
})

describe('agents sharing a provider worker', () => {
  it.each([
    { module: 'spinner', saying: 'spinning', stall: true, reason: 'provider stalled (no heartbeat for 1000 ms)' },
    // The hog allocates from its own timers (setImmediate), outside any call of ours: blamed by its async scope.
    { module: 'hog', saying: 'hogging', stall: false, reason: 'provider ran out of memory (agents.workerMemoryMb = 96)' },
  ])('$module: only it fails; the other agent of its worker starts again on a fresh worker and keeps answering the room', async ({ module, saying, stall, reason }) => {
    const clock = new ManualClock(Date.now())
    const t = await startTestEngine(
      // One thread for both agents: they share it.
      { extensions: [isolatedEcho], agents: { providerModules: fixture(module), workerStallMs: 1000, workerMemoryMb: 96, workers: 1, agentsPerWorker: 2 } },
      { clock },
    )
    stops.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    seed.addClient('a', 'lobby')
    const { link, session } = await openTerminal(t.engine, seed.workspaceId, 'a')
    const { agents } = t.engine.host
    const echo = await agents.dispatch(seed.workspaceId, 'lobby', { overrides: { silenceMs: 200 } })
    t.engine.host.storage.agentPresets.insert({ workspaceId: seed.workspaceId, presetId: module, name: module, provider: module, config: {}, createdAt: 1, updatedAt: 1 })
    const bad = await agents.dispatch(seed.workspaceId, 'lobby', { presetId: module })
    const text = await metrics(t)
    expect([metric(text, 'hark_agent_workers{state="busy"}'), metric(text, 'hark_agent_workers{state="idle"}')]).toEqual([1, 0])

    // The room talks; the bad provider hears it and misbehaves: the thread (and echo in it) is stuck or dies.
    const encoder = new UplinkEncoder()
    for (const f of encoder.frames(concat(tone(200, 300), silence(100)))) session.pushAudio(f)
    await link.event('agent.event', (e) => e.agentId === bad.agentId && e.event.kind === saying)
    if (stall) {
      // A busy loop: one ping goes out, then its deadline passes (the engine clock, driven).
      clock.advance(250)
      clock.advance(1000)
    }
    const stopped = await link.event('agent.stopped', (e) => e.agentId === bad.agentId)
    expect(stopped.reason).toBe(reason)
    // Echo was not running when the thread went: it is not blamed, its session starts anew (and says so once up).
    const restarted = await link.event('agent.event', (e) => e.agentId === echo.agentId && e.event.kind === 'provider.restarted')
    expect(restarted.event.reason).toBe(reason)
    expect(agents.list(seed.workspaceId, { live: true }).map((a) => a.agentId)).toEqual([echo.agentId])

    // After that, echo answers the room from its new worker: its event and every frame of it.
    const framesBefore = link.frames.items.length
    const echoesBefore = link.events.items.length
    for (const f of encoder.frames(concat(tone(300, 500), silence(400)))) session.pushAudio(f)
    const echoed = await link.events.next(
      (e) => e.type === 'agent.event' && e.agentId === echo.agentId && e.event.kind === 'echo' && link.events.items.indexOf(e) >= echoesBefore,
      10_000,
      'an echo after the bad agent\'s end',
    )
    const ms = Number((echoed as { event: { durationMs?: unknown } }).event.durationMs)
    expect(ms).toBeGreaterThanOrEqual(200)
    await link.frames.next(() => link.frames.items.length >= framesBefore + ms / 20, 10_000, 'the echo\'s frames after the bad agent\'s end')
    expect(agents.get(seed.workspaceId, echo.agentId)?.state).toBe('running')
    expect(metric(await metrics(t), 'hark_agent_workers_replaced_total')).toBe(1)
  })
})

describe('placing agents on provider workers', () => {
  it('the first agents get a thread each, then share: workers × agentsPerWorker run, one more fails to start, a stop frees its slot', async () => {
    const t = await startTestEngine({ extensions: [isolatedEcho], agents: { workers: 2, agentsPerWorker: 2 } })
    stops.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    seed.addClient('a', 'lobby')
    seed.addClient('b', 'den')
    await openTerminal(t.engine, seed.workspaceId, 'a')
    await openTerminal(t.engine, seed.workspaceId, 'b')
    const { agents } = t.engine.host
    // One preset per agent: agents in one room need identities of their own (agent@<preset>).
    let presets = 0
    const dispatch = async (room: 'lobby' | 'den') => {
      const presetId = `echo-${++presets}`
      t.engine.host.storage.agentPresets.insert({ workspaceId: seed.workspaceId, presetId, name: presetId, provider: 'echo', config: {}, createdAt: 1, updatedAt: 1 })
      // A dispatch resolves once its agent runs, or throws with the reason it did not start.
      try {
        return { agentId: (await agents.dispatch(seed.workspaceId, room, { presetId })).agentId, failed: null }
      } catch (e) {
        return { agentId: null, failed: (e as Error).message }
      }
    }
    const workers = async () => {
      const text = await metrics(t)
      return [metric(text, 'hark_agent_workers{state="busy"}'), metric(text, 'hark_agent_workers{state="idle"}')]
    }
    const running = [await dispatch('lobby'), await dispatch('lobby')]
    // The second agent gets a thread of its own while there are fewer than agents.workers (not a seat beside the first).
    expect(await workers()).toEqual([2, 0])
    running.push(await dispatch('den'), await dispatch('den'))
    // Then they share: two threads, two agents each.
    expect(running.map((r) => r.failed)).toEqual([null, null, null, null])
    expect(await workers()).toEqual([2, 0])

    const fifth = await dispatch('den')
    expect(fifth.failed).toContain('failed to start: no provider worker free (agents.workers = 2, agents.agentsPerWorker = 2)')
    expect(agents.list(seed.workspaceId, { live: true })).toHaveLength(4)

    await agents.stop(seed.workspaceId, running[2]!.agentId!)
    const again = await dispatch('den')
    expect(again.failed).toBeNull()
    expect(agents.list(seed.workspaceId, { live: true })).toHaveLength(4)
    expect(metric(await metrics(t), 'hark_agent_workers_replaced_total')).toBe(0)
  })
})

describe('ending a worker that is inside a native call', () => {
  it('a provider stopped while it creates onnxruntime sessions: its worker exits once the call returns, the process stays up', async () => {
    // The engine's log, line by line, with a way to wait for a line.
    const lines: string[] = []
    const waiting = new Set<() => void>()
    const logger = createLogger('debug', new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), waiting.forEach((f) => f()), cb()) }))
    const logged = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => lines.some((l) => l.includes(text)) && (waiting.delete(check), resolve())
        waiting.add(check)
        check()
      })
    const t = await startTestEngine(
      { extensions: [isolatedEcho], agents: { providerModules: fixture('sessionLoader'), defaultProvider: 'session-loader', workers: 1, startTimeoutMs: 60_000 } },
      { logger },
    )
    stops.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    const { agents } = t.engine.host
    const started = agents.dispatch(seed.workspaceId, 'lobby', {}).then(() => 'running', (e: Error) => e.message)
    const [agent] = agents.list(seed.workspaceId, { live: true })
    // Its thread is in onnxruntime's session creation nearly all of its start: stop it there.
    // Terminating the thread now would abort the process (onnxruntime-node's Napi::Error).
    await logged('loading inference sessions')
    expect((await agents.stop(seed.workspaceId, agent!.agentId)).state).toBe('stopped')
    expect(await started).toMatch(/failed to start: stopped by request/)
    await logged('provider worker ended')
    // The process is up, and its single worker slot is free again: a new agent starts in a new worker.
    t.engine.host.storage.agentPresets.insert({ workspaceId: seed.workspaceId, presetId: 'echo', name: 'echo', provider: 'echo', config: {}, createdAt: 1, updatedAt: 1 })
    expect((await agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'echo' })).state).toBe('running')
  })
})

describe('an isolated provider keeps the contract of an in-process one', () => {
  /** Echo through the hub: the agent's Opus payloads and its events, for the same speech. */
  const echoRoundTrip = async (echo: Extension) => {
    const t = await startTestEngine({ extensions: [echo] })
    stops.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    seed.addClient('a', 'lobby')
    const { link, session } = await openTerminal(t.engine, seed.workspaceId, 'a')
    const view = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', { overrides: { silenceMs: 300 } })
    const busy = metric(await metrics(t), 'hark_agent_workers{state="busy"}')
    const encoder = new UplinkEncoder()
    for (const f of encoder.frames(concat(tone(400, 300), silence(600), tone(300, 500), silence(600)))) session.pushAudio(f)
    const echoes = () => link.events.items.flatMap((e) => (e.type === 'agent.event' ? [e.event] : []))
    await link.events.next(() => echoes().length >= 2, 10_000, 'two echoes')
    const ms = echoes().reduce((sum, e) => sum + Number(e.durationMs), 0)
    await link.frames.next(() => link.frames.items.length >= ms / 20, 10_000, 'every echoed frame')
    await t.engine.host.agents.stop(seed.workspaceId, view.agentId)
    return {
      busy,
      payloads: link.frames.items.map((f) => Buffer.from(parseDownlink(f)!.opus).toString('hex')),
      events: echoes(),
    }
  }

  it('echo: the same speech gives the same Opus bytes and the same events, in a worker or not', async () => {
    const inProcess = await echoRoundTrip(echoAgent)
    const isolated = await echoRoundTrip(isolatedEcho)
    expect(inProcess.busy).toBeNaN()
    expect(isolated.busy).toBe(1)
    expect(isolated.payloads.length).toBeGreaterThanOrEqual(30)
    expect(isolated.events).toEqual(inProcess.events)
    expect(isolated.payloads).toEqual(inProcess.payloads)
  })

  const failures = async (isolate: boolean) => {
    const names = ['quitter', 'thrower', 'refuser', 'timebomb']
    const modules = await Promise.all(names.map(async (n) => ((await import(fixture(n))) as { default: Extension }).default))
    const logged: string[] = []
    const sink = new Writable({ write: (chunk, _enc, cb) => (logged.push(String(chunk)), cb()) })
    const t = await startTestEngine(
      isolate
        ? { agents: { providerModules: names.map(fixture).join(','), startTimeoutMs: 5000 } }
        : { extensions: modules.map((m) => ({ ...m, isolate: false })), agents: { startTimeoutMs: 5000 } },
      { logger: createLogger('debug', sink) },
    )
    stops.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    const reasons: Record<string, string | null> = {}
    const busy: number[] = []
    for (const [i, name] of names.entries()) {
      seed.addClient(`c${i}`, `room-${name}`)
      t.engine.host.storage.agentPresets.insert({ workspaceId: seed.workspaceId, presetId: name, name, provider: name, config: {}, createdAt: 1, updatedAt: 1 })
      const { link, session } = await openTerminal(t.engine, seed.workspaceId, `c${i}`)
      let agentId: string
      try {
        agentId = (await t.engine.host.agents.dispatch(seed.workspaceId, `room-${name}`, { presetId: name })).agentId
      } catch (e) {
        reasons[name] = (e as Error).message.replace(/ag_\w+/, 'ag_…')
        continue
      }
      busy.push(metric(await metrics(t), 'hark_agent_workers{state="busy"}'))
      for (const f of new UplinkEncoder().frames(concat(tone(200, 300), silence(200)))) session.pushAudio(f)
      const stopped = await link.event('agent.stopped', (e) => e.agentId === agentId)
      reasons[name] = stopped.reason
    }
    return { reasons, busy, logged: logged.join('') }
  }

  it('failing: ctx.fail, a throw in a callback, a refused start and a later throw give the same reasons, secrets scrubbed', async () => {
    const inProcess = await failures(false)
    const isolated = await failures(true)
    expect(inProcess.reasons).toEqual({
      quitter: 'quota exceeded for [redacted]',
      thrower: 'provider error (onAudio)',
      refuser: expect.stringContaining('failed to start: upstream refused the session'),
      timebomb: 'provider error (async)',
    })
    expect(isolated.reasons).toEqual(inProcess.reasons)
    expect(isolated.busy).toEqual([1, 1, 1])
    expect(isolated.logged).toContain('provider error (onAudio)')
    expect(isolated.logged).not.toContain('sk-fixture-secret-0123456789')
  })
})

describe('a provider worker loads providers, not the engine', () => {
  it("the built-in providers and the worker's bootstrap import hark/provider: no storage, HTTP server or transport in the worker", async () => {
    const loaded = ((await import(fixture('loaded'))) as { default: Extension }).default
    // The same fixture twice: from agents.providerModules (isolated, in a worker beside the built-in
    // echo, isolated too) and in the engine's thread, where the engine's own packages show.
    const t = await startTestEngine({
      extensions: [isolatedEcho, { ...loaded, name: 'loaded-inline', isolate: false }],
      agents: { providerModules: fixture('loaded') },
    })
    stops.push(() => t.stop())
    const seed = seedWorkspace(t.engine)
    seed.addClient('a', 'lobby')
    const { link } = await openTerminal(t.engine, seed.workspaceId, 'a')
    const packagesOf = async (provider: string): Promise<string[]> => {
      t.engine.host.storage.agentPresets.insert({ workspaceId: seed.workspaceId, presetId: provider, name: provider, provider, config: {}, createdAt: 1, updatedAt: 1 })
      const { agentId } = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: provider })
      const e = await link.event('agent.event', (x) => x.agentId === agentId && x.event.kind === 'loaded')
      await t.engine.host.agents.stop(seed.workspaceId, agentId)
      return (e.event as { packages: string[] }).packages
    }
    const engineThread = await packagesOf('loaded-inline')
    const worker = await packagesOf('loaded')
    expect(metric(await metrics(t), 'hark_agent_workers{state="idle"}')).toBe(1)
    const engineOnly = ['libsql', 'fastify', '@node-rs/argon2', 'uWebSockets.js']
    // What the engine's thread has loaded (the check sees them) ...
    expect(engineThread).toEqual(expect.arrayContaining(['libsql', 'fastify']))
    // ... and the worker has not; it has what a provider host needs (logs, a container).
    expect(worker.filter((p) => engineOnly.includes(p))).toEqual([])
    expect(worker).toEqual(expect.arrayContaining(['pino', 'tsyringe']))
  })
})

describe("a provider module's own settings", () => {
  /** An operator's module in a directory of its own, declaring the section agents.greeter. */
  const greeterModule = (): string => {
    const dir = tempDir()
    stops.push(async () => dir.remove())
    const path = join(dir.path, 'greeter.mjs')
    // Outside this package 'hark/provider' does not resolve: the module imports the same files by URL.
    const schema = new URL('../node_modules/effect/dist/Schema.js', import.meta.url).href
    const provider = new URL('../dist/core/provider.js', import.meta.url).href
    writeFileSync(
      path,
      [
        `import * as Schema from '${schema}'`,
        `import { defineAgentProvider, defineSettings, intBetween, setting } from '${provider}'`,
        `export const greeterSettings = defineSettings('agents.greeter', {`,
        `  greeting: setting(Schema.String.check(Schema.isMinLength(1)), 'hello', 'what the greeter says when it joins'),`,
        `  times: setting(intBetween(1, 5), 1, 'how often it says it'),`,
        `})`,
        `export default defineAgentProvider('greeter', {`,
        `  settings: greeterSettings,`,
        `  create: (resolve) => {`,
        `    const s = resolve(greeterSettings.key)`,
        `    return { configSchema: Schema.Struct({}), start: (ctx) => (ctx.emit({ kind: 'greeting', text: s.greeting, times: s.times }), {}) }`,
        `  },`,
        `})`,
      ].join('\n'),
    )
    return path
  }

  it('are resolved with the engine\'s: config, HARK_* variable and flag; an isolated session reads them', async () => {
    const path = greeterModule()
    const t = await startTestEngine(
      { agents: { providerModules: path, greeter: { greeting: 'hi there' } } } as never,
      { env: { HARK_AGENTS_GREETER_TIMES: '3' } },
    )
    stops.push(() => t.stop())
    expect((t.engine.settings.agents as unknown as Record<string, unknown>).greeter).toEqual({ greeting: 'hi there', times: 3 })
    const seed = seedWorkspace(t.engine)
    seed.addClient('a', 'lobby')
    const { link } = await openTerminal(t.engine, seed.workspaceId, 'a')
    t.engine.host.storage.agentPresets.insert({ workspaceId: seed.workspaceId, presetId: 'g', name: 'g', provider: 'greeter', config: {}, createdAt: 1, updatedAt: 1 })
    const { agentId } = await t.engine.host.agents.dispatch(seed.workspaceId, 'lobby', { presetId: 'g' })
    const e = await link.event('agent.event', (x) => x.agentId === agentId)
    expect(e.event).toEqual({ kind: 'greeting', text: 'hi there', times: 3 })
    expect(metric(await metrics(t), 'hark_agent_workers{state="busy"}')).toBe(1)
  })

  it("a bad value is refused at start, as for any setting; so is an unknown setting of its section", async () => {
    const path = greeterModule()
    const failure = (env: Record<string, string>, greeter: Record<string, unknown>) =>
      startTestEngine({ agents: { providerModules: path, greeter } } as never, { env }).then(
        (t) => (stops.push(() => t.stop()), null),
        (e: Error) => e.message,
      )
    expect(await failure({ HARK_AGENTS_GREETER_TIMES: '9' }, {})).toMatch(/^invalid setting agents\.greeter\.times \(from HARK_AGENTS_GREETER_TIMES\): /)
    // Left aside until the module is loaded, then refused like any unknown setting.
    expect(await failure({}, { greting: 'typo' })).toBe('invalid setting agents.greeter.greting (from engine config): unknown setting')
  })

  it('hark settings lists them, with their variable and flag; hark start takes the flag', async () => {
    const path = greeterModule()
    const listed = await runCli(['settings', '--json'], { HARK_AGENTS_PROVIDER_MODULES: path })
    expect(listed.code).toBe(0)
    const rows = (JSON.parse(listed.stdout) as Array<{ path: string }>).filter((d) => d.path.startsWith('agents.greeter.'))
    expect(rows).toEqual([
      expect.objectContaining({ path: 'agents.greeter.greeting', env: 'HARK_AGENTS_GREETER_GREETING', flag: 'agents-greeter-greeting', defaultValue: 'hello', owner: 'agent provider greeter' }),
      expect.objectContaining({ path: 'agents.greeter.times', env: 'HARK_AGENTS_GREETER_TIMES', flag: 'agents-greeter-times', defaultValue: 1, range: '1–5' }),
    ])
    // The flag exists once --agents-provider-modules named the module; its value is validated.
    const dir = tempDir()
    stops.push(async () => dir.remove())
    const r = await runCli(['start', '--data', dir.path, '--rest-port', '0', '--agents-provider-modules', path, '--agents-greeter-times', '0'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^hark: invalid setting agents\.greeter\.times \(from --agents-greeter-times\): /)
  })
})

describe('registering isolated providers', () => {
  it('an isolated provider without a module is a startup error saying what to do', async () => {
    const inline = { ...echoAgent, name: 'inline', module: null, isolate: true }
    const failed = await startTestEngine({ extensions: [inline] }).then(
      (t) => (stops.push(() => t.stop()), null),
      (e: Error) => e,
    )
    expect(failed?.message).toBe(
      "agent provider inline runs in a provider worker, which needs its module: defineAgentProvider('inline', { module: import.meta.url, … }), or isolate: false to run it in the engine's thread",
    )
  })

  it.each([
    ['missing', 'nowhere', 'no such file'],
    ['a default export that is not a provider', 'notProvider', 'its default export is not an agent provider (export default defineAgentProvider(name, …))'],
    ['throws on import', 'throwsOnImport', 'throws on import: cannot initialise: no licence'],
  ])('a module %s is a one-line startup error naming its path', async (_what, name, reason) => {
    const path = fixture(name)
    const failed = await startTestEngine({}, { env: { HARK_AGENTS_PROVIDER_MODULES: path } }).then(
      (t) => (stops.push(() => t.stop()), null),
      (e: Error) => e,
    )
    expect(failed?.message).toBe(
      `invalid setting agents.providerModules (from HARK_AGENTS_PROVIDER_MODULES): provider module ${path}: ${reason}`,
    )
  })

  it('hark start with a bad module exits 2 with that one line (the flag --agents-provider-modules)', async () => {
    const dir = tempDir()
    stops.push(async () => dir.remove())
    const path = fixture('notProvider')
    const r = await runCli(['start', '--data', dir.path, '--rest-port', '0', '--agents-provider-modules', path])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toEqual([
      `hark: invalid setting agents.providerModules (from --agents-provider-modules): provider module ${path}: its default export is not an agent provider (export default defineAgentProvider(name, …))`,
    ])
  })
})
