/**
 * Hark as a bench subject: the operator CLI (`hark … --json`) to seed a data dir, a bulk seeder
 * for many clients and tokens, and `hark start` as its own process pinned to the server core,
 * ready once /healthz answers 200.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SetupContext } from '../scenario.js'
import { delay, within } from './clock.js'
import { freePorts } from './ports.js'
import { heapSnapshotArgs, heapSnapshotDir } from './heapSnapshot.js'
import { benchModule, harkBin, repoRoot } from './paths.js'
import type { ManagedProcess, ProcessGroup } from './processes.js'

/** Run `hark <args> --data DIR --json` to completion; returns the JSON value it printed. */
export const harkCli = async (
  group: ProcessGroup,
  args: readonly string[],
  opts: { dataDir: string; logFile: string; timeoutMs?: number },
): Promise<unknown> => {
  const p = group.spawn({
    name: `hark ${args.slice(0, 2).join(' ')}`,
    command: process.execPath,
    args: [harkBin, ...args, '--data', opts.dataDir, '--json'],
    cwd: repoRoot,
    logFile: opts.logFile,
    captureStdout: true,
  })
  let out = ''
  p.child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s))
  const timeoutMs = opts.timeoutMs ?? 30_000
  const exit = await within(p.exited, timeoutMs)
  if (!exit) {
    await p.stop()
    throw new Error(`hark ${args.join(' ')} took more than ${timeoutMs} ms`)
  }
  if (exit.code !== 0) throw new Error(`hark ${args.join(' ')} exited ${exit.code ?? exit.signal}; see ${opts.logFile}`)
  return JSON.parse(out)
}

export interface SeededClient {
  readonly clientId: string
  readonly room: string | null
  readonly tokens: readonly string[]
}

export interface HarkSeed {
  readonly dataDir: string
  readonly workspaceId: string
  readonly apiKey: string
  readonly clients: readonly SeededClient[]
}

/**
 * `clientOf` for roomMembers: member i is seeded client i with its first token (the seed must hold
 * at least as many clients as the load connects).
 */
export const seededClient = (seed: HarkSeed) => (i: number) => {
  const c = seed.clients[i]
  if (!c) throw new Error(`the load needs more than the ${seed.clients.length} seeded clients`)
  return { clientId: c.clientId, room: c.room!, credential: c.tokens[0]! }
}

/**
 * A data dir with one workspace and an API key (through the CLI), then `clients` clients and
 * their tokens in bulk (bench/workers/seedHark.ts: the same storage and token calls the CLI
 * makes, in one process instead of one process per client). `roomSize` > 0 maps clients to rooms
 * room-0001, room-0002 … of that size.
 */
export const seedHark = async (
  ctx: Pick<SetupContext, 'procs' | 'logFile' | 'phase'>,
  opts: { dataDir: string; clients: number; tokensPerClient: number; roomSize: number },
): Promise<HarkSeed> => {
  const log = ctx.logFile('hark-seed')
  ctx.phase('seeding Hark: workspace')
  const ws = (await harkCli(ctx.procs, ['workspace', 'create', 'bench'], { dataDir: opts.dataDir, logFile: log })) as {
    workspaceId: string
  }
  const key = (await harkCli(ctx.procs, ['apikey', 'create', '--workspace', ws.workspaceId], {
    dataDir: opts.dataDir,
    logFile: log,
  })) as { apiKey: string }
  const apiKey = key.apiKey
  ctx.phase(`seeding Hark: ${opts.clients} clients × ${opts.tokensPerClient} tokens`)
  const outFile = join(opts.dataDir, 'bench-seed.json')
  const p = ctx.procs.spawn({
    name: 'seed',
    command: process.execPath,
    args: [
      benchModule('workers/seedHark'),
      '--data', opts.dataDir,
      '--workspace', ws.workspaceId,
      '--clients', String(opts.clients),
      '--tokens-per-client', String(opts.tokensPerClient),
      '--room-size', String(opts.roomSize),
      '--out', outFile,
    ],
    cwd: repoRoot,
    logFile: log,
  })
  const exit = await within(p.exited, 120_000)
  if (!exit) {
    await p.stop()
    throw new Error('seeding took more than 120 s')
  }
  if (exit.code !== 0) throw new Error(`seeding failed (exit ${exit.code ?? exit.signal}); see ${log}`)
  const seeded = JSON.parse(readFileSync(outFile, 'utf8')) as { clients: SeededClient[] }
  return { dataDir: opts.dataDir, workspaceId: ws.workspaceId, apiKey, clients: seeded.clients }
}

