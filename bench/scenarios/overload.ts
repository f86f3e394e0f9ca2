/**
 * overload: what a server does when offered twice what it can carry, and how soon it is normal
 * again (issue 39 item 1). Rooms of 4, all talking at 50 frames/s (~100 B), as ws-rooms and
 * mqtt-rooms. One run against one server: a base group at 0.5× the knee talks through the whole
 * run; a surge group (other rooms, connected from the start, silent until then) raises the
 * offered load to 2× the knee for the surge (30 s; 5 s with --quick), then stops, and the base
 * group is measured on for the recovery (generators/surge.ts).
 *
 * Figures per side (JSON `extra`, the lines below the table): delivered % during the surge (the
 * headline; and of the base group alone) and over the run; p50/p99 of the frames delivered
 * during the surge (the table's latency columns); the recovery time: from the surge's end to
 * the start of the first 250 ms bucket (of send time) from which every base-group bucket has
 * p99 ≤ max(1.5 × the p99 before the surge, 50 ms) and ≥ 99% delivered (generators/timeline.ts);
 * Hark's drops per transport and reason from its /metrics (`hark_audio_frames_dropped_total`,
 * before → after, every reason found) and `hark_audio_overload_shed_ratio` late in the surge
 * when the engine has it. Goal (issue 39): p99 ≤ 250 ms of delivered frames at 2× the knee on
 * WSS and MQTT, no `rate` drops (every terminal sends at its nominal rate), recovery ≤ 2 s.
 *
 * The knee and why CPU burners: on the project machine (2 cores: server pinned to core 0,
 * generators to core 1) the native generator spends about what the server does per delivery over
 * TLS, so it cannot offer 2× what a whole server core carries (ws-rooms at 1500 talkers: server
 * 99%, generator 95%). So the server's core is shared with `OVERLOAD_BURNERS` busy-looping
 * processes pinned to it (harness/burner.ts): with 2 the server gets about a third of its core,
 * its knee falls with it, and 2× that knee stays inside what the generator's core can offer (the
 * lines below the table give the generator's CPU and on-time share during the surge to check it).
 * The knee is the load level (`--load N`, talkers). KNEE_TALKERS is Hark's WSS knee under 2 burners,
 * measured on a quiet machine with the existing sweep (2026-12-03, load 3.4,
 * `HARK_BENCH_BURNERS=2 npm run bench -- --sweep --quick ws-rooms`: Hark held 200 talkers, broke
 * at 280 with p99 21.2 ms > 15 ms; bare uWS held 392); room loads start the burners too when the
 * variable is set. Remeasure after data-plane changes. `HARK_BENCH_BURNERS=0` runs without burners
 * (then 2× the knee must stay under what the generator can offer). The same knee serves every
 * side, so each side gets the same offered load: Hark's WSS and MQTT transports, bare uWS (WSS)
 * and mosquitto (MQTT, full runs only).
 * Run: npm run bench -- --quick overload   (or --load N to set the knee)
 */
import { join } from 'node:path'
import { defineScenario, type ComparedSide, type MeasureContext } from '../scenario.js'
import { loadTls, type TlsMaterial } from '../../core/tls.js'
import { burnersFromEnv } from '../harness/burner.js'
import { median } from '../harness/stats.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { promSamples, scrape } from '../harness/prometheus.js'
import { roomMembers } from '../generators/rooms.js'
import { protocols, type ProtocolChoice } from '../generators/generator.js'
import type { RoomMember, RoomTarget } from '../generators/roomProtocol.js'
import { runSurgeLoad, type ServerReadings, type SurgePhases } from '../generators/surge.js'
import { ensureMosquitto, mosquittoVersion, startMosquitto } from '../peers/mosquitto.js'
import { startPeer } from '../peers/start.js'

