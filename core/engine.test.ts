import { join } from 'node:path'
import { Writable } from 'node:stream'
import { Schema } from 'effect'
import { describe, expect, it } from 'vitest'
import { definePlugin, defineTransport, defineAgentProvider, type Engine, type EngineHost } from './index.js'
import { createLogger } from './log.js'
import { cliJson, createTestEngine, RecordingLink, seedWorkspace, startTestEngine, tempDir } from './test/helpers.js'

describe('embedding the engine', () => {
  it('registers an embedder plugin, transport and agent provider by name, like built-ins', async () => {
    const calls: string[] = []
    let hostSeen: EngineHost | undefined
    const greeter = definePlugin('greeter', (host) => {
      hostSeen = host
      return {
        register: (app) => {
          app.get('/hello', async () => ({ hello: host.settings.host, transports: host.names('transport') }))
        },
        start: () => void calls.push('plugin start'),
        stop: () => void calls.push('plugin stop'),
      }
    })
    const loop = defineTransport('loopback', (host) => ({
      start: async () => {
        calls.push('transport start')
        host.listening('loopback', 1234)
      },
      stop: async () => void calls.push('transport stop'),
    }))
    const parrot = defineAgentProvider('parrot', () => ({
      description: 'repeats',
      configSchema: Schema.Struct({}),
      start: (ctx) => ({ onAudio: (pcm: Int16Array) => ctx.audio.push(pcm) }),
    }))
    const t = await startTestEngine({ extensions: [greeter, loop, parrot] })
    try {
      const res = await fetch(t.url('/hello'))
      expect(await res.json()).toEqual({ hello: '127.0.0.1', transports: ['loopback'] })
      expect(t.engine.ports.loopback).toBe(1234)
      expect(hostSeen?.names('agentProvider')).toEqual(['parrot'])
      expect(hostSeen?.resolve<{ description: string }>('agentProvider', 'parrot').description).toBe('repeats')
      expect(() => hostSeen?.resolve('transport', 'nope')).toThrow(/no transport named "nope"/)
    } finally {
      await t.stop()
    }
    expect(calls).toEqual(['transport start', 'plugin start', 'plugin stop', 'transport stop'])
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
  it('applies an API key revocation made by the CLI within a second', async () => {
    const t = await startTestEngine()
    try {
      const seed = seedWorkspace(t.engine)
      expect(t.engine.host.security.apiKeys.authenticate(`Bearer ${seed.apiKey}`).workspaceId).toBe(seed.workspaceId)
      const heard = new Promise<string>((resolve) =>
        t.engine.host.storage.onChange((c) => c.kind === 'apikey.revoked' && resolve(c.subject!)),
      )
      await cliJson(['apikey', 'revoke', seed.keyId, '--workspace', seed.workspaceId, '--data', t.dir])
      // The engine polls the shared file every storage.changePollMs (<= 1000 ms by schema).
      expect(await heard).toBe(seed.keyId)
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
