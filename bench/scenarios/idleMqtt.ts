/**
 * idle-mqtt: server memory per connected idle MQTT device (plain TCP, MQTT 3.1.1, keepalive
 * 60 s). Connect N devices (rooms of 4, nobody talking) in two halves, hold them for the window,
 * and divide the growth of the server's RSS by N (each half's figure in `extra`: runIdleMemory). Hark keeps per device its connection (framer, parser, output),
 * a session (no client actor: the bench's tokens are long-lived), presence and a room membership; mosquitto keeps a client with one
 * subscription. The idle-scale goal (issue 18): 100k devices on one engine in < 1.2 GB RSS, i.e.
 * ≤ ~12 KB each with the engine's own ~100 MB; on a machine whose `ulimit -n` stops short of the
 * load, run the level the limit allows and judge by KB per device.
 */
import { join } from 'node:path'
import { runIdleMemory } from '../generators/connections.js'
import { protocols } from '../generators/generator.js'
import { roomMembers } from '../generators/rooms.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { ensureMosquitto, mosquittoVersion, startMosquitto } from '../peers/mosquitto.js'
import { defineScenario } from '../scenario.js'

interface Fixture {
  readonly mosquitto: string
  readonly seed: HarkSeed
}

const LOAD = { quick: 1000, full: 5000 }
const ROOM_SIZE = 4

const shape = (devices: number) => ({ rooms: Math.ceil(devices / ROOM_SIZE), roomSize: ROOM_SIZE, talkersPerRoom: 0 })

export default defineScenario<Fixture>({
  name: 'idle-mqtt',
  description: 'KB of server RSS per idle connected MQTT device (plain TCP, rooms of 4, nobody talking)',
  unit: 'KB/client',
  higherIsBetter: false,
  load: { ...LOAD, unit: 'devices' },
  timing: { quick: { warmupMs: 500, durationMs: 1500 }, full: { warmupMs: 2000, durationMs: 5000 } },
  setup: async (ctx) => {
    const mosquitto = await ensureMosquitto(ctx)
    ctx.phase(mosquittoVersion(mosquitto))
    const clients = Math.max(ctx.quick ? LOAD.quick : LOAD.full, ctx.load)
    const seed = await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients, tokensPerClient: 1, roomSize: ROOM_SIZE })
    return { mosquitto, seed }
  },
  hark: {
    name: 'hark',
    label: 'Hark MQTT transport (connection, session, presence, room membership; long-lived tokens: no client actor)',
    measure: async (ctx, f) => {
      const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores) })
      return runIdleMemory(ctx, {
        protocol: protocols.rawMqtt,
        target: { host: '127.0.0.1', port: hark.ports.mqtt, options: { scheme: 'hark' } },
        members: roomMembers({ ...shape(ctx.load), clientOf: seededClient(f.seed) }).slice(0, ctx.load),
        serverPids: [hark.proc.pid],
        heapSnapshot: true,
      })
    },
  },
  peers: [
    {
      name: 'mosquitto',
      label: 'mosquitto (Debian package, default settings, persistence off; a client subscribed to its room)',
      measure: async (ctx, f) => {
        const m = await startMosquitto(ctx, f.mosquitto)
        return runIdleMemory(ctx, {
          protocol: protocols.rawMqtt,
          target: { host: '127.0.0.1', port: m.port, options: { scheme: 'pubsub', topic: 'rooms/{room}' } },
          members: roomMembers(shape(ctx.load)).slice(0, ctx.load),
          serverPids: [m.pid],
        })
      },
    },
  ],
})
