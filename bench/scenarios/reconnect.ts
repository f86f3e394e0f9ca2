/**
 * reconnect: N connected terminals, the server restarted under them (SIGTERM, its exit, started
 * again on the same ports and data dir), and the time from the new process listening until all
 * are back in their rooms — each terminal on its own backoff, the contract of spec/cluster.md
 * (first attempt after a random delay in [0, 250 ms], the bound doubling per failed attempt, full
 * jitter; capped at 1 s rather than 30 s so the figure is the server's, not the outage's: no lanes,
 * a fleet, not a connection pool). Headline: terminals back per
 * second (N ÷ time to the last one back); per server CPU-second it is N ÷ the new server's CPU
 * over that time. Hark's side: WSS terminals (token verified before the upgrade, session in its
 * room, `session` event); beside it the bare uWS peer that verifies the same JWT with jose 6 in an
 * async upgrade and subscribes the socket to its room (peers/uwsJose.ts), and Hark's MQTT devices
 * (CONNECT with the token, `session` event on down/events) at the same N.
 * Every side runs generators/reconnect.ts on the native generator (bench/native).
 */
import { protocols } from '../generators/generator.js'
import { runReconnect, type RestartedServer } from '../generators/reconnect.js'
import { roomMembers } from '../generators/rooms.js'
import { serverCpus } from '../harness/cores.js'
import { benchModule } from '../harness/paths.js'
import { freePort } from '../harness/ports.js'
import { seededClient, spawnHark, startHark, type HarkInstance } from '../harness/hark.js'
import { startWorker } from '../harness/worker.js'
import { median } from '../harness/stats.js'
import { defineScenario, type ComparedSide, type MeasureContext, type Measurement } from '../scenario.js'
import { ROOM_SIZE, setupWsTerminals, type WsTerminalsFixture } from './wsTerminals.js'

const LOAD = { quick: 200, full: 10_000 }

const members = (f: WsTerminalsFixture, count: number) =>
  roomMembers({ rooms: Math.ceil(count / ROOM_SIZE), roomSize: ROOM_SIZE, talkersPerRoom: 0, clientOf: seededClient(f.seed) }).slice(0, count)

/** Hark on the server core; the same data dir and ports when started again. */
const harkSide = async (ctx: MeasureContext, f: WsTerminalsFixture, transport: 'wss' | 'mqtt'): Promise<Measurement> => {
  const cpus = serverCpus(ctx.cores)
  const first: HarkInstance = await startHark(ctx, { dataDir: f.seed.dataDir, cpus })
  const port = transport === 'wss' ? first.ports.gateway : first.ports.mqtt
  return runReconnect(ctx, {
    protocol: transport === 'wss' ? protocols.harkWs : protocols.rawMqtt,
    target: { host: '127.0.0.1', port, options: transport === 'wss' ? {} : { scheme: 'hark' } },
    members: members(f, ctx.load),
    server: first.proc,
    restart: async (): Promise<RestartedServer> => {
      const again = await spawnHark(ctx, { dataDir: f.seed.dataDir, cpus, ports: first.ports, name: 'hark-restarted' })
      return { proc: again.instance.proc, ready: again.healthy }
    },
    listenPort: port,
  })
}

/** The uWS + jose peer on a free port, pinned like Hark; started again on the same port. */
const uwsJoseSide = async (ctx: MeasureContext, f: WsTerminalsFixture): Promise<Measurement> => {
  const port = await freePort()
  const start = (name: string) => {
    ctx.phase(`starting ${name}`)
    const handle = startWorker(ctx.procs, {
      name,
      module: benchModule('peers/uwsJose'),
      args: ['--port', String(port), '--cert', f.tls.certFile, '--key', f.tls.keyFile, '--data', f.seed.dataDir, '--workspace', f.seed.workspaceId],
      cpus: serverCpus(ctx.cores),
      logFile: ctx.logFile(name),
    })
    return { proc: handle.proc, ready: handle.next('ready', 30_000) }
  }
  const first = start('uws-jose')
  await first.ready
  return runReconnect(ctx, {
    protocol: protocols.wsPubSub,
    target: { host: '127.0.0.1', port, options: { tls: true, path: '/v1/connect' } },
    members: members(f, ctx.load),
    server: first.proc,
    restart: async () => start('uws-jose-restarted'),
    listenPort: port,
  })
}

/** One line per side: the medians of what the table leaves out. */
const compareSides = (sides: ReadonlyArray<ComparedSide>): string[] =>
  sides.flatMap((s) => {
    const runs = s.runs.flatMap((r) => (r.measurement ? [r.measurement.extra] : []))
    if (runs.length === 0) return []
    const m = (k: string) => median(runs.map((e) => e[k] ?? 0)) ?? 0
    const n = (v: number) => Math.round(v).toLocaleString('en-US')
    return [
      `${s.name}: ${n(m('back'))} of ${n(m('terminals'))} back in ${(m('allBackMs') / 1000).toFixed(2)} s after listening ` +
        `(first ${m('firstBackMs').toFixed(0)} ms), server ${m('serverCpuSeconds').toFixed(2)} CPU-s = ${n(m('backPerServerCpuSecond'))} per CPU-s; ` +
        `${n(m('attempts'))} attempts (${n(m('refusedAttempts'))} refused before listening, ${n(m('failedAttempts'))} failed at the server: ` +
        `${n(m('timedOutAttempts'))} timed out, ${n(m('resetAttempts'))} reset, ${n(m('closedAttempts'))} closed, ${n(m('rejectedAttempts'))} rejected), ` +
        `shutdown ${n(m('shutdownMs'))} ms, start to listening ${n(m('startupMs'))} ms` +
        (runs.length > 1 ? ` (medians of ${runs.length} runs)` : ''),
    ]
  })

export default defineScenario<WsTerminalsFixture>({
  name: 'reconnect',
  description: 'terminals back in their rooms per second after a server restart (from listening to the last one back; fleet backoff)',
  unit: 'reconnects/s',
  higherIsBetter: true,
  load: { ...LOAD, unit: 'terminals' },
  goal: {
    value: LOAD.full / 7,
    perCpuRatios: { 'uws-jose': 0.5 },
    text: '10k WSS terminals back in ≤ 7 s on one server core (≥ 1.43k/s), or ≥ 0.5× the jose-verifying uWS peer per server CPU-second',
  },
  setup: (ctx) => setupWsTerminals(ctx, LOAD),
  hark: {
    name: 'hark',
    label: 'Hark WebSocket gateway restarted (token verified before the upgrade, session in its room)',
    measure: (ctx, f) => harkSide(ctx, f, 'wss'),
  },
  compare: compareSides,
  peers: [
    {
      name: 'uws-jose',
      label: 'bare uWebSockets.js 20.30 SSLApp restarted: jose 6 jwtVerify (HS256) in an async upgrade, subscribe to the room topic',
      measure: uwsJoseSide,
    },
    {
      name: 'hark-mqtt',
      label: 'Hark MQTT transport restarted (devices: CONNECT with the token, session event on down/events), same N',
      measure: (ctx, f) => harkSide(ctx, f, 'mqtt'),
    },
  ],
})