const ROOM_SIZE = 4
/** Talkers at Hark's knee with the default burners (2 burners leave the server ~⅓ of its core; measured, above). */
export const KNEE_TALKERS = 200
/** Busy loops sharing the server's core (HARK_BENCH_BURNERS overrides). */
export const OVERLOAD_BURNERS = 2
const BASE_FACTOR = 0.5
const SURGE_FACTOR = 2
const BUCKET_MS = 250
const GOAL_P99_MS = 250
const GOAL_RECOVERY_MS = 2000
/** A base load whose p99 before the surge is above this was already past the knee: the report says so. */
const BASE_NORMAL_P99_MS = 50

interface Fixture {
  readonly tls: TlsMaterial
  readonly seed: HarkSeed
  readonly mosquitto: string | null
}

/** Whole rooms of 4 for the base group (0.5× the knee) and the surge group (the rest of 2×). */
export const groupRooms = (knee: number): { base: number; surge: number } => {
  const base = Math.max(1, Math.round((knee * BASE_FACTOR) / ROOM_SIZE))
  const total = Math.max(base + 1, Math.round((knee * SURGE_FACTOR) / ROOM_SIZE))
  return { base, surge: total - base }
}

const phases = (ctx: MeasureContext): SurgePhases => ({
  preMs: ctx.quick ? 2000 : 5000,
  // --duration sets the surge (rounded to whole buckets).
  surgeMs: Math.max(BUCKET_MS, Math.round(ctx.durationMs / BUCKET_MS) * BUCKET_MS),
  postMs: ctx.quick ? 4000 : 10_000,
  bucketMs: BUCKET_MS,
})

/** Base and surge members: rooms 1..base talk all along, the next `surge` rooms in the surge. */
const groups = (ctx: MeasureContext, clientOf?: (i: number) => { clientId: string; room: string; credential: string | null }) => {
  const r = groupRooms(ctx.load)
  const all = roomMembers({ rooms: r.base + r.surge, roomSize: ROOM_SIZE, talkersPerRoom: ROOM_SIZE, ...(clientOf ? { clientOf } : {}) })
  return { base: all.slice(0, r.base * ROOM_SIZE), surge: all.slice(r.base * ROOM_SIZE) }
}

/** Hark's drops per transport and reason (counters) and its overload gauge, from /metrics. */
export const harkReadings = (metricsText: string): ServerReadings => {
  const counters: Record<string, number> = {}
  for (const s of promSamples(metricsText, 'hark_audio_frames_dropped_total')) {
    counters[`dropped:${s.labels.transport ?? '?'}:${s.labels.reason ?? '?'}`] = s.value
  }
  const gauges: Record<string, number> = {}
  for (const s of promSamples(metricsText, 'hark_audio_overload_shed_ratio')) {
    const labels = Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(',')
    gauges[labels ? `overloadShedRatio{${labels}}` : 'overloadShedRatio'] = s.value
  }
  return { counters, gauges }
}

const run = (ctx: MeasureContext, p: { protocol: ProtocolChoice; target: RoomTarget; members: { base: readonly RoomMember[]; surge: readonly RoomMember[] }; pid: number; metricsUrl?: string }) =>
  runSurgeLoad(ctx, {
    protocol: p.protocol,
    target: p.target,
    base: p.members.base,
    surge: p.members.surge,
    serverPids: [p.pid],
    phases: phases(ctx),
    burners: burnersFromEnv(OVERLOAD_BURNERS),
    ...(p.metricsUrl
      ? {
          readServer: async () => {
            const text = await scrape(p.metricsUrl!)
            return text === null ? null : harkReadings(text)
          },
        }
      : {}),
  })

const harkSide = (transport: 'ws' | 'mqtt') => async (ctx: MeasureContext, f: Fixture) => {
  const members = groups(ctx, seededClient(f.seed))
  const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores) })
  return run(ctx, {
    protocol: transport === 'ws' ? protocols.harkWs : protocols.rawMqtt,
    target: transport === 'ws' ? { host: '127.0.0.1', port: hark.ports.gateway, options: {} } : { host: '127.0.0.1', port: hark.ports.mqtt, options: { scheme: 'hark' } },
    members,
    pid: hark.proc.pid,
    metricsUrl: `${hark.restUrl}/metrics`,
  })
}

