/**
 * churn-memory: what a server keeps after terminals come and go. Each cycle connects a WSS
 * terminal (hears `session`, closes) and then an MQTT device (hears CONNACK, DISCONNECT), each a
 * distinct seeded client in its own room; `lanes` cycles run at a time. The server runs in a
 * process with --expose-gc (workers/churnServer.ts) and, asked over IPC, collects garbage fully
 * before it reports: RSS and V8 heap at the baseline (after a warm-up churn), after a third of the
 * load, after all of it, and after an idle wait. Headline: RSS after the idle wait minus the
 * baseline, MB. The peer (peers/churnPeer.ts: bare uWS SSLApp + a TCP listener answering CONNACK,
 * keeping nothing) goes through the same churn, so what its RSS does is Node's, OpenSSL's and
 * glibc's part; Hark's heap figure is Hark's own. MALLOC_ARENA_MAX=2 in the environment reaches
 * both servers (issue 33 item 5: what glibc keeps).
 */
import { join } from 'node:path'
import { loadTls, type TlsMaterial } from '../../core/tls.js'
import { delay } from '../harness/clock.js'
import { generatorCpus, serverCpus } from '../harness/cores.js'
import { seedHark, type HarkSeed } from '../harness/hark.js'
import { heapSnapshotDir } from '../harness/heapSnapshot.js'
import { measurement } from '../harness/measurement.js'
import { benchModule } from '../harness/paths.js'
import { freePorts } from '../harness/ports.js'
import { cpuPercent, readCpuSeconds, readMachineStat } from '../harness/proc.js'
import { machineShares } from '../harness/window.js'
import { startWorker, type WorkerHandle, type WorkerMessage } from '../harness/worker.js'
import { defineScenario, type ComparedSide, type MeasureContext, type Measurement } from '../scenario.js'

interface Fixture {
  readonly tls: TlsMaterial
  readonly seed: HarkSeed
}

const LOAD = { quick: 300, full: 30_000 }
/** Cycles before the baseline: JIT, lazily loaded modules, V8's young generation sized by the first burst. */
const WARMUP_CYCLES = { quick: 100, full: 300 }
const LANES = 8
/**
 * The runner's timing, read as this scenario's phases: the idle wait after the churn is the
 * measured window (`durationMs`), and `warmupMs` is the time budget of the churn itself (a run may
 * take warm-up + window + 180 s): ~100 cycles/s on the project machine, so 30k cycles ≈ 5 min.
 */
const TIMING = { quick: { warmupMs: 120_000, durationMs: 3000 }, full: { warmupMs: 15 * 60_000, durationMs: 20_000 } }
const MB = 1024 * 1024

interface Memory extends WorkerMessage {
  readonly type: 'memory'
  readonly rssBeforeGcBytes: number
  readonly rssBytes: number
  readonly heapUsedBytes: number
  readonly externalBytes: number
  readonly timeouts: number
  readonly tcpHandles: number
}

interface Churned extends WorkerMessage {
  readonly type: 'churned'
  readonly ok: number
  readonly failed: number
  readonly firstError: string | null
  readonly ms: number
}

/** The points memory is read at: after the warm-up, after each stage, after the idle wait. */
const POINTS = ['baseline', 'third', 'all', 'idle'] as const