export interface HarkInstance {
  readonly proc: ManagedProcess
  readonly ports: { readonly rest: number; readonly gateway: number; readonly mqtt: number }
  readonly restUrl: string
}

export interface StartHarkOptions {
  readonly dataDir: string
  readonly cpus: readonly number[] | null
  readonly name?: string
  readonly readyTimeoutMs?: number
  /** More `hark start` flags, e.g. ['--rest-rate-limit-max', '1000000000'] for REST loads. */
  readonly extraArgs?: readonly string[]
  /** These ports instead of free ones (e.g. the same Hark started again: the reconnect scenario). */
  readonly ports?: HarkInstance['ports']
}

/** `hark start` on free 127.0.0.1 ports, pinned to `cpus`; resolves once /healthz says 200. */
export const startHark = async (ctx: Pick<SetupContext, 'procs' | 'logFile' | 'phase' | 'signal'>, opts: StartHarkOptions): Promise<HarkInstance> => {
  const started = await spawnHark(ctx, opts)
  await started.healthy
  return started.instance
}

/**
 * `hark start` as startHark does it, without waiting: the process at once (its PID, e.g. to read
 * its CPU from the moment it listens), and `healthy`, which settles as startHark would.
 */
export const spawnHark = async (
  ctx: Pick<SetupContext, 'procs' | 'logFile' | 'phase' | 'signal'>,
  opts: StartHarkOptions,
): Promise<{ instance: HarkInstance; healthy: Promise<void> }> => {
  const [rest, gateway, mqtt] = opts.ports ? [opts.ports.rest, opts.ports.gateway, opts.ports.mqtt] : ((await freePorts(3)) as [number, number, number])
  const name = opts.name ?? 'hark'
  ctx.phase(`starting ${name}`)
  const proc = ctx.procs.spawn({
    name,
    command: process.execPath,
    args: [
      // e.g. HARK_BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile Hark under a scenario.
      ...(process.env.HARK_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      // HARK_BENCH_HEAP_SNAPSHOT=DIR: a heap snapshot on SIGUSR2 (harness/heapSnapshot.ts).
      ...(heapSnapshotDir() ? heapSnapshotArgs(heapSnapshotDir()!) : []),
      harkBin, 'start', '--data', opts.dataDir, '--host', '127.0.0.1',
      '--rest-port', String(rest), '--gateway-port', String(gateway), '--mqtt-port', String(mqtt),
      // The web console is not under test: it stays off (and off any port another process holds).
      '--console-enabled', 'false', '--log-level', 'warn', ...(opts.extraArgs ?? []),
    ],
    cpus: opts.cpus,
    cwd: repoRoot,
    logFile: ctx.logFile(name),
  })
  const restUrl = `http://127.0.0.1:${rest}`
  const timeoutMs = opts.readyTimeoutMs ?? 30_000
  const healthy = (async () => {
    const deadline = Date.now() + timeoutMs
    // Bounded poll: one try per 50 ms until the deadline.
    for (let i = 0; i < Math.ceil(timeoutMs / 50) && Date.now() < deadline; i++) {
      if (proc.hasExited) throw new Error(`${name} exited during start; see ${ctx.logFile(name)}`)
      if (ctx.signal.aborted) throw new Error('aborted')
      try {
        const r = await fetch(`${restUrl}/healthz`, { signal: AbortSignal.timeout(1000) })
        if (r.status === 200) return
      } catch {
        // not listening yet
      }
      await delay(50, ctx.signal)
    }
    throw new Error(`${name} was not healthy within ${timeoutMs} ms; see ${ctx.logFile(name)}`)
  })()
  // Whoever awaits it sees the failure; an unawaited one must not crash the runner.
  healthy.catch(() => {})
  return { instance: { proc, ports: { rest, gateway, mqtt }, restUrl }, healthy }
}
