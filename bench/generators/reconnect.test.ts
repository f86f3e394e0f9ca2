/**
 * The reconnect load: its figures and its `reconnect` line (pure), then the whole chain on real
 * loopback sockets — the native generator's terminals in the bare uWS + jose peer (a seeded
 * Hark data dir: the tokens Hark issues), the peer restarted on the same port under them, every
 * terminal back by itself; and the peer refusing a token that is not the client's.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadTls, type TlsMaterial } from '../../core/tls.js'
import { planCores } from '../harness/cores.js'
import { seedHark, type HarkSeed } from '../harness/hark.js'
import { benchModule } from '../harness/paths.js'
import { freePort } from '../harness/ports.js'
import { ProcessGroup } from '../harness/processes.js'
import { startWorker } from '../harness/worker.js'
import type { MeasureContext } from '../scenario.js'
import { protocols } from './generator.js'
import { reconnectLine } from './native.js'
import { cpuAt, FLEET_BACKOFF, parseBackoff, reconnectFigures, runReconnect } from './reconnect.js'

describe('reconnectFigures', () => {
  const base = { terminals: 4, back: 4, listenUs: 1_000_000, lastBackUs: 3_000_000, endUs: 3_010_000, serverCpuSeconds: 0.5 }

  it('times the last terminal back from the instant the server listened', () => {
    const f = reconnectFigures(base)
    expect(f).toEqual({ allBack: true, allBackMs: 2000, perSecond: 2, perServerCpuSecond: 8 })
  })

  it('counts to the end of the phase when some never came back', () => {
    const f = reconnectFigures({ ...base, back: 3, endUs: 5_000_000 })
    expect(f.allBack).toBe(false)
    expect(f.allBackMs).toBe(4000)
    expect(f.perSecond).toBe(0.75)
    expect(f.perServerCpuSecond).toBe(6)
  })

  it('never divides by zero', () => {
    const f = reconnectFigures({ ...base, lastBackUs: base.listenUs - 10, serverCpuSeconds: 0 })
    expect(f.allBackMs).toBeGreaterThan(0)
    expect(Number.isFinite(f.perSecond)).toBe(true)
    expect(f.perServerCpuSecond).toBeNull()
  })

  it('refuses counts that are not counts', () => {
    expect(() => reconnectFigures({ ...base, back: 5 })).toThrow(/5 back of 4/)
    expect(() => reconnectFigures({ ...base, terminals: 0, back: 0 })).toThrow(/not a count/)
    expect(() => reconnectFigures({ ...base, endUs: 0 })).toThrow(/before the server listened/)
  })
})

describe('parseBackoff', () => {
  it('defaults to the fleet backoff and reads FIRST,MAX[,ATTEMPT]', () => {
    expect(parseBackoff(undefined)).toBe(FLEET_BACKOFF)
    expect(parseBackoff(' ')).toBe(FLEET_BACKOFF)
    expect(parseBackoff('250,30000')).toEqual({ firstMs: 250, maxMs: 30_000, attemptMs: FLEET_BACKOFF.attemptMs })
    expect(parseBackoff('0, 500, 2000')).toEqual({ firstMs: 0, maxMs: 500, attemptMs: 2000 })
  })

  it('names the variable when the text is wrong', () => {
    for (const bad of ['250', '500,100', 'a,b', '1,2,3,4', '-1,10', '1,2,0']) {
      expect(() => parseBackoff(bad)).toThrow(/HARK_BENCH_RECONNECT_BACKOFF/)
    }
  })
})

describe('cpuAt', () => {
  it('takes the last sample at or before the instant, else the first', () => {
    const samples: [number, number][] = [
      [100, 1.0],
      [200, 1.5],
      [300, 2.0],
    ]
    expect(cpuAt(samples, 250)).toBe(1.5)
    expect(cpuAt(samples, 300)).toBe(2.0)
    expect(cpuAt(samples, 50)).toBe(1.0)
    expect(() => cpuAt([], 1)).toThrow(/no CPU sample/)
  })
})

describe('reconnectLine', () => {
  it('writes the backoff and the deadline for the native generator', () => {
    expect(reconnectLine({ firstMs: 250, maxMs: 1000, attemptMs: 15_000, deadlineMs: 120_000 })).toBe('reconnect 250 1000 15000 120000\n')
  })

  it('refuses a backoff that cannot be', () => {
    expect(() => reconnectLine({ firstMs: 500, maxMs: 100, attemptMs: 1, deadlineMs: 1 })).toThrow(/firstMs ≤ maxMs/)
    expect(() => reconnectLine({ firstMs: -1, maxMs: 100, attemptMs: 1, deadlineMs: 1 })).toThrow(/reconnect/)
    expect(() => reconnectLine({ firstMs: 0, maxMs: 100, attemptMs: 0, deadlineMs: 1 })).toThrow(/attemptMs ≥ 1/)
    expect(() => reconnectLine({ firstMs: 0, maxMs: Number.NaN, attemptMs: 1, deadlineMs: 1 })).toThrow(/reconnect/)
  })
})

describe('reconnect through the uWS + jose peer', () => {
  let dir = ''
  let seed: HarkSeed
  let tls: TlsMaterial
  const procs = new ProcessGroup()
  const logFile = (name: string) => join(dir, `${name.replace(/\W+/g, '-')}.log`)

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hark-reconnect-'))
    const setup = { procs, logFile, phase: () => {} }
    seed = await seedHark(setup, { dataDir: join(dir, 'hark-data'), clients: 8, tokensPerClient: 1, roomSize: 4 })
    tls = await loadTls({ certFile: null, keyFile: null, dataDir: dir, host: '127.0.0.1' })
  }, 120_000)

  afterAll(async () => {
    await procs.stopAll()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const startPeerOn = (port: number, name: string) => {
    const handle = startWorker(procs, {
      name,
      module: benchModule('peers/uwsJose'),
      args: ['--port', String(port), '--cert', tls.certFile, '--key', tls.keyFile, '--data', seed.dataDir, '--workspace', seed.workspaceId],
      logFile: logFile(name),
    })
    return { proc: handle.proc, ready: handle.next('ready', 30_000) }
  }

  it('refuses a token of another client with 401, admits the client\'s own', async () => {
    const port = await freePort()
    const peer = startPeerOn(port, 'uws-jose-auth')
    await peer.ready
    const open = (client: number, token: number) =>
      new Promise<number>((resolve) => {
        const c = seed.clients[client]!
        const url = `wss://127.0.0.1:${port}/v1/connect?room=${c.room}&client=${c.clientId}&token=${seed.clients[token]!.tokens[0]}`
        const ws = new WebSocket(url, { rejectUnauthorized: false })
        ws.once('open', () => {
          ws.close()
          resolve(101)
        })
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
        ws.once('error', () => {})
      })
    expect(await open(0, 0)).toBe(101)
    expect(await open(0, 1)).toBe(401)
    await peer.proc.stop()
  }, 60_000)

  it('brings every terminal back after the peer restarts on the same port', async () => {
    const port = await freePort()
    const first = startPeerOn(port, 'uws-jose')
    await first.ready
    const ctx: MeasureContext = {
      quick: true,
      load: 8,
      sweep: false,
      cores: planCores([0], false),
      dir,
      procs,
      signal: new AbortController().signal,
      logFile,
      phase: () => {},
      round: 1,
      sweepStep: false,
      generator: 'native',
      warmupMs: 0,
      durationMs: 0,
      generatorProcesses: 1,
    }
    const members = seed.clients.map((c, index) => ({ index, clientId: c.clientId, room: c.room!, talker: false, credential: c.tokens[0]! }))
    const m = await runReconnect(ctx, {
      protocol: protocols.wsPubSub,
      target: { host: '127.0.0.1', port, options: { tls: true, path: '/v1/connect' } },
      members,
      server: first.proc,
      restart: async () => startPeerOn(port, 'uws-jose-again'),
      listenPort: port,
      deadlineMs: 30_000,
    })
    expect(m.extra.terminals).toBe(8)
    expect(m.extra.back).toBe(8)
    expect(m.extra.notBack).toBe(0)
    expect(m.extra.drops).toBe(8)
    expect(m.extra.failedAttempts).toBe(0)
    expect(m.extra.timedOutAttempts).toBe(0)
    expect(m.extra.resetAttempts! + m.extra.closedAttempts! + m.extra.rejectedAttempts!).toBe(0)
    expect(m.extra.listenPollLagMs).toBeGreaterThanOrEqual(0)
    expect(m.extra.attempts).toBeGreaterThanOrEqual(8)
    expect(m.deliveryRatio).toBe(1)
    expect(m.latency).not.toBeNull()
    expect(m.extra.allBackMs).toBeGreaterThan(0)
    expect(m.value).toBeCloseTo(8 / (m.extra.allBackMs! / 1000), 6)
  }, 90_000)
})