const run = async (ctx: MeasureContext, f: Fixture, side: 'hark' | 'peer'): Promise<Measurement> => {
  const ports = await freePorts(3)
  ctx.phase(`starting ${side}`)
  const server = startWorker(ctx.procs, {
    name: `churn-${side}`,
    module: benchModule('workers/churnServer'),
    nodeArgs: ['--expose-gc'],
    args:
      side === 'hark'
        ? ['--side', 'hark', '--data', f.seed.dataDir, '--ports', ports.join(',')]
        : ['--side', 'peer', '--ports', ports.slice(1).join(','), '--cert', f.tls.certFile, '--key', f.tls.keyFile],
    cpus: serverCpus(ctx.cores),
    logFile: ctx.logFile(`churn-${side}`),
  })
  const ready = await server.next<{ type: 'ready'; gateway: number; mqtt: number }>('ready', 60_000)
  const load: WorkerHandle = startWorker(ctx.procs, {
    name: 'churn-clients',
    module: benchModule('workers/churnClients'),
    cpus: generatorCpus(ctx.cores),
    logFile: ctx.logFile('churn-clients'),
  })
  const clients = f.seed.clients.map((c) => ({ clientId: c.clientId, token: c.tokens[0]! }))
  load.send({ type: 'init', clients, gateway: ready.gateway, mqtt: ready.mqtt })
  await load.next('ready', 30_000)

  const churn = async (from: number, to: number): Promise<Churned> => {
    ctx.phase(`${side}: churn cycles ${from}–${to}`)
    load.send({ type: 'churn', from, to, lanes: LANES })
    // Bounded by the churn's budget (the run's own limit is that plus the idle wait and 180 s).
    const done = await load.next<Churned>('churned', ctx.warmupMs)
    if (done.failed > 0) throw new Error(`${done.failed} of ${to - from} cycles failed: ${done.firstError}`)
    return done
  }
  const snapshots = heapSnapshotDir()
  const read = async (point: (typeof POINTS)[number]): Promise<Memory> => {
    server.send({ type: 'measure' })
    const m = await server.next<Memory>('memory', 60_000)
    if (snapshots !== null && side === 'hark' && (point === 'baseline' || point === 'idle')) {
      server.send({ type: 'snapshot', file: join(snapshots, `churn-${point}-${Date.now()}.heapsnapshot`) })
      process.stderr.write(`bench: heap snapshot (${point}): ${(await server.next<{ type: 'snapshot'; file: string }>('snapshot', 300_000)).file}\n`)
    }
    return m
  }

  const warmup = WARMUP_CYCLES[ctx.quick ? 'quick' : 'full']
  await churn(0, warmup)
  const memory: Record<string, Memory> = { baseline: await read('baseline') }
  const third = warmup + Math.round(ctx.load / 3)
  const all = warmup + ctx.load
  const cpu0 = readCpuSeconds(server.proc.pid) ?? 0
  const gen0 = readCpuSeconds(load.proc.pid) ?? 0
  const stat0 = readMachineStat()
  const first = await churn(warmup, third)
  memory.third = await read('third')
  const second = await churn(third, all)
  const cpuSeconds = (readCpuSeconds(server.proc.pid) ?? cpu0) - cpu0
  const genSeconds = (readCpuSeconds(load.proc.pid) ?? gen0) - gen0
  const churnSeconds = (first.ms + second.ms) / 1000
  const stat1 = readMachineStat()
  memory.all = await read('all')
  ctx.phase(`${side}: idle ${ctx.durationMs / 1000} s`)
  await delay(ctx.durationMs, ctx.signal)
  memory.idle = await read('idle')

  const base = memory.baseline!
  const idle = memory.idle!
  const extra: Record<string, number> = { cycles: ctx.load, cyclesPerSecond: ctx.load / churnSeconds }
  for (const point of POINTS) {
    extra[`${point}RssBeforeGcMB`] = memory[point]!.rssBeforeGcBytes / MB
    extra[`${point}RssMB`] = memory[point]!.rssBytes / MB
    extra[`${point}HeapMB`] = memory[point]!.heapUsedBytes / MB
    extra[`${point}ExternalMB`] = memory[point]!.externalBytes / MB
    extra[`${point}Timeouts`] = memory[point]!.timeouts
    extra[`${point}TcpHandles`] = memory[point]!.tcpHandles
  }
  const processes = [
    { pid: server.proc.pid, cpuPercent: cpuPercent(cpuSeconds, churnSeconds), rssBytes: idle.rssBytes, rssPeakBytes: memory.all!.rssBytes, syscalls: null },
    { pid: load.proc.pid, cpuPercent: cpuPercent(genSeconds, churnSeconds), rssBytes: 0, rssPeakBytes: 0, syscalls: null },
  ]
  const ours = processes.reduce((s, p) => s + p.cpuPercent, 0)
  return measurement({
    value: (idle.rssBytes - base.rssBytes) / MB,
    histogram: null,
    window: { seconds: churnSeconds, processes, ...machineShares(stat0, stat1, churnSeconds, ours) },
    serverPids: [server.proc.pid],
    generatorPids: [load.proc.pid],
    generatorKind: 'node',
    cores: ctx.cores,
    extra,
  })
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** One line per side: RSS and heap at each point (medians over its runs), and timers left. */
const figures = (sides: ReadonlyArray<ComparedSide>): string[] =>
  sides.flatMap((side) => {
    const runs = side.runs.flatMap((r) => (r.measurement ? [r.measurement.extra] : []))
    if (runs.length === 0) return []
    const at = (key: string) => median(runs.map((e) => e[key] ?? Number.NaN))
    const cycles = at('cycles')
    const path = (unit: string) => POINTS.map((p) => at(`${p}${unit}`).toFixed(1)).join(' → ')
    return [
      `${side.name}: RSS MB ${path('RssMB')} (before the GC: ${path('RssBeforeGcMB')}); heap MB ${path('HeapMB')}; external MB ${path('ExternalMB')} (baseline, ${Math.round(cycles / 3)} cycles, ${cycles} cycles, idle)` +
        `; timers ${at('baselineTimeouts')} → ${at('idleTimeouts')}, TCP handles ${at('baselineTcpHandles')} → ${at('idleTcpHandles')}`,
    ]
  })

export default defineScenario<Fixture>({
  name: 'churn-memory',
  description: 'MB of server RSS kept after N WSS + MQTT connect/disconnect cycles and an idle wait (after a full GC)',
  unit: 'MB kept',
  higherIsBetter: false,
  load: { ...LOAD, unit: 'cycles' },
  timing: TIMING,
  setup: async (ctx) => {
    const tls = await loadTls({ certFile: null, keyFile: null, dataDir: ctx.dir, host: '127.0.0.1' })
    const clients = Math.max(ctx.quick ? LOAD.quick : LOAD.full, ctx.load) + WARMUP_CYCLES[ctx.quick ? 'quick' : 'full']
    // Rooms of one: every cycle opens a room actor and closes it.
    const seed = await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients, tokensPerClient: 1, roomSize: 1 })
    return { tls, seed }
  },
  hark: {
    name: 'hark',
    label: 'Hark (default engine config): WSS gateway + MQTT transport, sessions, rooms, usage',
    measure: (ctx, f) => run(ctx, f, 'hark'),
  },
  peers: [
    {
      name: 'peer',
      label: 'bare uWebSockets.js 20.30 SSLApp + plain TCP CONNACK listener (keeps nothing)',
      measure: (ctx, f) => run(ctx, f, 'peer'),
    },
  ],
  compare: figures,
})
