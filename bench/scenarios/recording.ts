/**
 * recording: the ws-rooms load (rooms of 4 over WSS, all 4 talking at 50 frames/s) with every room
 * recorded per participant (its room setting: every session, from the first terminal on) against
 * the same load recorded by no room. Headline: deliveries/s; what recording costs is the server's
 * CPU per delivery beside the unrecorded side's (`serverCpuUsPerDelivery`, goal ≤ +10%), and
 * `cpuMsPerRoomMinute` and `writeBytesPerRoomMinute` of the recorded side. The generator's frames
 * are ~100 B of timestamped filler, not speech: per-participant tracks copy them as they come (no
 * decoding), so the cost is the recorder's, not a codec's.
 * Run: npm run bench -- --quick recording
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { defineScenario, type ComparedSide, type MeasureContext } from '../scenario.js'
import { median } from '../harness/stats.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { roomMembers, roomsFor, runRoomLoad } from '../generators/rooms.js'
import { protocols } from '../generators/generator.js'
import type { Measurement } from '../scenario.js'
import { ROOM_SIZE, TALKERS_PER_ROOM } from './wsRooms.js'

interface Fixture {
  readonly seed: HarkSeed
}

const MAX_TALKERS = 1500
const shape = (talkers: number) => roomsFor(talkers, ROOM_SIZE, TALKERS_PER_ROOM)

/** Bytes of every file under `dir`. */
const bytesUnder = (dir: string): number => {
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size
  return n
}

interface RecordingPage {
  readonly recordings: ReadonlyArray<{ readonly status: string; readonly sizeBytes: number; readonly durationMs: number | null }>
  readonly nextCursor: string | null
}

/**
 * The recordings of this run (started since `since`: the data dir serves every round) once every one has ended (checked every 200 ms for up to 15 s after
 * the load's terminals left): their bytes and recorded room-minutes; null when some still run.
 */
const finishedRecordings = async (port: number, apiKey: string, expected: number, since: number): Promise<{ bytes: number; minutes: number } | null> => {
  const deadline = performance.now() + 15_000
  for (;;) {
    const all: RecordingPage['recordings'][number][] = []
    let cursor: string | null = null
    do {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/recordings?limit=200&from=${encodeURIComponent(new Date(since).toISOString())}${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      })
      if (res.status !== 200) throw new Error(`GET /recordings answered ${res.status}: ${await res.text()}`)
      const page = (await res.json()) as RecordingPage
      all.push(...page.recordings)
      cursor = page.nextCursor
    } while (cursor !== null)
    if (all.length >= expected && all.every((r) => r.status !== 'recording')) {
      return { bytes: all.reduce((n, r) => n + r.sizeBytes, 0), minutes: all.reduce((n, r) => n + (r.durationMs ?? 0), 0) / 60_000 }
    }
    if (performance.now() > deadline) return null
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const measure = (record: boolean) => async (ctx: MeasureContext, f: Fixture): Promise<Measurement> => {
  const dir = join(ctx.dir, `recordings-${record ? 'on' : 'off'}-${ctx.round}`)
  const hark = await startHark(ctx, {
    dataDir: f.seed.dataDir,
    cpus: serverCpus(ctx.cores),
    extraArgs: ['--recordings-dir', dir, '--recordings-min-free-mb', '0', '--rest-rate-limit-max', '1000000'],
  })
  const rooms = [...new Set(f.seed.clients.slice(0, ctx.load).map((c) => c.room!))]
  ctx.phase(`${record ? 'recording' : 'not recording'} ${rooms.length} rooms`)
  for (const room of rooms) {
    const res = await fetch(`http://127.0.0.1:${hark.ports.rest}/api/v1/rooms/${room}/recording-setting`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${f.seed.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tracks: record ? 'per-participant' : null }),
    })
    if (res.status !== 200) throw new Error(`PUT recording-setting answered ${res.status}: ${await res.text()}`)
  }
  const startedAt = performance.now()
  const startedWall = Date.now() - 1000
  const m = await runRoomLoad(ctx, {
    protocol: protocols.harkWs,
    target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} },
    members: roomMembers({ ...shape(ctx.load), clientOf: seededClient(f.seed) }),
    serverPids: [hark.proc.pid],
  })
  // Rooms record from their first terminal to now: the connect phase, the warm-up and the window.
  const roomMinutes = (rooms.length * (performance.now() - startedAt)) / 60_000
  // Exact when the recordings have finished (the terminals left, the rooms closed: every page
  // written): their bytes over their recorded minutes; else what the files hold over wall time.
  const finished = record ? await finishedRecordings(hark.ports.rest, f.seed.apiKey, rooms.length, startedWall) : null
  const bytes = record ? (finished?.bytes ?? bytesUnder(dir)) : 0
  const minutes = finished?.minutes ?? roomMinutes
  const cpuMsPerMinute = (m.server.cpuPercent / 100) * 60_000
  return {
    ...m,
    extra: {
      ...m.extra,
      recordedRooms: record ? rooms.length : 0,
      // Server CPU of the measured window per room-minute (all of it, forwarding included: compare the two sides).
      cpuMsPerRoomMinute: cpuMsPerMinute / rooms.length,
      ...(record ? { writeBytesPerRoomMinute: bytes / minutes, recordingsFinished: finished === null ? 0 : 1 } : {}),
    },
  }
}

