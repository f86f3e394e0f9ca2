/**
 * The two room-load generators side by side: the same room load (rooms of 4, all talking at 50
 * frames/s, ~100 B) against the same kind of server, driven A B A B by the Node generator and the
 * native one, each run on a fresh server. Prints what each generator sent and received per second
 * and per second of its own CPU (messages = frames sent + frames received), the server's CPU,
 * latency and delivery, and the machine's load average — to show which generator can keep a
 * server core busy.
 *
 *   node dist/bench/generatorCost.js [--talkers 400] [--seconds 5] [--rounds 2] [--targets uws,mosquitto]
 *
 * Targets: uws (bare uWS pub/sub over WSS), mosquitto (MQTT room topic), hark-ws and hark-mqtt
 * (a seeded Hark over WSS or MQTT).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadTls } from '../core/tls.js'
import { protocols, type ProtocolChoice } from './generators/generator.js'
import { roomMembers, runRoomLoad } from './generators/rooms.js'
import type { RoomMember, RoomTarget } from './generators/roomProtocol.js'
import { detectCores, pinSelf, serverCpus } from './harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from './harness/hark.js'
import { ProcessGroup, installSignalCleanup } from './harness/processes.js'
import { ensureMosquitto, startMosquitto } from './peers/mosquitto.js'
import { startPeer } from './peers/start.js'
import { formatColumns } from './report/table.js'
import { compact, ms, pct } from './report/format.js'
import type { GeneratorKind, MeasureContext, Measurement } from './scenario.js'

const { values } = parseArgs({
  options: {
    talkers: { type: 'string', default: '400' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    targets: { type: 'string', default: 'uws,mosquitto' },
  },
})
const talkers = Number(values.talkers)
const seconds = Number(values.seconds)
const rounds = Number(values.rounds)
const targets = values.targets.split(',').filter(Boolean)
const known = ['uws', 'mosquitto', 'hark-ws', 'hark-mqtt']
if (!(talkers >= 4) || !(seconds >= 1) || !(rounds >= 1) || targets.some((t) => !known.includes(t))) {
  process.stderr.write(`usage: generatorCost [--talkers N≥4] [--seconds S] [--rounds R] [--targets ${known.join(',')}]\n`)
  process.exit(2)
}

installSignalCleanup()
const cores = detectCores()
if (cores.pinned) pinSelf(cores.generators)
const dir = mkdtempSync(join(tmpdir(), 'hark-generator-cost-'))
const setupProcs = new ProcessGroup()
const abort = new AbortController()
const base = {
  quick: false,
  sweep: false,
  cores,
  dir,
  signal: abort.signal,
  logFile: (name: string) => join(dir, `${name}.log`),
  phase: (text: string) => process.stderr.write(`  ${text}\n`),
}
const shape = { rooms: Math.ceil(talkers / 4), roomSize: 4, talkersPerRoom: 4 }
const needsHark = targets.some((t) => t.startsWith('hark'))
const seed: HarkSeed | null = needsHark
  ? await seedHark({ ...base, procs: setupProcs }, { dataDir: join(dir, 'hark-data'), clients: shape.rooms * 4, tokensPerClient: 1, roomSize: 4 })
  : null
const tls = await loadTls({ certFile: null, keyFile: null, dataDir: dir, host: '127.0.0.1' })
const mosquitto = targets.includes('mosquitto') ? await ensureMosquitto({ ...base, procs: setupProcs }) : null

/** Start the target's server in `ctx.procs`; the load's protocol, target and members. */
const server = async (ctx: MeasureContext, target: string): Promise<{ protocol: ProtocolChoice; target: RoomTarget; members: RoomMember[]; pid: number }> => {
  if (target === 'uws') {
    const p = await startPeer(ctx, { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', tls.certFile, '--key', tls.keyFile] })
    return { protocol: protocols.wsPubSub, target: { host: '127.0.0.1', port: p.port, options: { tls: true } }, members: roomMembers(shape), pid: p.pid }
  }
  if (target === 'mosquitto') {
    const m = await startMosquitto(ctx, mosquitto!)
    return { protocol: protocols.rawMqtt, target: { host: '127.0.0.1', port: m.port, options: { scheme: 'pubsub', topic: 'rooms/{room}' } }, members: roomMembers(shape), pid: m.pid }
  }
  const hark = await startHark(ctx, { dataDir: seed!.dataDir, cpus: serverCpus(cores) })
  const members = roomMembers({ ...shape, clientOf: seededClient(seed!) })
  return target === 'hark-ws'
    ? { protocol: protocols.harkWs, target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} }, members, pid: hark.proc.pid }
    : { protocol: protocols.rawMqtt, target: { host: '127.0.0.1', port: hark.ports.mqtt, options: { scheme: 'hark' } }, members, pid: hark.proc.pid }
}

const measureOnce = async (target: string, generator: GeneratorKind, round: number): Promise<Measurement> => {
  const procs = new ProcessGroup()
  const ctx: MeasureContext = { ...base, procs, round, load: talkers, warmupMs: 1000, durationMs: seconds * 1000, generatorProcesses: 1, sweepStep: false, generator }
  try {
    const s = await server(ctx, target)
    return await runRoomLoad(ctx, { protocol: s.protocol, target: s.target, members: s.members, serverPids: [s.pid] })
  } finally {
    await procs.stopAll()
  }
}

const rows: string[][] = [
  ['target', 'generator', 'round', 'sent/s', 'received/s', 'generator CPU', 'messages per generator CPU-s', 'server CPU', 'p50/p99 ms', 'delivered', 'saturated', 'load avg'],
]
try {
  for (const target of targets) {
    for (let round = 1; round <= rounds; round++) {
      for (const generator of ['node', 'native'] as const) {
        process.stderr.write(`${target} · ${generator} · round ${round}/${rounds}\n`)
        const load = loadavg()[0]!.toFixed(2)
        const m = await measureOnce(target, generator, round)
        // frames sent in the measured window, over its length (as deliveries/s is)
        const sent = (m.extra.framesSent ?? 0) / seconds
        const received = m.value
        const genCpu = m.generator?.cpuPercent ?? 0
        rows.push([
          target, `${m.generator?.kind ?? generator}`, String(round), compact(sent), compact(received), pct(genCpu),
          genCpu > 0 ? compact((sent + received) / (genCpu / 100)) : '—', pct(m.server.cpuPercent),
          `${ms(m.latency?.p50Ms)}/${ms(m.latency?.p99Ms)}`, m.deliveryRatio === null ? '—' : pct(m.deliveryRatio * 100, 2), m.saturated, load,
        ])
      }
    }
  }
} finally {
  await setupProcs.stopAll()
  rmSync(dir, { recursive: true, force: true })
}
process.stdout.write(`${cores.description}; ${talkers} talkers in rooms of 4, 50 frames/s, ${seconds} s measured per run\n`)
process.stdout.write(formatColumns(rows) + '\n')