const medianExtra = (side: ComparedSide, key: string): number | null => median(side.runs.map((r) => r.measurement?.extra[key]))

const fmt = (v: number | null, digits = 1, unit = '') => (v === null || v < 0 ? '—' : `${v.toFixed(digits)}${unit}`)

/** One line per side: the figures the issue asks for (medians over the side's runs), and Hark's drops. */
const compareSides = (sides: ReadonlyArray<ComparedSide>): string[] => {
  const out: string[] = []
  for (const s of sides) {
    if (!s.runs.some((r) => r.measurement)) continue
    const x = (k: string) => medianExtra(s, k)
    const rec = x('recoveryMs')
    const scheduled = x('framesScheduled')
    const late = x('framesMissedLate')
    // Slots the generator itself ran too late to send: terminals then did not send at their nominal rate.
    const onTime = scheduled !== null && late !== null && scheduled > 0 ? (1 - late / scheduled) * 100 : null
    out.push(
      `${s.name}: surge ${fmt(x('baseTalkers'), 0)} + ${fmt(x('surgeTalkers'), 0)} talkers (server CPU ${fmt(x('serverCpuPercentSurge'), 0, '%')}, its core ${fmt(x('serverCoreBusyPercentSurge'), 0, '%')} busy, generator ${fmt(x('generatorCpuPercentSurge'), 0, '%')}, ${fmt(onTime, 1, '%')} of its slots sent): ` +
        `delivered ${fmt(x('deliveredPctSurge'), 2, '%')} (base group ${fmt(x('deliveredPctSurgeBase'), 2, '%')}), p50 ${fmt(x('p50MsSurge'), 1, ' ms')}, p99 ${fmt(x('p99MsSurge'), 1, ' ms')} (goal ≤ 250 ms); ` +
        `before p99 ${fmt(x('p99MsBefore'), 1, ' ms')}, after p99 ${fmt(x('p99MsAfter'), 1, ' ms')}; overall delivered ${fmt(x('deliveredPctOverall'), 2, '%')}; ` +
        `recovery ${rec === null ? '—' : rec < 0 ? 'not within the run' : `${(rec / 1000).toFixed(2)} s`} (normal: p99 ≤ ${fmt(x('normalP99Ms'), 1, ' ms')}, ≥ 99% delivered; goal ≤ 2 s)`,
    )
    const before = x('p99MsBefore')
    if (before !== null && before > BASE_NORMAL_P99_MS) {
      out.push(`${s.name}: the base load alone was not normal (p99 ${before.toFixed(1)} ms before the surge > ${BASE_NORMAL_P99_MS} ms): the knee (--load) is too high for this server's share of its core, or other work took it`)
    }
    const keys = [...new Set(s.runs.flatMap((r) => Object.keys(r.measurement?.extra ?? {})))]
    const drops = keys.filter((k) => k.startsWith('dropped:')).sort()
    if (drops.length > 0) {
      const name = (k: string) => k.slice('dropped:'.length)
      const some = drops.filter((k) => (x(k) ?? 0) > 0)
      const none = drops.filter((k) => (x(k) ?? 0) <= 0)
      out.push(
        `${s.name}: frames dropped during the run (transport:reason): ${some.length > 0 ? some.map((k) => `${name(k)} ${fmt(x(k), 0)}`).join(', ') : 'none'}` +
          (none.length > 0 ? `; 0 for ${none.map(name).join(', ')}` : ''),
      )
    }
    const gauges = keys.filter((k) => k.startsWith('overloadShedRatio')).sort()
    if (gauges.length > 0) out.push(`${s.name}: ${gauges.map((k) => `${k} ${fmt(x(k), 3)}`).join(', ')}`)
    if (s.role === 'hark' || s.name.startsWith('hark')) {
      const p99 = x('p99MsSurge')
      const rateDrops = drops.filter((k) => k.endsWith(':rate')).reduce((n, k) => n + (x(k) ?? 0), 0)
      const word = (ok: boolean) => (ok ? 'met' : 'not met')
      out.push(
        `${s.name}: goal p99 ≤ ${GOAL_P99_MS} ms in the surge ${word(p99 !== null && p99 >= 0 && p99 <= GOAL_P99_MS)}; ` +
          `no rate drops ${drops.length === 0 ? 'not judged (no /metrics)' : onTime !== null && onTime < 99 ? 'not judged (the generator fell behind its schedule)' : word(rateDrops === 0)}; recovery ≤ ${GOAL_RECOVERY_MS / 1000} s ${word(rec !== null && rec >= 0 && rec <= GOAL_RECOVERY_MS)}`,
      )
    }
  }
  return out
}

