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
import { defineScenario, type MeasureContext } from '../scenario.js'
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
  const m = await runRoomLoad(ctx, {
    protocol: protocols.harkWs,
    target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} },
    members: roomMembers({ ...shape(ctx.load), clientOf: seededClient(f.seed) }),
    serverPids: [hark.proc.pid],
  })
  // Rooms record from their first terminal to now: the connect phase, the warm-up and the window.
  const roomMinutes = (rooms.length * (performance.now() - startedAt)) / 60_000
  const bytes = record ? bytesUnder(dir) : 0
  const cpuMsPerMinute = (m.server.cpuPercent / 100) * 60_000
  return {
    ...m,
    extra: {
      ...m.extra,
      recordedRooms: record ? rooms.length : 0,
      // Server CPU of the measured window per room-minute (all of it, forwarding included: compare the two sides).
      cpuMsPerRoomMinute: cpuMsPerMinute / rooms.length,
      ...(record ? { writeBytesPerRoomMinute: bytes / roomMinutes } : {}),
    },
  }
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
})