const medianExtra = (side: ComparedSide | undefined, key: string): number | null =>
  side === undefined ? null : median(side.runs.map((r) => r.measurement?.extra[key]))

/**
 * The figures the issue asks for, printed under the table and in the report: bytes written per
 * recorded room-minute, CPU per room-minute of both sides, and CPU per delivery recorded ÷ not.
 */
const compareSides = (sides: ReadonlyArray<ComparedSide>): string[] => {
  const on = sides.find((s) => s.name === 'hark')
  const off = sides.find((s) => s.name === 'hark-unrecorded')
  const out: string[] = []
  const bytes = medianExtra(on, 'writeBytesPerRoomMinute')
  const rooms = medianExtra(on, 'recordedRooms')
  if (bytes !== null) {
    const how = medianExtra(on, 'recordingsFinished') === 1 ? 'finished recordings: their bytes ÷ their durations' : 'recordings still open: file bytes ÷ wall time'
    out.push(`write bytes per recorded room-minute (per-participant, ${ROOM_SIZE} tracks a room): ${(bytes / 1024).toFixed(1)} KiB (${Math.round(bytes)} B; ${rooms ?? '?'} rooms; ${how})`)
  }
  const cpuOn = medianExtra(on, 'cpuMsPerRoomMinute')
  const cpuOff = medianExtra(off, 'cpuMsPerRoomMinute')
  if (cpuOn !== null && cpuOff !== null) {
    out.push(`server CPU per room-minute: recorded ${cpuOn.toFixed(0)} ms, not recorded ${cpuOff.toFixed(0)} ms (recording adds ${(cpuOn - cpuOff).toFixed(0)} ms per room-minute)`)
  }
  const usOn = medianExtra(on, 'serverCpuUsPerDelivery')
  const usOff = medianExtra(off, 'serverCpuUsPerDelivery')
  if (usOn !== null && usOff !== null && usOff > 0) {
    out.push(`server CPU per delivery: recorded ${usOn.toFixed(2)} µs, not recorded ${usOff.toFixed(2)} µs → ${((usOn / usOff - 1) * 100).toFixed(1)}% more (goal ≤ +10%)`)
  }
  return out
}

export default defineScenario<Fixture>({
  name: 'recording',
  description: `ws-rooms (rooms of ${ROOM_SIZE}, all talking) with every room recorded per participant, against none recorded`,
  unit: 'deliveries/s',
  higherIsBetter: true,
  goal: {
    text: 'recording every room costs ≤ 10% more server CPU per delivery (serverCpuUsPerDelivery) than recording none',
  },
  load: { quick: 200, full: 1000, unit: 'talkers' },
  setup: async (ctx) => ({
    seed: await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: Math.min(MAX_TALKERS, Math.max(ctx.load, 200)), tokensPerClient: 1, roomSize: ROOM_SIZE }),
  }),
  hark: { name: 'hark', label: 'Hark, every room recorded (per-participant Ogg Opus)', measure: measure(true) },
  peers: [{ name: 'hark-unrecorded', label: 'Hark, the same rooms not recorded', measure: measure(false) }],
  compare: compareSides,
})