export default defineScenario<Fixture>({
  name: 'overload',
  description: `rooms of ${ROOM_SIZE}, all talking at 50 frames/s (~100 B): ${BASE_FACTOR}× the knee all along, ${SURGE_FACTOR}× for a surge, then back; the server's core shared with CPU burners`,
  unit: '% delivered in the surge',
  higherIsBetter: true,
  // Judged per Hark side in the lines below the table (the headline, delivered %, has no target: shedding is allowed).
  goal: { text: `at ${SURGE_FACTOR}× the knee: p99 of delivered frames ≤ ${GOAL_P99_MS} ms (WSS and MQTT), no \`rate\` drops, recovery ≤ ${GOAL_RECOVERY_MS / 1000} s (lines below the table)` },
  load: { quick: KNEE_TALKERS, full: KNEE_TALKERS, unit: 'talkers at the knee' },
  // Warm-up, then --duration is the surge; before (2 s / 5 s) and after (4 s / 10 s) come on top.
  timing: { quick: { warmupMs: 1000, durationMs: 5000 }, full: { warmupMs: 2000, durationMs: 30_000 } },
  setup: async (ctx) => {
    const tls = await loadTls({ certFile: null, keyFile: null, dataDir: ctx.dir, host: '127.0.0.1' })
    const r = groupRooms(ctx.load)
    const seed = await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: (r.base + r.surge) * ROOM_SIZE, tokensPerClient: 1, roomSize: ROOM_SIZE })
    const mosquitto = ctx.quick ? null : await ensureMosquitto(ctx)
    if (mosquitto) ctx.phase(mosquittoVersion(mosquitto))
    return { tls, seed, mosquitto }
  },
  hark: { name: 'hark', label: 'Hark WebSocket gateway (WSS, token auth, protocol v1)', measure: harkSide('ws') },
  peers: [
    { name: 'hark-mqtt', label: 'Hark MQTT transport (the same engine, MQTT 3.1.1 devices)', measure: harkSide('mqtt') },
    {
      name: 'uws',
      label: 'bare uWebSockets.js SSLApp pub/sub fan-out (WSS)',
      measure: async (ctx, f) => {
        const peer = await startPeer(ctx, { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', f.tls.certFile, '--key', f.tls.keyFile] })
        return run(ctx, { protocol: protocols.wsPubSub, target: { host: '127.0.0.1', port: peer.port, options: { tls: true, path: '/v1/connect' } }, members: groups(ctx), pid: peer.pid })
      },
    },
    {
      name: 'mosquitto',
      label: 'mosquitto (Debian package, persistence off; MQTT)',
      fullOnly: true,
      measure: async (ctx, f) => {
        if (!f.mosquitto) throw new Error('mosquitto runs in full runs only')
        const m = await startMosquitto(ctx, f.mosquitto)
        return run(ctx, { protocol: protocols.rawMqtt, target: { host: '127.0.0.1', port: m.port, options: { scheme: 'pubsub', topic: 'rooms/{room}' } }, members: groups(ctx), pid: m.pid })
      },
    },
  ],
  compare: compareSides,
})
